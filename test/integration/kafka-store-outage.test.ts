import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigResourceTypes, type Kafka } from 'kafkajs';
import { pino } from 'pino';
import { eventually } from '../helpers/eventually.js';
import { committedOffsets, format3SpanRow, kafkaClient, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { spanRecord } from '../helpers/span-record.js';
import { createKafkaSink } from '../../collector/kafka/kafka-sink.js';
import { startIngester, type Ingester } from '../../collector/kafka/ingester.js';
import { ensureTopics } from '../../collector/kafka/topics.js';
import { MESSAGE_HEADERS } from '../../collector/kafka/envelope.js';
import { DEAD_LETTER_HEADERS } from '../../collector/kafka/dead-letter.js';
import { createIngest } from '../../collector/ingest.js';
import { KAFKA_DEFAULTS } from '../../core/config.js';
import { errorMessage, failureKind, ServiceUnavailableError } from '../../core/errors.js';
import { createLogger } from '../../core/logger.js';
import type { RawSpan } from '../../core/model/raw-span.js';
import type { RowBatch, SpanRecord, SpanType, TraceHeader } from '../../core/model/span.js';
import type { AnalyticsStore, BatchWriter } from '../../core/store/analytics.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../../core/store/clickhouse/migration-target.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { migrate } from '../../core/store/migrations.js';

// Issue 7, item 3: the Kafka ingester never dead-letters good data. A real broker, the real
// ingester and the real store (chDB): the store fails the way an outage or an overload does,
// then recovers. Every failure must be retried with the partition waiting uncommitted; only data
// the store can never take goes to the dead-letter topic (kafka-transport.test.ts covers those).
// Then format 4 against the same store: a request larger than a message, a message the store
// refuses (dead-lettered whole, nothing of it stored), and a topic whose message size limit
// ensureTopics raises.
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let broker: KafkaBroker;
let kafka: Kafka;
let ch: ClickHouse;
let store: AnalyticsStore;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  [broker, ch] = await Promise.all([startKafka(), connectClickHouse({ dataDir: makeDataDir() })]);
  kafka = kafkaClient(broker, 'kafka-store-outage-test');
  await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
  store = createAnalyticsStore(ch);
});

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop().catch(() => undefined);
});

afterAll(async () => {
  await store?.close();
  await broker?.stop();
});

/** A format-4 value's two parts, each as its rows: span rows up to the first empty line, then trace_stats_input rows. */
function partsOf(value: string): RowBatch {
  const at = value.indexOf('\n\n');
  if (at === -1) throw new Error(`a format-4 value without the empty line between its parts: ${value.slice(0, 200)}`);
  const [spans, stats] = [value.slice(0, at), value.slice(at + 2)];
  return { spans: spans ? spans.split('\n') : [], stats: stats ? stats.split('\n') : [] };
}

/** A span row's trace id and span id (TabSeparated: its second and third fields; ids here need no escapes). */
const spanRowTrace = (row: string): string => row.split('\t')[1];
const spanRowId = (row: string): string => row.split('\t')[2];

async function sql(query: string): Promise<void> {
  await ch.client.command({ query });
}

/** Rows of a project's trace summaries (trace_stats, read without the spans table, which an outage may have detached). */
async function summaryRows(project: string): Promise<number> {
  const res = await ch.client.query({
    query: 'SELECT count() AS n FROM agent_eval.trace_stats WHERE project_id = {project:String}',
    query_params: { project },
    format: 'JSONEachRow',
  });
  const [row] = await res.json<{ n: string | number }>();
  return Number(row.n);
}

/** Recent: rows older than the retention (TTL) are dropped by ClickHouse on insert. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

function span(project: string, trace: string, id: string, type: SpanType, start: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  const generation = type === 'generation';
  return spanRecord({
    project_id: project,
    trace_id: trace,
    span_id: `${trace}-${id}`,
    parent_span_id: id === 'root' ? null : `${trace}-root`,
    name: id,
    span_type: type,
    component_type: type === 'span' ? null : type,
    convention: 'spec',
    start_time: T0 + start,
    end_time: T0 + start + 100,
    duration_ms: 100,
    model: generation ? 'gpt-4o' : null,
    input: 'question',
    output: 'answer',
    input_tokens: generation ? 100 : 0,
    output_tokens: generation ? 10 : 0,
    resource_attributes: { 'service.name': 'agent' },
    ...extra,
  });
}

/** An agent run: a root, two LLM calls (the second fails) and a tool call. */
function agentRun(project: string, trace: string): SpanRecord[] {
  return [
    span(project, trace, 'root', 'span', 0, { end_time: T0 + 1000, duration_ms: 1000 }),
    span(project, trace, 'llm-1', 'generation', 100),
    span(project, trace, 'search', 'tool', 300),
    span(project, trace, 'llm-2', 'generation', 500, { status: 'error', status_message: 'rate limited' }),
  ];
}

/** A real failure of the store, and how it ends. */
interface Outage {
  name: string;
  /** The ClickHouse error type an insert meets meanwhile. */
  error: string;
  begin(): Promise<void>;
  end(): Promise<void>;
}

const outages: Outage[] = [
  {
    // Inserts fail with UNKNOWN_TABLE: the store is there, the table is not (a restore, a
    // migration by hand). Nothing about the data; it can be written once the table is back.
    // Inserts into trace_stats_input (and its materialized view into trace_stats) still succeed.
    name: 'the spans table is detached',
    error: 'UNKNOWN_TABLE',
    begin: () => sql('DETACH TABLE agent_eval.spans'),
    end: () => sql('ATTACH TABLE agent_eval.spans'),
  },
  {
    // ClickHouse's own overload signal: merges fall behind and it refuses inserts (TOO_MANY_PARTS).
    // With merges stopped and a limit of one part, the part already in the month's partition is
    // one too many.
    name: 'merges fall behind',
    error: 'TOO_MANY_PARTS',
    begin: async () => {
      await store.writeRows(encodeRowBatch([span('seed', 'seed', 'root', 'span', 0)]));
      await sql('SYSTEM STOP MERGES agent_eval.spans');
      await sql('ALTER TABLE agent_eval.spans MODIFY SETTING parts_to_throw_insert = 1');
    },
    end: async () => {
      await sql('ALTER TABLE agent_eval.spans RESET SETTING parts_to_throw_insert');
      await sql('SYSTEM START MERGES agent_eval.spans');
    },
  },
];

describe('the Kafka ingester against the real store (chDB)', () => {
  for (const outage of outages)
    it(`retries while ${outage.name} (${outage.error}): nothing dead-lettered, nothing committed past an unwritten span, every span stored after`, async () => {
      const id = `${Date.now().toString(36)}-${outage.error.toLowerCase()}`;
      const names = { topic: `spans-${id}`, deadLetterTopic: `spans-${id}.dlq`, groupId: `ingester-${id}` };
      await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions: 3 });

      // Five agent runs go through the real sink; the first also has an explicit header, as the
      // JSON ingest body gives one. Each write becomes one format-4 message: its span rows, an empty
      // line, its trace_stats_input rows; the header is one more row of the first write's.
      const project = `p-${id}`;
      const runs = ['run-0', 'run-1', 'run-2', 'run-3', 'run-4'].map((trace) => ({ trace, spans: agentRun(project, trace) }));
      const checkout: TraceHeader = {
        project_id: project,
        trace_id: 'run-0',
        name: 'checkout',
        status: 'ok',
        start_time: T0 - 500,
        duration_ms: 2000,
        attributes: { user: 'u7' },
      };
      const sink = await createKafkaSink({ kafka, topic: names.topic, logger, maxMessageBytes: 100_000 });
      running.push({ stop: () => sink.close() });
      for (const [i, run] of runs.entries()) {
        await sink.write(encodeRowBatch(run.spans, i === 0 ? [checkout] : []));
      }
      const produced = await topicMessageCount(kafka, names.topic);
      // One message per write.
      expect(produced).toBe(runs.length);
      const messages = await readTopic(kafka, names.topic, produced);
      for (const m of messages) expect(m.headers[MESSAGE_HEADERS.format]).toBe('4');
      // Each message: its run's four span rows, then its trace's contribution, and for run-0 the header next to it.
      const rowsPerMessage = messages.map((m) => {
        const parts = partsOf(m.value);
        const stats = parts.stats.map((line) => JSON.parse(line) as { trace_id: string; header?: number });
        return `${parts.spans.map(spanRowTrace).join(' ')}: ${stats
          .map((r) => `${r.trace_id}${r.header === 1 ? ' header' : ''}`)
          .sort()
          .join(' + ')}`;
      });
      expect(rowsPerMessage.sort()).toEqual(
        runs.map(({ trace }) => `${Array(4).fill(trace).join(' ')}: ${trace}${trace === 'run-0' ? ` + ${trace} header` : ''}`),
      );

      await outage.begin();
      // The real store, watched: every failed insert is recorded on its way back to the ingester.
      const failures: unknown[] = [];
      const writer: BatchWriter = {
        async writeRows(batch) {
          try {
            await store.writeRows(batch);
          } catch (err) {
            failures.push(err);
            throw err;
          }
        },
      };
      let ingester: Ingester;
      try {
        ingester = await startIngester({ kafka, logger, ...names, writer, retryBackoffMs: { min: 100, max: 500 }, sessionTimeoutMs: 10_000 });
        running.push(ingester);
        await eventually(() => expect(failures.length).toBeGreaterThanOrEqual(4));

        // During the outage: every failure is a retryable 503 naming the real cause.
        for (const failure of failures) {
          expect(failure).toBeInstanceOf(ServiceUnavailableError);
          expect(failureKind(failure)).toBe('transient');
          expect(errorMessage((failure as ServiceUnavailableError).cause)).toContain(`(${outage.error})`);
        }
        // Every message holds span rows, inserted before its summaries: no partition is committed
        // past any message, no summary was written without its spans, and nothing went to the
        // dead-letter topic.
        expect(await committedOffsets(kafka, names.groupId, names.topic)).toEqual(['-1', '-1', '-1']);
        expect(await ingester.lag()).toBe(messages.length);
        expect(await summaryRows(project)).toBe(0);
        expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
      } finally {
        await outage.end();
      }

      // Once the store is back: everything committed, still nothing dead-lettered.
      await eventually(async () => expect(await ingester.lag()).toBe(0));
      expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);

      // Every span is readable, once, and each trace's summary counts it.
      for (const run of runs) {
        const trace = await store.getTrace(project, run.trace);
        expect(trace?.spans.map((s) => s.span_id).sort(), run.trace).toEqual(run.spans.map((s) => s.span_id).sort());
        expect(trace, run.trace).toMatchObject({
          span_count: 4,
          llm_call_count: 2,
          tool_call_count: 1,
          error_count: 1,
          status: 'error',
          total_input_tokens: 200,
          total_output_tokens: 20,
          duration_ms: run.trace === 'run-0' ? 2000 : 1000,
          name: run.trace === 'run-0' ? 'checkout' : 'root',
        });
      }
      expect((await store.getTrace(project, 'run-0'))?.attributes).toMatchObject({ user: 'u7' });
    });
});

// ---------------------------------------------------------------------------------------------
// Format 4 against the real store: one message per write, its spans and their summaries, stored
// together or not at all.

/** A dead letter's reason for a message the store refused for its data. */
const REFUSED = /^rejected by the store: The analytical store rejected the data: /;
/** Rows the store refuses for their data (test/integration/write-atomicity.test.ts): a span row one column short, a summary row with a bad time. */
const BROKEN_SPAN_ROW = 'p\tbroken-trace\tbroken-span';
const BROKEN_STATS_ROW = '{"project_id":"p","trace_id":"x","min_start":"not a time"}';

async function newTopics(name: string, partitions: number, maxMessageBytes?: number) {
  const id = `${Date.now().toString(36)}-${name}`;
  const names = { topic: `spans-${id}`, deadLetterTopic: `spans-${id}.dlq`, groupId: `ingester-${id}` };
  await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions, maxMessageBytes });
  return names;
}

async function startSink(topic: string, maxMessageBytes: number) {
  const sink = await createKafkaSink({ kafka, topic, logger, maxMessageBytes });
  running.push({ stop: () => sink.close() });
  return sink;
}

async function ingestInto(names: { topic: string; deadLetterTopic: string; groupId: string }): Promise<Ingester> {
  const ingester = await startIngester({ kafka, logger, ...names, writer: store, retryBackoffMs: { min: 100, max: 500 }, sessionTimeoutMs: 10_000 });
  running.push(ingester);
  return ingester;
}

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

/** An OTLP-decoded agent run: a root and `children` LLM calls with a long prompt each (kept in the input and in the attributes). */
function rawRun(traceId: string, children: number): RawSpan[] {
  const base = {
    traceId,
    kind: 'internal',
    events: [],
    status: { code: 'unset' as const },
    resource: { 'service.name': 'agent' },
    scope: { name: 'test', version: '1' },
  };
  return [
    {
      ...base,
      spanId: hex(1, 8),
      parentSpanId: null,
      name: 'invoke_agent',
      startTimeMs: T0,
      endTimeMs: T0 + 60_000,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    },
    ...Array.from({ length: children }, (_, i) => ({
      ...base,
      spanId: hex(i + 2, 8),
      parentSpanId: hex(1, 8),
      name: `chat ${i}`,
      startTimeMs: T0 + 1_000 * (i + 1),
      endTimeMs: T0 + 1_000 * (i + 1) + 500,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 100 + i,
        'gen_ai.usage.output_tokens': 10 + i,
        'gen_ai.prompt': `Step ${i}.\n\n${'Read the file and summarize it — ✓. '.repeat(140)}`,
      },
    })),
  ];
}

async function topicConfig(topic: string): Promise<Record<string, { value: string; source: number }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
    return Object.fromEntries(resources[0].configEntries.map((e) => [e.configName, { value: e.configValue, source: e.configSource }]));
  } finally {
    await admin.disconnect();
  }
}

describe('format 4 through the real store', () => {
  // The smallest valid configuration: MAX_SPAN_BYTES 16 KiB, KAFKA_MAX_MESSAGE_BYTES 16 KiB + 64 KiB.
  const maxSpanBytes = 16_384;
  const maxMessageBytes = maxSpanBytes + 64 * 1024;

  /** New topics named after `name`, a sink on them and ingest through it with the smallest valid limits, and a project of its own. */
  async function smallestWritePath(name: string) {
    const names = await newTopics(name, 3, maxMessageBytes);
    const sink = await startSink(names.topic, maxMessageBytes);
    return { names, sink, ingest: createIngest(sink, { maxSpanBytes }), project: `p-${name}-${Date.now().toString(36)}` };
  }

  it('a request larger than one message arrives as several, each with the summary rows of its own spans; the trace counts every span once', async () => {
    const { names, sink, ingest, project } = await smallestWritePath('split');
    const traceId = hex(0x5917, 16);
    // 17 spans of ~5 kB, ~86 kB: more than a message, so ingest cuts the request into writes of at
    // most half a message of span rows (three here), each sent as one message.
    const raw = rawRun(traceId, 16);
    expect(
      await ingest(project, raw, [{ trace_id: traceId, name: 'long run', status: 'ok', start_time: T0, duration_ms: 60_000, attributes: { user: 'u1' } }]),
    ).toEqual({ kind: 'ok', accepted: 17 });
    expect(sink.stats()).toMatchObject({ pendingSpans: 0, pendingBytes: 0 });

    const produced = await topicMessageCount(kafka, names.topic);
    expect(produced).toBeGreaterThanOrEqual(3);
    const messages = await readTopic(kafka, names.topic, produced);
    const allIds: string[] = [];
    let headers = 0;
    for (const m of messages) {
      // Each a whole write of format 4: span rows and the summary rows of exactly those spans.
      expect(m.headers[MESSAGE_HEADERS.format]).toBe('4');
      expect(Buffer.byteLength(m.value)).toBeLessThanOrEqual(maxMessageBytes);
      const parts = partsOf(m.value);
      expect(Number(m.headers[MESSAGE_HEADERS.spanRows])).toBe(parts.spans.length);
      expect(Number(m.headers[MESSAGE_HEADERS.statsRows])).toBe(parts.stats.length);
      expect(parts.spans.length).toBeGreaterThan(0);
      expect(parts.spans.every((row) => spanRowTrace(row) === traceId)).toBe(true);
      const stats = parts.stats.map((line) => JSON.parse(line) as { trace_id: string; header?: number; span_stats?: [string[], number[], number[], number[]] });
      expect(stats.every((r) => r.trace_id === traceId)).toBe(true);
      headers += stats.filter((r) => r.header === 1).length;
      const counted = stats.filter((r) => r.header !== 1).flatMap((r) => r.span_stats![0]);
      expect(counted.sort(), 'the spans a message counts are the spans it carries').toEqual(parts.spans.map(spanRowId).sort());
      allIds.push(...counted);
    }
    // Every span in exactly one message, counted by that message alone; the header rides in one.
    expect(allIds.sort()).toEqual(raw.map((s) => s.spanId).sort());
    expect(headers).toBe(1);
    // Without a key, the writes spread over the partitions.
    expect(new Set(messages.map((m) => m.partition)).size).toBeGreaterThan(1);

    const ingester = await ingestInto(names);
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
    const trace = (await store.getTrace(project, traceId))!;
    expect(trace).toMatchObject({
      name: 'long run',
      span_count: 17,
      llm_call_count: 16,
      error_count: 0,
      total_input_tokens: Array.from({ length: 16 }, (_, i) => 100 + i).reduce((a, b) => a + b),
      total_output_tokens: Array.from({ length: 16 }, (_, i) => 10 + i).reduce((a, b) => a + b),
      attributes: { user: 'u1' },
    });
    expect(trace.spans.map((s) => s.span_id).sort()).toEqual(raw.map((s) => s.spanId).sort());
    const listed = await store.listTraces(project, { limit: 10, offset: 0 });
    expect(listed.traces.map((t) => [t.trace_id, t.span_count])).toEqual([[traceId, 17]]);
  });

  it('a request of many one-span traces, whose summary rows outweigh its span rows, is still one message per write', async () => {
    // An OTLP batch of short server spans, each its own trace: a summary row per span, larger than
    // the span's row. The writes are bounded by span rows and summary rows together, so none needs
    // the fallback of span-only and summary-only messages (which are not stored together).
    const { names, ingest, project } = await smallestWritePath('traces');
    const raw: RawSpan[] = Array.from({ length: 600 }, (_, i) => ({
      traceId: hex(0x7000 + i, 16),
      spanId: hex(1, 8),
      parentSpanId: null,
      name: 'GET /api/items',
      kind: 'server',
      startTimeMs: T0 + i,
      endTimeMs: T0 + i + 5,
      attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 },
      events: [],
      status: { code: 'unset' },
      resource: { 'service.name': 'web' },
      scope: { name: 'http', version: '1' },
    }));
    expect(await ingest(project, raw)).toEqual({ kind: 'ok', accepted: 600 });

    const produced = await topicMessageCount(kafka, names.topic);
    expect(produced).toBeGreaterThan(1);
    const messages = await readTopic(kafka, names.topic, produced);
    const traces: string[] = [];
    for (const m of messages) {
      expect(m.headers[MESSAGE_HEADERS.format]).toBe('4');
      expect(Buffer.byteLength(m.value)).toBeLessThanOrEqual(maxMessageBytes);
      const parts = partsOf(m.value);
      // Both parts in every message: each span with its trace's summary row.
      expect(parts.spans.length).toBeGreaterThan(0);
      expect(parts.stats.map((line) => (JSON.parse(line) as { trace_id: string }).trace_id)).toEqual(parts.spans.map(spanRowTrace));
      traces.push(...parts.spans.map(spanRowTrace));
    }
    expect(traces.sort()).toEqual(raw.map((s) => s.traceId).sort());

    const ingester = await ingestInto(names);
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    const listed = await store.listTraces(project, { limit: 1000, offset: 0 });
    expect(listed.traces).toHaveLength(600);
    expect(listed.traces.every((t) => t.span_count === 1)).toBe(true);
  });

  it('a message the store refuses is dead-lettered whole and nothing of it is stored; format-3 rows are stored whole', async () => {
    // One partition: the messages are first inserted together, then split until the refused ones are alone.
    const names = await newTopics('refused', 1);
    const project = `p-refused-${Date.now().toString(36)}`;
    const runs = ['good-a', 'stats-refused', 'spans-refused', 'good-b', 'csv-run'].map((trace) => ({ trace, spans: agentRun(project, trace) }));
    const [goodA, statsRefused, spansRefused, goodB, csvRun] = runs;
    // The csv run's texts hold blank lines, a map value's among them: raw in format 3's CSV rows.
    csvRun.spans[0] = {
      ...csvRun.spans[0],
      name: 'plan\n\nact',
      input: 'Paragraph one.\n\nParagraph "two", with\ttabs\r\n\r\nand a back\\slash',
      output: '\n\n',
    };
    csvRun.spans[1] = { ...csvRun.spans[1], attributes: { 'gen_ai.prompt': 'Question.\n\nAnswer briefly.', "it's": "'quoted'\\\n\n" } };
    const csvRows = encodeRowBatch(csvRun.spans);
    const format = (f: string, more: Record<string, string> = {}) => ({ [MESSAGE_HEADERS.format]: f, ...more });
    // Messages of agent-eval's own writes are never refused (ingest validates and bounds every
    // value); these two, written by hand, hold a row the store refuses: a summary row, or a span row.
    const bad = {
      stats: encodeRowBatch(statsRefused.spans),
      spans: encodeRowBatch(spansRefused.spans),
    };
    const refusedMessages = [
      {
        key: 'stats-refused',
        value: `${bad.stats.spans.join('\n')}\n\n${[...bad.stats.stats, BROKEN_STATS_ROW].join('\n')}`,
        headers: format('4', { [MESSAGE_HEADERS.spanRows]: '4', [MESSAGE_HEADERS.statsRows]: '2' }),
      },
      {
        key: 'spans-refused',
        value: `${[...bad.spans.spans, BROKEN_SPAN_ROW].join('\n')}\n\n${bad.spans.stats.join('\n')}`,
        headers: format('4', { [MESSAGE_HEADERS.spanRows]: '5', [MESSAGE_HEADERS.statsRows]: '1' }),
      },
    ];
    // In the partition: the format-3 pair and the first refused message, then a good write, the
    // second refused message, another good write. The first insert of them all is refused, and so
    // is its first half (the format-3 rows with the first refused message): its spans are stored,
    // its summaries refused, so those spans are deleted again, and the format-3 rows stored after.
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic: names.topic,
        messages: [
          {
            key: 'csv',
            value: csvRun.spans.map(format3SpanRow).join('\n'),
            headers: format('3', { [MESSAGE_HEADERS.table]: 'spans', [MESSAGE_HEADERS.rows]: '4' }),
          },
          {
            key: 'csv-stats',
            value: csvRows.stats.join('\n'),
            headers: format('3', { [MESSAGE_HEADERS.table]: 'trace_stats_input', [MESSAGE_HEADERS.rows]: '1' }),
          },
          refusedMessages[0],
        ],
      });
      const sink = await startSink(names.topic, 100_000);
      await sink.write(encodeRowBatch(goodA.spans));
      await producer.send({ topic: names.topic, messages: [refusedMessages[1]] });
      await sink.write(encodeRowBatch(goodB.spans));
    } finally {
      await producer.disconnect();
    }
    expect(await topicMessageCount(kafka, names.topic)).toBe(6);

    const ingester = await ingestInto(names);
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    // Exactly the two refused messages are dead letters, unchanged, with the store's reason.
    const letters = await readTopic(kafka, names.deadLetterTopic, 2);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(2);
    for (const sent of refusedMessages) {
      const letter = letters.find((l) => l.key === sent.key)!;
      expect(letter.value).toBe(sent.value);
      expect(letter.headers).toMatchObject(sent.headers);
      expect(letter.headers[DEAD_LETTER_HEADERS.reason]).toMatch(REFUSED);
    }
    // Nothing of either: the spans stored before their summaries were refused are gone again, and
    // no summary counts spans whose insert was refused.
    for (const run of [statsRefused, spansRefused]) {
      expect(await store.getTrace(project, run.trace), run.trace).toBeNull();
      for (const s of run.spans) expect(await store.getSpan(project, s.span_id), s.span_id).toBeNull();
    }
    const listed = await store.listTraces(project, { limit: 10, offset: 0 });
    expect(listed.traces.map((t) => t.trace_id).sort()).toEqual(['csv-run', 'good-a', 'good-b']);
    // Everything else whole, once: the format-3 rows too, though first stored with the refused message's spans and deleted with them.
    for (const run of [goodA, goodB, csvRun]) {
      const trace = (await store.getTrace(project, run.trace))!;
      expect(trace.spans.map((s) => s.span_id).sort(), run.trace).toEqual(run.spans.map((s) => s.span_id).sort());
      expect(trace, run.trace).toMatchObject({
        span_count: 4,
        llm_call_count: 2,
        tool_call_count: 1,
        error_count: 1,
        total_input_tokens: 200,
        total_output_tokens: 20,
      });
    }
    // The format-3 CSV rows, blank lines and all, read back as they were sent.
    for (const s of csvRun.spans) {
      const back = (await store.getSpan(project, s.span_id))!;
      expect({ name: back.name, input: back.input, output: back.output, attributes: back.attributes, resource_attributes: back.resource_attributes }).toEqual({
        name: s.name,
        input: s.input,
        output: s.output,
        attributes: s.attributes,
        resource_attributes: s.resource_attributes,
      });
    }
  });

  it('ensureTopics raises a spans topic max.message.bytes, keeping its other settings; a 3 MB span then goes through whole', async () => {
    const id = `${Date.now().toString(36)}-limit`;
    const names = { topic: `spans-${id}`, deadLetterTopic: `spans-${id}.dlq`, groupId: `ingester-${id}` };
    const roomy = `spans-${id}-roomy`;
    // Topics as an older release, or a person, left them: the broker's default limit (~1 MiB), a retention of an hour.
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: names.topic,
            numPartitions: 3,
            configEntries: [
              { name: 'max.message.bytes', value: '1048588' },
              { name: 'retention.ms', value: '3600000' },
            ],
          },
          { topic: roomy, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '20000000' }] },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    // One span of 3 MB, random so gzip cannot squeeze it under the old limit (~2.3 MB compressed).
    const project = `p-limit-${Date.now().toString(36)}`;
    const big = span(project, 'big', 'root', 'span', 0, { input: randomBytes(2_250_000).toString('base64') });
    expect(big.input.length).toBe(3_000_000);
    const rows = encodeRowBatch([big]);
    const defaults = KAFKA_DEFAULTS.maxMessageBytes;
    // Against the old limit the broker refuses it, as a non-retryable 413.
    const early = await createKafkaSink({ kafka, topic: names.topic, logger, maxMessageBytes: defaults });
    try {
      await expect(early.write(rows)).rejects.toMatchObject({ status: 413 });
    } finally {
      await early.close();
    }

    await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions: 3 });
    await ensureTopics({ kafka, logger, spansTopic: roomy, deadLetterTopic: names.deadLetterTopic, partitions: 1 });
    // Raised to the default message size plus a record batch's overhead, the retention kept as set on the topic.
    const wanted = String(defaults + 16 * 1024);
    const config = await topicConfig(names.topic);
    expect(config['max.message.bytes']).toEqual({ value: wanted, source: 1 });
    expect(config['retention.ms']).toEqual({ value: '3600000', source: 1 });
    // A topic that already takes more is left as it is.
    expect((await topicConfig(roomy))['max.message.bytes']).toEqual({ value: '20000000', source: 1 });
    // Idempotent: a second run changes nothing.
    await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions: 3 });
    expect(await topicConfig(names.topic)).toEqual(config);

    // The default limits now: the sink sends it (one message, over the old limit even compressed), the ingester stores it whole.
    const sink = await startSink(names.topic, defaults);
    await sink.write(rows);
    const [message] = await readTopic(kafka, names.topic, 1);
    expect(await topicMessageCount(kafka, names.topic)).toBe(1);
    expect(message.value).toBe(`${rows.spans[0]}\n\n${rows.stats.join('\n')}`);
    const ingester = await ingestInto(names);
    await eventually(async () => expect(await ingester.lag()).toBe(0), 30_000);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
    const back = (await store.getSpan(project, big.span_id))!;
    expect(back.input.length).toBe(big.input.length);
    expect(back.input === big.input).toBe(true);
    expect((await store.getTrace(project, 'big'))?.span_count).toBe(1);
  });
});
