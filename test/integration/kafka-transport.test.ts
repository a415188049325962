import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { pino } from 'pino';
import { eventually } from '../helpers/eventually.js';
import { committedOffsets, format3SpanRow, kafkaClient, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
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
import { spanRecord } from '../helpers/span-record.js';

// The Kafka transport alone: sink -> broker -> ingester -> a BatchWriter that records what it gets.
// Rows are encoded once at ingest (span rows as TabSeparated lines, trace_stats_input rows as
// JSONEachRow lines) and must arrive byte for byte as sent. Format 4: a write is one message,
// spread round-robin over the partitions, holding its span rows, an empty line, then its
// trace_stats_input rows (what its spans add to each trace they touch, plus one row per explicit
// trace header, `"header":1`); the ingester inserts both parts of a message together, or neither.
// KAFKA_TEST_VERSION runs the same file against another broker version (docs/kafka.md).
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let broker: KafkaBroker;
let kafka: Kafka;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  broker = await startKafka();
  kafka = kafkaClient(broker, 'kafka-transport-test');
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

/** The production default (KAFKA_MAX_MESSAGE_BYTES) is 4 MiB + 64 KiB; tests that do not look at sizes use this. */
const MAX_MESSAGE_BYTES = 100_000;

async function sink(topic: string, opts: { maxMessageBytes?: number; maxInFlightBytes?: number; retryAfterSeconds?: number } = {}) {
  const s = await createKafkaSink({ kafka, topic, logger, maxMessageBytes: MAX_MESSAGE_BYTES, ...opts });
  running.push({ stop: () => s.close() });
  return s;
}

function span(project: string, trace: string, n: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  return spanRecord({
    project_id: project,
    trace_id: trace,
    span_id: `${trace}-s${n}`,
    parent_span_id: n === 0 ? null : `${trace}-s0`,
    name: `step ${n}`,
    span_type: n === 0 ? 'span' : 'generation',
    component_type: n === 0 ? null : 'generation',
    kind: 'internal',
    start_time: 1_700_000_000_000 + n,
    end_time: 1_700_000_000_010 + n,
    duration_ms: 10,
    model: n === 0 ? null : 'gpt-4o',
    input: `in ${n} ✓`,
    output: `out ${n}`,
    input_tokens: n,
    output_tokens: 2 * n,
    attributes: { 'gen_ai.operation.name': 'chat' },
    resource_attributes: { 'service.name': 'svc' },
    scope_name: 'test',
    scope_version: '1',
    ...extra,
  });
}

function header(project: string, trace: string): TraceHeader {
  return {
    project_id: project,
    trace_id: trace,
    name: `trace ${trace}`,
    status: 'ok',
    start_time: 1_700_000_000_000,
    duration_ms: 20,
    attributes: { user: 'u1' },
  };
}

/** New topics on 3 partitions, each of `writes` sent to them through a sink; and the one batch they make together. */
async function writtenToNewTopics(writes: RowBatch[]) {
  const names = await topics(3);
  const s = await sink(names.topic);
  for (const w of writes) await s.write(w);
  return { names, batch: mergeRowBatches(writes) };
}

/** What ingest hands a sink: rows encoded once. */
function rows(spans: SpanRecord[], traces: TraceHeader[] = []): RowBatch {
  return encodeRowBatch(spans, traces);
}

/** A message part reaches the writer as one chunk of lines; this splits chunks back into rows (no row holds a raw newline). */
const lines = (chunks: string[]): string[] => chunks.flatMap((c) => c.split('\n'));

/**
 * A format-4 value's two parts, each as its rows: the span rows, up to the first empty line, then the
 * trace_stats_input rows (none when a part is empty).
 */
function partsOf(value: string): RowBatch {
  const at = value.indexOf('\n\n');
  if (at === -1) throw new Error(`a format-4 value without the empty line between its parts: ${value.slice(0, 200)}`);
  const [spans, stats] = [value.slice(0, at), value.slice(at + 2)];
  return { spans: spans ? spans.split('\n') : [], stats: stats ? stats.split('\n') : [] };
}

/** The value of a format-4 message holding a whole write. */
const wholeValue = (b: RowBatch): string => `${b.spans.join('\n')}\n\n${b.stats.join('\n')}`;

/** The trace id of a span row (TabSeparated: its second field) or of a trace_stats_input row. */
const spanRowTrace = (row: string): string => row.split('\t')[1];
const statsRowTrace = (row: string): string => (JSON.parse(row) as { trace_id: string }).trace_id;

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
  it('delivers rows from the sink to the ingester exactly as sent, one format-4 message per write of at most maxMessageBytes', async () => {
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
    // Rows of ~1.4 kB: these two writes do not fit one 4 kB message (ingest never makes such a
    // write for this sink, but a trace header as large as a span can), so each is sent as messages
    // of span rows only, then one of its trace_stats_input rows, all format 4.
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

    // What the sink packs: a write that fits is one message, its span rows, an empty line, its
    // trace_stats_input rows; a big one is several messages of span rows and one of its stats rows.
    const packed = batches.map((b) => packRowMessages(b, maxMessageBytes));
    packed.slice(0, headers.length).forEach((ms, i) => {
      expect(ms, `write ${i}`).toHaveLength(1);
      expect(ms[0]).toMatchObject({ value: wholeValue(batches[i]), spanRows: 3, statsRows: 2 });
    });
    for (const ms of packed.slice(headers.length)) {
      expect(ms.length).toBeGreaterThan(2);
      expect(ms.slice(0, -1).every((m) => m.spanRows > 0 && m.statsRows === 0)).toBe(true);
      expect(ms.at(-1)).toMatchObject({ spanRows: 0, statsRows: 1 });
    }
    const expected = packed.flat();
    // Every message packed from a write was produced once, as packed.
    const produced = await topicMessageCount(kafka, names.topic);
    expect(produced).toBe(expected.length);
    const messages = await readTopic(kafka, names.topic, produced);
    expect(messages).toHaveLength(produced);
    for (const m of messages) {
      // Format 4: headers name the format and the rows of each part; no table, no key.
      const parts = partsOf(m.value);
      expect(m.headers[MESSAGE_HEADERS.format]).toBe('4');
      expect(Number(m.headers[MESSAGE_HEADERS.spanRows])).toBe(parts.spans.length);
      expect(Number(m.headers[MESSAGE_HEADERS.statsRows])).toBe(parts.stats.length);
      expect(m.headers[MESSAGE_HEADERS.table]).toBeUndefined();
      expect(m.headers[MESSAGE_HEADERS.rows]).toBeUndefined();
      expect(m.key).toBe('');
      expect(Buffer.byteLength(m.value)).toBeLessThanOrEqual(maxMessageBytes);
    }
    expect(sorted(messages.map((m) => m.value))).toEqual(sorted(expected.map((m) => m.value)));
    const parts = messages.map((m) => partsOf(m.value));
    expect(sorted(parts.flatMap((p) => p.spans))).toEqual(sorted(sent.map(encodeSpanRow)));
    expect(sorted(parts.flatMap((p) => p.stats))).toEqual(sorted(batches.flatMap((b) => b.stats)));
    // Each small write's message holds its trace's spans next to their summary and the trace's header.
    const whole = parts.filter((p) => p.spans.length > 0 && p.stats.length > 0);
    expect(whole).toHaveLength(headers.length);
    for (const p of whole) {
      const trace = spanRowTrace(p.spans[0]);
      expect(p.spans.map(spanRowTrace)).toEqual([trace, trace, trace]);
      expect(p.stats.map(statsRowTrace)).toEqual([trace, trace]);
      expect(p.stats.filter(isHeaderRow)).toEqual(headerRows(headers.filter((h) => h.trace_id === trace)));
    }
    expect(sorted(whole.flatMap((p) => p.stats.filter(isHeaderRow)))).toEqual(sorted(headerRows(headers)));
    // The big trace needed several messages; without a key they spread over the partitions
    // (trace summaries are order-independent states, so a trace need not stay in one partition).
    const bigSpans = parts.filter((p) => p.stats.length === 0);
    expect(bigSpans.length).toBeGreaterThan(2);
    expect(bigSpans.every((p) => p.spans.every((row) => spanRowTrace(row) === 'p1-big'))).toBe(true);
    expect(parts.filter((p) => p.spans.length === 0).map((p) => p.stats.map(statsRowTrace))).toEqual([['p1-big'], ['p1-big']]);
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
      { key: 'p1/format-5', value: wholeValue(rows([span('p1', 'from-the-future', 0)])), headers: formatHeaders('5') },
      { key: 'p1/format-4-one-part', value: encodeSpanRow(span('p1', 'no-empty-line', 0)), headers: formatHeaders('4') },
      { key: 'p1/no-such-table', value: '{"score_id":"s1"}', headers: formatHeaders('3', 'scores') },
      { key: 'p1/bad-csv-row', value: `${format3SpanRow(span('p1', 'cut-csv', 0))}\n"p1","cut-csv","s1`, headers: formatHeaders('3', 'spans') },
      { key: 'p1/bad-json-row', value: `${JSON.stringify(spanRow(span('p1', 'cut', 0)))}\n{"project_id":"p1","tr`, headers: formatHeaders('2', 'spans') },
    ];
    // A format-1 envelope, a format-2 message (span rows as JSON lines) and a format-3 pair (span
    // rows as CSV lines, and their trace_stats_input rows) produced before the upgrade are still
    // read and written: span rows as the rows of today, byte for byte what ingest encodes now.
    const legacy: Message = { key: 'p1/legacy', value: JSON.stringify({ v: 1, spans: [legacySpan], traces: [legacyHeader] }) };
    const jsonRowSpans = [span('p1', 'json-rows', 0), span('p1', 'json-rows', 1, { input: 'a "quoted", \'odd\' \\ input' })];
    const jsonRows: Message = {
      key: 'p1/format-2',
      value: jsonRowSpans.map((x) => JSON.stringify(spanRow(x))).join('\n'),
      headers: formatHeaders('2', 'spans'),
    };
    // Blank lines inside quoted values, a map value's among them: raw in CSV, where chDB's inline
    // insert data would have ended (docs/chdb-inline-insert-empty-line.md).
    const csvSpans = [
      span('p1', 'csv-rows', 0, {
        name: 'plan\n\nact',
        input: 'Paragraph one.\n\nParagraph "two", with\ttabs\r\n\r\nand a back\\slash',
        output: '\n\n',
        attributes: { 'gen_ai.prompt': 'Question.\n\nAnswer briefly.', "it's": "'quoted'\\\n\n" },
      }),
      span('p1', 'csv-rows', 1, { input: 'a "quoted", \'odd\' \\ input', resource_attributes: { 'service.name': 'svc\n\nblank' } }),
    ];
    const csvRows = rows(csvSpans);
    const csvSpanMessage: Message = {
      key: 'p1/format-3',
      value: csvSpans.map(format3SpanRow).join('\n'),
      headers: { ...formatHeaders('3', 'spans'), [MESSAGE_HEADERS.rows]: String(csvSpans.length) },
    };
    expect(csvSpanMessage.value).toContain('\n\n');
    const csvStatsMessage: Message = {
      key: 'p1/format-3-stats',
      value: csvRows.stats.join('\n'),
      headers: { ...formatHeaders('3', 'trace_stats_input'), [MESSAGE_HEADERS.rows]: String(csvRows.stats.length) },
    };
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: names.topic, messages: [...poison, legacy, jsonRows, csvSpanMessage, csvStatsMessage] });
    await producer.disconnect();

    // Three writes, three format-4 messages (each write's span rows and trace_stats_input rows);
    // the store refuses the middle one for its data.
    const s = await sink(names.topic);
    const good = [span('p1', 'good-1', 0), span('p1', 'good-2', 0)];
    const refused = span('p1', 'refused', 0, { name: 'refuse-me' });
    const sent = { good: good.map((g) => rows([g])), refused: rows([refused]) };
    await Promise.all([s.write(sent.good[0]), s.write(sent.refused), s.write(sent.good[1])]);
    expect(await topicMessageCount(kafka, names.topic)).toBe(poison.length + 4 + 3);

    const parseError = new Error('Code: 41. DB::Exception: Cannot parse datetime: while reading start_time (CANNOT_PARSE_DATETIME)');
    const writer = new RecordingWriter((b) => (b.spans.some((chunk) => chunk.includes('refuse-me')) ? parseError : undefined));
    const ingester = await ingest({ ...names, writer });
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    // Everything but the refused write is written: the legacy envelope (encoded on the way in, with
    // its trace_stats_input rows: its span's contribution and its header), the format-2 and format-3
    // rows, and the good writes.
    const legacyRows = rows([legacySpan], [legacyHeader]);
    expect(legacyRows.stats).toHaveLength(2);
    const jsonRowsAsRows = { spans: jsonRowSpans.map(encodeSpanRow), stats: [] };
    expect(sorted(writer.spans)).toEqual(sorted([legacySpan, ...jsonRowSpans, ...csvSpans, ...good].map(encodeSpanRow)));
    expect(writer.headers).toEqual(headerRows([legacyHeader]));
    expect(writer.rows).toEqual(rowsOf([legacyRows, jsonRowsAsRows, csvRows, ...sent.good]));
    // Nothing of the refused write: not its span, and not its trace's summary row either.
    expect(writer.spans.filter((row) => spanRowTrace(row) === 'refused')).toEqual([]);
    expect(writer.stats.filter((row) => statsRowTrace(row) === 'refused')).toEqual([]);
    // The refused message was first tried together with every other writable one (all in the one
    // partition), which were written all the same: the ingester split the insert until the refused
    // message was alone. Its two parts were always inserted together, as one write.
    expect(rowsOf([writer.refused[0]])).toEqual(rowsOf([legacyRows, jsonRowsAsRows, csvRows, ...sent.good, sent.refused]));
    for (const attempt of writer.refused) {
      expect(lines(attempt.spans)).toContain(sent.refused.spans[0]);
      expect(lines(attempt.stats)).toContain(sent.refused.stats[0]);
    }
    expect(writer.refused.at(-1)).toEqual(sent.refused);

    // Nine dead letters: the eight poison messages and the refused write's one message, nothing else.
    const letters = await readTopic(kafka, names.deadLetterTopic, poison.length + 1);
    expect(letters).toHaveLength(poison.length + 1);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(poison.length + 1);
    const reasonOf = Object.fromEntries(letters.map((l) => [l.key, l.headers[DEAD_LETTER_HEADERS.reason]]));
    expect(reasonOf['p1/bad-json']).toMatch(/^undecodable JSON/);
    expect(reasonOf['p1/bad-schema']).toMatch(/^schema-invalid envelope: spans\.0\./);
    expect(reasonOf['p1/bad-version']).toBe('unsupported envelope version: 99');
    expect(reasonOf['p1/format-5']).toBe('unsupported message format: "5"');
    expect(reasonOf['p1/format-4-one-part']).toBe('format 4 message without the empty line that ends its span rows');
    expect(reasonOf['p1/no-such-table']).toBe('unknown table "scores" in a format 3 message');
    expect(reasonOf['p1/bad-csv-row']).toBe('undecodable format 3 span rows: row 2: a quoted field is not closed');
    expect(reasonOf['p1/bad-json-row']).toMatch(/^undecodable format 2 span row: /);
    // The sink's message has no key; it is found by its value, the whole write unchanged (span row
    // and trace_stats_input row), with its original headers.
    const refusedLetter = letters.find((l) => l.key === '')!;
    expect(refusedLetter.value).toBe(wholeValue(sent.refused));
    expect(partsOf(refusedLetter.value)).toEqual(sent.refused);
    expect(refusedLetter.headers).toMatchObject({
      [MESSAGE_HEADERS.format]: '4',
      [MESSAGE_HEADERS.spanRows]: '1',
      [MESSAGE_HEADERS.statsRows]: '1',
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
    const other = span('p1', 'outage-2', 0);
    // Two writes, two messages on two partitions: each its span rows and its trace_stats_input rows
    // (the spans' contribution, and for the first the trace header).
    const batches = [rows(sent, [header('p1', 'outage')]), rows([other])];
    for (const b of batches) await s.write(b);
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
    expect(sorted(writer.spans)).toEqual(sorted([...sent, other].map(encodeSpanRow)));
    expect(writer.headers).toEqual(headerRows([header('p1', 'outage')]));
    expect(sorted(writer.stats)).toEqual(sorted(batches.flatMap((b) => b.stats)));
    expect(writer.stats).toHaveLength(3);
    // Each message's rows in one insert, each once.
    expect(writer.rows).toEqual(rowsOf(batches));
    expect(sorted(writer.batches.map((b) => wholeValue({ spans: lines(b.spans), stats: lines(b.stats) })))).toEqual(sorted(batches.map(wholeValue)));
    // Both partitions that held a message are committed past it; the third never held one.
    expect(sorted(await committedOffsets(kafka, names.groupId, names.topic))).toEqual(['-1', '1', '1']);
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
  });

  it('redelivers what a stopped ingester had not committed (at-least-once)', async () => {
    const sent = [0, 1].map((n) => span('p2', 'restart', n));
    // Two writes, two messages (each a span row and its trace_stats_input row), on two partitions.
    const writes = sent.map((x) => rows([x]));
    const { names, batch } = await writtenToNewTopics(writes);
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
    // Both messages again, each once and whole; the stopped ingester retried nothing.
    expect(writer.rows).toEqual(rowsOf([batch]));
    expect(writer.batches).toHaveLength(2);
    expect(sorted(writer.batches.map((b) => wholeValue(b)))).toEqual(sorted(writes.map(wholeValue)));
    expect(sorted(writer.spans)).toEqual(sorted(sent.map(encodeSpanRow)));
    expect(inserts).toHaveLength(2);
  });

  it('stop() lets the insert in progress finish and commits it', async () => {
    // Two writes, two messages (each a span row and its trace_stats_input row) on two partitions: two inserts at once.
    const writes = [rows([span('p3', 'drain', 0)]), rows([span('p3', 'drain-2', 0)])];
    const { names, batch } = await writtenToNewTopics(writes);
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
    expect(sorted(written.map((b) => wholeValue(b)))).toEqual(sorted(writes.map(wholeValue)));
    // Both partitions that held a message are committed past it; the third never held one.
    expect(sorted(await committedOffsets(kafka, names.groupId, names.topic))).toEqual(['-1', '1', '1']);
  });

  it('keeps its group membership through an insert longer than the session timeout', async () => {
    // Two writes, two messages (each a span row and its trace_stats_input row) on two partitions: two slow inserts.
    const writes = [rows([span('p5', 'slow', 0)]), rows([span('p5', 'slow-2', 0)])];
    const { names, batch } = await writtenToNewTopics(writes);
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
    // One message a write (its span rows and its trace_stats_input rows), each stored once.
    expect(await topicMessageCount(kafka, names.topic)).toBe(2);
    const stored = (await readTopic(kafka, names.topic, 2)).filter((m) => m.value.includes('retried'));
    expect(stored.map((m) => m.value)).toEqual([wholeValue(batch)]);
    expect(stored[0].headers).toMatchObject({ [MESSAGE_HEADERS.format]: '4', [MESSAGE_HEADERS.spanRows]: '1', [MESSAGE_HEADERS.statsRows]: '1' });
  });

  // Last: it stops the broker. (A span too large for a message never reaches the sink: ingest cuts
  // its texts to fit MAX_SPAN_BYTES, in every mode; test/e2e/oversize-span.test.ts.)
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
