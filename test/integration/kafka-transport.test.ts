import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { pino } from 'pino';
import { eventually } from '../helpers/eventually.js';
import { committedOffsets, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { createKafkaSink } from '../../collector/kafka/kafka-sink.js';
import { startIngester, type Ingester, type IngesterOptions } from '../../collector/kafka/ingester.js';
import { ensureTopics } from '../../collector/kafka/topics.js';
import { DEAD_LETTER_HEADERS } from '../../collector/kafka/dead-letter.js';
import { MESSAGE_HEADERS, packRowMessages } from '../../collector/kafka/envelope.js';
import { mergeRowBatches } from '../../collector/row-batch.js';
import { writeFailure } from '../../core/errors.js';
import type { BatchWriter } from '../../core/store/analytics.js';
import type { RowBatch, SpanRecord, TraceHeader } from '../../core/model/span.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { encodeSpanRow, spanRow } from '../../core/store/clickhouse/rows.js';

// The Kafka transport alone: sink -> broker -> ingester -> a BatchWriter that records what it gets.
// Rows are encoded once at ingest (JSONEachRow lines) and must arrive byte for byte as sent. A
// write's rows of each table travel in messages of their own, spread round-robin over the
// partitions: its span rows, and its trace_stats_input rows (what its spans add to each trace they
// touch, plus one row per explicit trace header, `"header":1`). A write of spans is a spans and a
// trace_stats_input message at least.
// KAFKA_TEST_VERSION runs the same file against another broker version (docs/kafka.md).
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let broker: KafkaBroker;
let kafka: Kafka;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  broker = await startKafka({ version: process.env.KAFKA_TEST_VERSION });
  kafka = new Kafka({
    clientId: 'kafka-transport-test',
    brokers: broker.brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
  });
});

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop().catch(() => undefined);
});

afterAll(async () => {
  await broker?.stop();
});

let seq = 0;
async function topics(partitions = 6): Promise<{ topic: string; deadLetterTopic: string; groupId: string }> {
  const id = `${Date.now().toString(36)}-${++seq}`;
  const names = { topic: `spans-${id}`, deadLetterTopic: `spans-${id}.dlq`, groupId: `ingester-${id}` };
  await ensureTopics({ kafka, logger, spansTopic: names.topic, deadLetterTopic: names.deadLetterTopic, partitions });
  return names;
}

/** The production default (KAFKA_MAX_MESSAGE_BYTES) is ~1 MB; tests that do not look at sizes use this. */
const MAX_MESSAGE_BYTES = 100_000;

async function sink(topic: string, opts: { maxMessageBytes?: number; maxInFlightBytes?: number; retryAfterSeconds?: number } = {}) {
  const s = await createKafkaSink({ kafka, topic, logger, maxMessageBytes: MAX_MESSAGE_BYTES, ...opts });
  running.push({ stop: () => s.close() });
  return s;
}

function span(project: string, trace: string, n: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  return {
    project_id: project, trace_id: trace, span_id: `${trace}-s${n}`, parent_span_id: n === 0 ? null : `${trace}-s0`,
    name: `step ${n}`, span_type: n === 0 ? 'span' : 'generation', component_type: n === 0 ? null : 'generation',
    convention: 'genai', kind: 'internal', status: 'ok', status_message: '', start_time: 1_700_000_000_000 + n,
    end_time: 1_700_000_000_010 + n, duration_ms: 10, model: n === 0 ? null : 'gpt-4o', input: `in ${n} ✓`, output: `out ${n}`,
    input_tokens: n, output_tokens: 2 * n, attributes: { 'gen_ai.operation.name': 'chat' }, resource_attributes: { 'service.name': 'svc' },
    scope_name: 'test', scope_version: '1', events: '[]', ...extra,
  };
}

function header(project: string, trace: string): TraceHeader {
  return { project_id: project, trace_id: trace, name: `trace ${trace}`, status: 'ok', start_time: 1_700_000_000_000, duration_ms: 20, attributes: { user: 'u1' } };
}

/** What ingest hands a sink: rows encoded once. */
function rows(spans: SpanRecord[], traces: TraceHeader[] = []): RowBatch {
  return encodeRowBatch(spans, traces);
}

/** A format-3 message value holds its rows as one chunk of lines; this splits chunks back into rows (none of this file's rows holds a newline). */
const lines = (chunks: string[]): string[] => chunks.flatMap((c) => c.split('\n'));

const sorted = (xs: string[]): string[] => [...xs].sort();

/** Whether a trace_stats_input row is an explicit trace header (the JSON body's), not a span contribution. */
const isHeaderRow = (row: string): boolean => (JSON.parse(row) as { header?: number }).header === 1;

/** The trace_stats_input rows ingest encodes for these explicit trace headers. */
const headerRows = (headers: TraceHeader[]): string[] => encodeRowBatch([], headers).stats;

/** The rows of some batches, one line each and sorted per table: what was sent or written, whatever the messages and inserts. */
function rowsOf(batches: RowBatch[]): RowBatch {
  const all = mergeRowBatches(batches);
  return { spans: sorted(lines(all.spans)), stats: sorted(lines(all.stats)) };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });

/**
 * Records every batch it writes. Failures are classified as the real batch writer does
 * (`writeFailure`): `down` fails like an unreachable ClickHouse (503, transient); `refuse` names
 * batches the store refuses for their data (400, permanent).
 */
class RecordingWriter implements BatchWriter {
  batches: RowBatch[] = [];
  /** Batches refused for their data. */
  refused: RowBatch[] = [];
  attempts = 0;
  down = false;
  constructor(private readonly refuse?: (batch: RowBatch) => Error | undefined) {}
  writeRows(batch: RowBatch): Promise<void> {
    this.attempts++;
    if (this.down) return Promise.reject(writeFailure('analytics', connectionRefused()));
    const error = this.refuse?.(batch);
    if (error) {
      this.refused.push(structuredClone(batch));
      return Promise.reject(writeFailure('analytics', error));
    }
    this.batches.push(structuredClone(batch));
    return Promise.resolve();
  }
  /** Every span row written, one line each. */
  get spans(): string[] {
    return this.batches.flatMap((b) => lines(b.spans));
  }
  /** Every trace header row written: the trace_stats_input rows with `"header":1`. */
  get headers(): string[] {
    return this.stats.filter(isHeaderRow);
  }
  /** Every trace_stats_input row written, one line each. */
  get stats(): string[] {
    return this.batches.flatMap((b) => lines(b.stats));
  }
  /** Every row written, per table (rowsOf). */
  get rows(): RowBatch {
    return rowsOf(this.batches);
  }
}

async function ingest(opts: Omit<IngesterOptions, 'kafka' | 'logger'>): Promise<Ingester> {
  const ingester = await startIngester({ kafka, logger, retryBackoffMs: { min: 100, max: 500 }, sessionTimeoutMs: 10_000, ...opts });
  running.push(ingester);
  return ingester;
}


describe('Kafka transport (real broker)', () => {
  it('delivers rows from the sink to the ingester exactly as sent, in format-3 messages of at most maxMessageBytes', async () => {
    const names = await topics();
    const maxMessageBytes = 4_000;
    const s = await sink(names.topic, { maxMessageBytes });
    const sent: SpanRecord[] = [];
    const headers: TraceHeader[] = [];
    // Each write's rows, as ingest encoded them: spans, and the trace_stats_input rows of its spans and headers.
    const batches: RowBatch[] = [];
    const writes: Promise<void>[] = [];
    const write = (spans: SpanRecord[], traces: TraceHeader[] = []) => {
      const batch = rows(spans, traces);
      batches.push(batch);
      writes.push(s.write(batch));
    };
    for (const project of ['p1', 'p2']) {
      for (let t = 0; t < 6; t++) {
        const trace = `${project}-t${t}`;
        const spans = [0, 1, 2].map((n) => span(project, trace, n));
        sent.push(...spans);
        headers.push(header(project, trace));
        write(spans, [header(project, trace)]);
      }
    }
    // Rows of ~1.4 kB: one write's rows do not fit one 4 kB message and are packed into several.
    const big = Array.from({ length: 12 }, (_, n) => span('p1', 'p1-big', n, { input: 'x'.repeat(1_000) }));
    sent.push(...big);
    write(big.slice(0, 6));
    write(big.slice(6));
    await Promise.all(writes);
    expect(s.stats()).toEqual({ kind: 'kafka', pendingSpans: 0, pendingBytes: 0 });
    // One trace_stats_input row per trace a write touches (each write here touches one), and one per
    // explicit header: the twelve writes with a header have two, the two big writes one.
    expect(batches.map((b) => b.stats.length)).toEqual([...headers.map(() => 2), 1, 1]);
    expect(batches.map((b) => b.stats.filter(isHeaderRow).length)).toEqual([...headers.map(() => 1), 0, 0]);

    const writer = new RecordingWriter();
    const ingester = await ingest({ ...names, writer });
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    // Byte for byte the lines encoded at ingest, every table: nothing parsed or re-encoded on the way.
    expect(sorted(writer.spans)).toEqual(sorted(sent.map(encodeSpanRow)));
    expect(sorted(writer.stats)).toEqual(sorted(batches.flatMap((b) => b.stats)));
    expect(sorted(writer.headers)).toEqual(sorted(headerRows(headers)));

    // Every message packed from a write was produced once: per write one trace_stats_input message
    // (its few small stats rows, the header's among them), and its span rows in as many messages as they need.
    const expected = batches.flatMap((b) => packRowMessages(b, maxMessageBytes));
    const countOf = (tables: Array<string | undefined>) => ({
      spans: tables.filter((t) => t === 'spans').length,
      trace_stats_input: tables.filter((t) => t === 'trace_stats_input').length,
    });
    expect(countOf(expected.map((m) => m.table))).toMatchObject({ trace_stats_input: batches.length });
    expect(expected).toHaveLength(countOf(expected.map((m) => m.table)).spans + batches.length);
    const produced = await topicMessageCount(kafka, names.topic);
    expect(produced).toBe(expected.length);
    const messages = await readTopic(kafka, names.topic, produced);
    expect(messages).toHaveLength(produced);
    for (const m of messages) {
      // Format 3: headers name the format, the one table and the rows; no key, the value is rows as lines.
      expect(m.headers[MESSAGE_HEADERS.format]).toBe('3');
      expect(Number(m.headers[MESSAGE_HEADERS.rows])).toBe(m.value.split('\n').length);
      expect(['spans', 'trace_stats_input']).toContain(m.headers[MESSAGE_HEADERS.table]);
      expect(m.key).toBe('');
      expect(Buffer.byteLength(m.value)).toBeLessThanOrEqual(maxMessageBytes);
    }
    expect(countOf(messages.map((m) => m.headers[MESSAGE_HEADERS.table]))).toEqual(countOf(expected.map((m) => m.table)));
    expect(sorted(messages.map((m) => m.value))).toEqual(sorted(expected.map((m) => m.value)));
    const ofTable = (table: string) => messages.filter((m) => m.headers[MESSAGE_HEADERS.table] === table);
    expect(sorted(lines(ofTable('spans').map((m) => m.value)))).toEqual(sorted(sent.map(encodeSpanRow)));
    expect(sorted(lines(ofTable('trace_stats_input').map((m) => m.value)))).toEqual(sorted(batches.flatMap((b) => b.stats)));
    // Each header rides in its write's trace_stats_input message, next to its trace's span contribution.
    expect(sorted(lines(ofTable('trace_stats_input').map((m) => m.value)).filter(isHeaderRow))).toEqual(sorted(headerRows(headers)));
    expect(sorted(ofTable('trace_stats_input').map((m) => m.value))).toEqual(sorted(batches.map((b) => b.stats.join('\n'))));
    // The big trace needed several messages; without a key they spread over the partitions
    // (trace summaries are order-independent states, so a trace need not stay in one partition).
    expect(ofTable('spans').filter((m) => m.value.includes('"p1-big"')).length).toBeGreaterThan(2);
    expect(new Set(messages.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it('sends poison messages to the dead-letter topic with the reason, and keeps going', async () => {
    const names = await topics(1);
    const legacySpan = span('p1', 'legacy', 0);
    const legacyHeader = header('p1', 'legacy');
    const formatHeaders = (format: string, table?: string) => ({ [MESSAGE_HEADERS.format]: format, ...(table ? { [MESSAGE_HEADERS.table]: table } : {}) });
    const poison: Message[] = [
      { key: 'p1/bad-json', value: '{"v":1,"spans":[' },
      { key: 'p1/bad-schema', value: JSON.stringify({ v: 1, spans: [{ span_id: 'x' }], traces: [] }) },
      { key: 'p1/bad-version', value: JSON.stringify({ v: 99, spans: [], traces: [] }) },
      { key: 'p1/format-4', value: encodeSpanRow(span('p1', 'from-the-future', 0)), headers: formatHeaders('4') },
      { key: 'p1/no-such-table', value: '{"score_id":"s1"}', headers: formatHeaders('3', 'scores') },
      { key: 'p1/bad-json-row', value: `${JSON.stringify(spanRow(span('p1', 'cut', 0)))}\n{"project_id":"p1","tr`, headers: formatHeaders('2', 'spans') },
    ];
    // A format-1 envelope and a format-2 message (span rows as JSON lines) produced before the
    // upgrade are still read and written: the latter's rows re-encoded as the rows of today.
    const legacy: Message = { key: 'p1/legacy', value: JSON.stringify({ v: 1, spans: [legacySpan], traces: [legacyHeader] }) };
    const jsonRowSpans = [span('p1', 'json-rows', 0), span('p1', 'json-rows', 1, { input: 'a "quoted", \'odd\' \\ input' })];
    const jsonRows: Message = { key: 'p1/format-2', value: jsonRowSpans.map((x) => JSON.stringify(spanRow(x))).join('\n'), headers: formatHeaders('2', 'spans') };
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: names.topic, messages: [...poison, legacy, jsonRows] });
    await producer.disconnect();

    // Three writes, six format-3 messages (each write's spans message and its trace_stats_input message);
    // the store refuses the middle write's spans message for its data.
    const s = await sink(names.topic);
    const good = [span('p1', 'good-1', 0), span('p1', 'good-2', 0)];
    const refused = span('p1', 'refused', 0, { name: 'refuse-me' });
    const sent = { good: good.map((g) => rows([g])), refused: rows([refused]) };
    await Promise.all([s.write(sent.good[0]), s.write(sent.refused), s.write(sent.good[1])]);
    expect(await topicMessageCount(kafka, names.topic)).toBe(poison.length + 2 + 3 * 2);

    const parseError = new Error('Code: 41. DB::Exception: Cannot parse datetime: while reading start_time (CANNOT_PARSE_DATETIME)');
    const writer = new RecordingWriter((b) => (b.spans.some((chunk) => chunk.includes('refuse-me')) ? parseError : undefined));
    const ingester = await ingest({ ...names, writer });
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    // Everything but the refused spans message is written: the legacy envelope (encoded on the way
    // in, with its trace_stats_input rows: its span's contribution and its header), the good writes,
    // and the refused write's trace_stats_input message, a message of its own that the store took.
    const legacyRows = rows([legacySpan], [legacyHeader]);
    expect(legacyRows.stats).toHaveLength(2);
    const jsonRowsAsRows = { spans: jsonRowSpans.map(encodeSpanRow), stats: [] };
    expect(sorted(writer.spans)).toEqual(sorted([legacySpan, ...jsonRowSpans, ...good].map(encodeSpanRow)));
    expect(writer.headers).toEqual(headerRows([legacyHeader]));
    expect(writer.rows).toEqual(rowsOf([legacyRows, jsonRowsAsRows, ...sent.good, { ...sent.refused, spans: [] }]));
    // The refused message was first tried together with every other writable one (all in the one
    // partition), which were written all the same: the ingester split the insert until the refused
    // message was alone.
    expect(rowsOf([writer.refused[0]])).toEqual(rowsOf([legacyRows, jsonRowsAsRows, ...sent.good, sent.refused]));
    expect(writer.refused.at(-1)).toEqual({ spans: sent.refused.spans, stats: [] });

    // Seven dead letters: the six poison messages and the refused spans message, nothing else.
    const letters = await readTopic(kafka, names.deadLetterTopic, 7);
    expect(letters).toHaveLength(7);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(7);
    const reasonOf = Object.fromEntries(letters.map((l) => [l.key, l.headers[DEAD_LETTER_HEADERS.reason]]));
    expect(reasonOf['p1/bad-json']).toMatch(/^undecodable JSON/);
    expect(reasonOf['p1/bad-schema']).toMatch(/^schema-invalid envelope: spans\.0\./);
    expect(reasonOf['p1/bad-version']).toBe('unsupported envelope version: 99');
    expect(reasonOf['p1/format-4']).toBe('unsupported message format: "4"');
    expect(reasonOf['p1/no-such-table']).toBe('unknown table "scores" in a format 3 message');
    expect(reasonOf['p1/bad-json-row']).toMatch(/^undecodable format 2 span row: /);
    // The format-3 message has no key; it is found by its value, unchanged, with its original headers.
    const refusedLetter = letters.find((l) => l.key === '')!;
    expect(refusedLetter.value).toBe(encodeSpanRow(refused));
    expect(refusedLetter.headers).toMatchObject({
      [MESSAGE_HEADERS.format]: '3',
      [MESSAGE_HEADERS.table]: 'spans',
      [DEAD_LETTER_HEADERS.reason]: `rejected by the store: The analytical store rejected the data: ${parseError.message}`,
    });
    for (const p of poison) {
      const letter = letters.find((l) => l.key === p.key)!;
      expect(letter.value).toBe(p.value);
      expect(letter.headers).toMatchObject(p.headers ?? {});
    }
    const first = letters.find((l) => l.key === 'p1/bad-json')!;
    expect(first.headers[DEAD_LETTER_HEADERS.sourceTopic]).toBe(names.topic);
    expect(first.headers[DEAD_LETTER_HEADERS.sourceOffset]).toBe('0');
    expect(first.headers[DEAD_LETTER_HEADERS.groupId]).toBe(names.groupId);
  });

  it('does not commit while the store is unreachable, and delivers once it recovers', async () => {
    const names = await topics(3);
    const s = await sink(names.topic);
    const sent = [0, 1, 2].map((n) => span('p1', 'outage', n));
    // Two messages, on two partitions: the span rows, and the trace_stats_input rows (the spans'
    // contribution and the trace header).
    const batch = rows(sent, [header('p1', 'outage')]);
    await s.write(batch);
    expect(await topicMessageCount(kafka, names.topic)).toBe(2);

    const writer = new RecordingWriter();
    writer.down = true;
    const ingester = await ingest({ ...names, writer });
    await eventually(() => expect(writer.attempts).toBeGreaterThanOrEqual(3));
    expect(await ingester.lag()).toBe(2);
    expect(await committedOffsets(kafka, names.groupId, names.topic)).toEqual(['-1', '-1', '-1']);
    expect(writer.batches).toHaveLength(0);

    writer.down = false;
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    expect(writer.spans).toEqual(sent.map(encodeSpanRow));
    expect(writer.headers).toEqual(headerRows([header('p1', 'outage')]));
    expect(writer.stats).toEqual(batch.stats);
    expect(writer.stats).toHaveLength(2);
    // Both partitions that held a message are committed past it; the third never held one.
    expect(sorted(await committedOffsets(kafka, names.groupId, names.topic))).toEqual(['-1', '1', '1']);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
  });

  it('redelivers what a stopped ingester had not committed (at-least-once)', async () => {
    const names = await topics(3);
    const s = await sink(names.topic);
    const sent = [0, 1].map((n) => span('p2', 'restart', n));
    const batch = rows(sent);
    // Two messages, the span rows and the trace_stats_input row, on two partitions.
    await s.write(batch);
    expect(await topicMessageCount(kafka, names.topic)).toBe(2);

    // The first ingester's inserts (one per partition, both under way) are cut off by the
    // shutdown, as a crash mid-insert would.
    const inserts: Array<{ batch: RowBatch; cutOff: (err: Error) => void }> = [];
    const hangUp = () => writeFailure('analytics', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    let down = false; // once cut off, an insert started later fails at once: stop() cannot wait on one forever
    const hanging: BatchWriter = {
      writeRows: (b) =>
        new Promise((_, reject) => {
          inserts.push({ batch: b, cutOff: reject });
          if (down) reject(hangUp());
        }),
    };
    const first = await ingest({ ...names, writer: hanging });
    await eventually(() => expect(rowsOf(inserts.map((i) => i.batch))).toEqual(rowsOf([batch])));
    expect(inserts).toHaveLength(2);
    const stopping = first.stop();
    down = true;
    for (const i of inserts) i.cutOff(hangUp());
    await stopping;

    expect(await committedOffsets(kafka, names.groupId, names.topic)).toEqual(['-1', '-1', '-1']);

    const writer = new RecordingWriter();
    const second = await ingest({ ...names, writer });
    await eventually(async () => expect(await second.lag()).toBe(0));
    // Both messages again, each once; the stopped ingester retried nothing.
    expect(writer.rows).toEqual(rowsOf([batch]));
    expect(writer.batches).toHaveLength(2);
    expect(writer.spans).toEqual(sent.map(encodeSpanRow));
    expect(inserts).toHaveLength(2);
  });

  it('stop() lets the insert in progress finish and commits it', async () => {
    const names = await topics(3);
    const s = await sink(names.topic);
    const batch = rows([span('p3', 'drain', 0)]);
    // Two messages, the span row and the trace_stats_input row, on two partitions: two inserts at once.
    await s.write(batch);
    expect(await topicMessageCount(kafka, names.topic)).toBe(2);

    const inserts: Array<{ batch: RowBatch; finish: () => void }> = [];
    const written: RowBatch[] = [];
    let released = false; // once released, an insert started later finishes at once: stop() cannot wait on one forever
    const slow: BatchWriter = {
      writeRows: (b) =>
        new Promise<void>((resolve) => {
          const finish = () => {
            written.push(b);
            resolve();
          };
          inserts.push({ batch: b, finish });
          if (released) finish();
        }),
    };
    const release = () => {
      if (released) return;
      released = true;
      for (const i of inserts) i.finish();
    };
    const ingester = await ingest({ ...names, writer: slow });
    try {
      await eventually(() => expect(rowsOf(inserts.map((i) => i.batch))).toEqual(rowsOf([batch])));
      expect(inserts).toHaveLength(2);
      const stopping = ingester.stop();
      await sleep(200); // stop() is under way while the inserts run
      release();
      await stopping;
    } finally {
      release(); // a failed check above must not leave stop() (in afterEach) waiting on an insert forever
    }
    expect(written).toHaveLength(2);
    expect(rowsOf(written)).toEqual(rowsOf([batch]));
    // Both partitions that held a message are committed past it; the third never held one.
    expect(sorted(await committedOffsets(kafka, names.groupId, names.topic))).toEqual(['-1', '1', '1']);
  });

  it('keeps its group membership through an insert longer than the session timeout', async () => {
    const names = await topics(3);
    const s = await sink(names.topic);
    const batch = rows([span('p5', 'slow', 0)]);
    // Two messages, the span row and the trace_stats_input row, on two partitions: two slow inserts.
    await s.write(batch);
    const written: RowBatch[] = [];
    const slow: BatchWriter = {
      writeRows: async (b) => {
        written.push(b);
        await sleep(8_000);
      },
    };
    // 6 s is the broker's minimum session timeout; each insert takes longer than that.
    await ingest({ ...names, writer: slow, sessionTimeoutMs: 6_000 });
    await eventually(async () => expect(sorted(await committedOffsets(kafka, names.groupId, names.topic))).toEqual(['-1', '1', '1']), 30_000);
    // Each message inserted once: no membership lost, nothing redelivered.
    expect(written).toHaveLength(2);
    expect(rowsOf(written)).toEqual(rowsOf([batch]));
  });

  it('a produce retried after its first attempt was written stores each message once', async () => {
    const names = await topics(3);
    // Requests time out after 1 s, and the send retries long enough to outlast a 3 s hang.
    const impatient = new Kafka({
      clientId: 'kafka-transport-test-impatient',
      brokers: broker.brokers,
      logLevel: logLevel.NOTHING,
      requestTimeout: 1_000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 1_000 },
    });
    const s = await createKafkaSink({ kafka: impatient, topic: names.topic, logger, maxMessageBytes: MAX_MESSAGE_BYTES });
    running.push({ stop: () => s.close() });
    await s.write(rows([span('p6', 'before', 0)])); // metadata and the producer id, while the broker answers
    const batch = rows([span('p6', 'retried', 0)]);
    // The broker hangs with the request unanswered; the producer times out and sends it again,
    // several times. Resumed, the broker writes the first attempt, then sees each retry: the same
    // partition and sequence number, a duplicate it drops. Sent elsewhere, a retry was a copy.
    process.kill(broker.pid, 'SIGSTOP');
    const write = s.write(batch);
    try {
      await sleep(3_000);
    } finally {
      process.kill(broker.pid, 'SIGCONT');
    }
    await write;
    // Two messages a write (its span rows, its trace_stats_input rows), each stored once.
    expect(await topicMessageCount(kafka, names.topic)).toBe(4);
    const stored = (await readTopic(kafka, names.topic, 4)).filter((m) => m.value.includes('retried'));
    expect(stored.map((m) => m.headers[MESSAGE_HEADERS.table]).sort()).toEqual(['spans', 'trace_stats_input']);
  });

  // Last: it stops the broker. (A span too large for a message never reaches the sink: ingest
  // refuses it alone, in every mode; test/integration/oversize-span.test.ts.)
  it('the sink refuses with 429 past its in-flight bound, 503 + Retry-After when Kafka is gone', async () => {
    const names = await topics(3);
    const s = await sink(names.topic, { maxInFlightBytes: 2_000, maxMessageBytes: 10_000, retryAfterSeconds: 7 });
    const first = s.write(rows([span('p4', 'bp-1', 0, { input: 'x'.repeat(1_500) })]));
    const second = s.write(rows([span('p4', 'bp-2', 0, { input: 'x'.repeat(1_500) })]));
    await expect(second).rejects.toMatchObject({ name: 'BackpressureError', status: 429 });
    await first;

    await broker.stop();
    const started = Date.now();
    await expect(s.write(rows([span('p4', 'bp-3', 0)]))).rejects.toMatchObject({
      name: 'BackpressureError',
      status: 503,
      retryAfterSeconds: 7,
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(s.stats()).toMatchObject({ pendingSpans: 0, pendingBytes: 0 });
  });
});
