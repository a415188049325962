import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { eventually } from '../helpers/eventually.js';
import { committedOffsets, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { createKafkaSink } from '../../collector/kafka/kafka-sink.js';
import { startIngester, type Ingester } from '../../collector/kafka/ingester.js';
import { ensureTopics } from '../../collector/kafka/topics.js';
import { MESSAGE_HEADERS } from '../../collector/kafka/envelope.js';
import { errorMessage, failureKind, ServiceUnavailableError } from '../../core/errors.js';
import { createLogger } from '../../core/logger.js';
import type { SpanRecord, SpanType, TraceHeader } from '../../core/model/span.js';
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
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let broker: KafkaBroker;
let kafka: Kafka;
let ch: ClickHouse;
let store: AnalyticsStore;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  [broker, ch] = await Promise.all([startKafka({ version: process.env.KAFKA_TEST_VERSION }), connectClickHouse({ dataDir: makeDataDir() })]);
  kafka = new Kafka({ clientId: 'kafka-store-outage-test', brokers: broker.brokers, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 } });
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

async function sql(query: string): Promise<void> {
  await ch.client.command({ query });
}

/** Recent: rows older than the retention (TTL) are dropped by ClickHouse on insert. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

function span(project: string, trace: string, id: string, type: SpanType, start: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  const generation = type === 'generation';
  return {
    project_id: project, trace_id: trace, span_id: `${trace}-${id}`, parent_span_id: id === 'root' ? null : `${trace}-root`,
    name: id, span_type: type, component_type: type === 'span' ? null : type, convention: 'spec', kind: '', status: 'ok',
    status_message: '', start_time: T0 + start, end_time: T0 + start + 100, duration_ms: 100, model: generation ? 'gpt-4o' : null,
    input: 'question', output: 'answer', input_tokens: generation ? 100 : 0, output_tokens: generation ? 10 : 0,
    attributes: {}, resource_attributes: { 'service.name': 'agent' }, scope_name: '', scope_version: '', events: '[]', ...extra,
  };
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
  for (const outage of outages) it(`retries while ${outage.name} (${outage.error}): nothing dead-lettered, nothing committed past an unwritten span, every span stored after`, async () => {
    const id = `${Date.now().toString(36)}-${outage.error.toLowerCase()}`;
    const names = { topic: `spans-${id}`, deadLetterTopic: `spans-${id}.dlq`, groupId: `ingester-${id}` };
    await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions: 3 });

    // Five agent runs go through the real sink; the first also has an explicit header, as the
    // JSON ingest body gives one. Each write becomes a spans and a trace_stats_input message; the
    // header is one more row of the first write's trace_stats_input message.
    const project = `p-${id}`;
    const runs = ['run-0', 'run-1', 'run-2', 'run-3', 'run-4'].map((trace) => ({ trace, spans: agentRun(project, trace) }));
    const checkout: TraceHeader = { project_id: project, trace_id: 'run-0', name: 'checkout', status: 'ok', start_time: T0 - 500, duration_ms: 2000, attributes: { user: 'u7' } };
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger, maxMessageBytes: 100_000 });
    running.push({ stop: () => sink.close() });
    for (const [i, run] of runs.entries()) {
      await sink.write(encodeRowBatch(run.spans, i === 0 ? [checkout] : []));
    }
    const produced = await topicMessageCount(kafka, names.topic);
    // Per write a spans message and a trace_stats_input message.
    expect(produced).toBe(runs.length * 2);
    const messages = await readTopic(kafka, names.topic, produced);
    const spanMessages = messages.filter((m) => m.headers[MESSAGE_HEADERS.table] === 'spans');
    expect(spanMessages).toHaveLength(runs.length);
    const statsRows = messages
      .filter((m) => m.headers[MESSAGE_HEADERS.table] === 'trace_stats_input')
      .map((m) => m.value.split('\n').map((line) => JSON.parse(line) as { trace_id: string; header?: number }));
    // One message per write: its trace's contribution, and for run-0 the header next to it.
    const rowsPerMessage = statsRows.map((rs) => rs.map((r) => `${r.trace_id}${r.header === 1 ? ' header' : ''}`).sort().join(' + '));
    expect(rowsPerMessage.sort()).toEqual(['run-0 + run-0 header', 'run-1', 'run-2', 'run-3', 'run-4']);

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
      // No partition is committed past a spans message (a partition holding only trace_stats_input
      // messages may be: that insert did succeed), and nothing went to the dead-letter topic.
      const committed = await committedOffsets(kafka, names.groupId, names.topic);
      for (const m of spanMessages) expect(BigInt(committed[m.partition]), `partition ${m.partition}`).toBeLessThanOrEqual(BigInt(m.offset));
      expect(await ingester.lag()).toBeGreaterThanOrEqual(spanMessages.length);
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
