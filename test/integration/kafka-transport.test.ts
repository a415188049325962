import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { committedOffsets, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { createKafkaSink } from '../../collector/kafka/kafka-sink.js';
import { startIngester, type Ingester, type IngesterOptions } from '../../collector/kafka/ingester.js';
import { ensureTopics } from '../../collector/kafka/topics.js';
import { DEAD_LETTER_HEADERS } from '../../collector/kafka/dead-letter.js';
import type { BatchWriter } from '../../core/store/analytics.js';
import type { SpanRecord, TraceHeader, WriteBatch } from '../../core/model/span.js';

// The Kafka transport alone: sink -> broker -> ingester -> a BatchWriter that records what it gets.
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

/** Records every batch it writes; `down` makes it fail like an unreachable ClickHouse. */
class RecordingWriter implements BatchWriter {
  batches: WriteBatch[] = [];
  attempts = 0;
  down = false;
  constructor(private readonly reject?: (batch: WriteBatch) => Error | undefined) {}
  async writeBatch(batch: WriteBatch): Promise<void> {
    this.attempts++;
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    const error = this.reject?.(batch);
    if (error) throw error;
    this.batches.push(structuredClone(batch));
  }
  get spans(): SpanRecord[] {
    return this.batches.flatMap((b) => b.spans);
  }
  get traces(): TraceHeader[] {
    return this.batches.flatMap((b) => b.traces);
  }
}

async function ingest(opts: Omit<IngesterOptions, 'kafka' | 'logger'>): Promise<Ingester> {
  const ingester = await startIngester({ kafka, logger, retryBackoffMs: { min: 100, max: 500 }, sessionTimeoutMs: 10_000, ...opts });
  running.push(ingester);
  return ingester;
}

async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const bySpanId = (a: SpanRecord, b: SpanRecord): number => a.span_id.localeCompare(b.span_id);

describe('Kafka transport (real broker)', () => {
  it('delivers spans from the sink to the ingester exactly as sent, each trace in one partition', async () => {
    const names = await topics();
    // A small message limit splits the big trace into several messages of the same key.
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger, maxMessageBytes: 4_000 });
    running.push({ stop: () => sink.close() });
    const sent: SpanRecord[] = [];
    const headers: TraceHeader[] = [];
    const writes: Promise<void>[] = [];
    for (const project of ['p1', 'p2']) {
      for (let t = 0; t < 6; t++) {
        const trace = `${project}-t${t}`;
        const spans = [0, 1, 2].map((n) => span(project, trace, n));
        sent.push(...spans);
        headers.push(header(project, trace));
        writes.push(sink.write({ spans, traces: [header(project, trace)] }));
      }
    }
    const big = Array.from({ length: 12 }, (_, n) => span('p1', 'p1-big', n, { input: 'x'.repeat(1_000) }));
    sent.push(...big);
    writes.push(sink.write({ spans: big.slice(0, 6), traces: [] }), sink.write({ spans: big.slice(6), traces: [] }));
    await Promise.all(writes);
    expect(sink.stats()).toEqual({ kind: 'kafka', pendingSpans: 0, pendingBytes: 0 });

    const writer = new RecordingWriter();
    const ingester = await ingest({ ...names, writer });
    await eventually(() => expect(writer.spans.length).toBe(sent.length));
    expect([...writer.spans].sort(bySpanId)).toEqual([...sent].sort(bySpanId));
    expect(writer.traces).toHaveLength(headers.length);
    expect(writer.traces).toEqual(expect.arrayContaining(headers));
    await eventually(async () => expect(await ingester.lag()).toBe(0));

    const produced = await topicMessageCount(kafka, names.topic);
    const messages = await readTopic(kafka, names.topic, produced);
    expect(messages).toHaveLength(produced);
    const partitionsOf = new Map<string, Set<number>>();
    for (const m of messages) partitionsOf.set(m.key, (partitionsOf.get(m.key) ?? new Set()).add(m.partition));
    expect(partitionsOf.size).toBe(13);
    for (const [key, partitions] of partitionsOf) expect(partitions.size, key).toBe(1);
    expect(messages.filter((m) => m.key === 'p1/p1-big').length).toBeGreaterThan(2);
    expect(new Set(messages.map((m) => m.partition)).size).toBeGreaterThan(1);
    expect(JSON.parse(messages[0].value)).toMatchObject({ v: 1 });
  });

  it('sends poison messages to the dead-letter topic with the reason, and keeps going', async () => {
    const names = await topics(1);
    const producer = kafka.producer();
    await producer.connect();
    const poison = [
      { key: 'p1/bad-json', value: '{"v":1,"spans":[' },
      { key: 'p1/bad-schema', value: JSON.stringify({ v: 1, spans: [{ span_id: 'x' }], traces: [] }) },
      { key: 'p1/bad-version', value: JSON.stringify({ v: 99, spans: [], traces: [] }) },
    ];
    await producer.send({ topic: names.topic, messages: poison });
    await producer.disconnect();
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger });
    running.push({ stop: () => sink.close() });
    const good = [span('p1', 'good-1', 0), span('p1', 'good-2', 0)];
    const rejected = span('p1', 'rejected', 0, { name: 'reject-me' });
    await sink.write({ spans: [good[0], rejected, good[1]], traces: [] });

    // A data error (not infrastructure) for any batch that holds the bad span.
    const writer = new RecordingWriter((b) => (b.spans.some((s) => s.name === 'reject-me') ? new Error('Cannot parse input: expected DateTime64') : undefined));
    const ingester = await ingest({ ...names, writer });
    await eventually(() => expect(writer.spans.map((s) => s.span_id).sort()).toEqual(['good-1-s0', 'good-2-s0']));

    const letters = await readTopic(kafka, names.deadLetterTopic, 4);
    expect(letters).toHaveLength(4);
    const reasonOf = Object.fromEntries(letters.map((l) => [l.key, l.headers[DEAD_LETTER_HEADERS.reason]]));
    expect(reasonOf['p1/bad-json']).toMatch(/^undecodable JSON/);
    expect(reasonOf['p1/bad-schema']).toMatch(/^schema-invalid envelope: spans\.0\./);
    expect(reasonOf['p1/bad-version']).toBe('unsupported envelope version: 99');
    expect(reasonOf['p1/rejected']).toBe('rejected by the store: Cannot parse input: expected DateTime64');
    for (const p of poison) expect(letters.find((l) => l.key === p.key)?.value).toBe(p.value);
    const letter = letters.find((l) => l.key === 'p1/bad-json')!;
    expect(letter.headers[DEAD_LETTER_HEADERS.sourceTopic]).toBe(names.topic);
    expect(letter.headers[DEAD_LETTER_HEADERS.sourceOffset]).toBe('0');
    await eventually(async () => expect(await ingester.lag()).toBe(0));
  });

  it('does not commit while the store is unreachable, and delivers once it recovers', async () => {
    const names = await topics(3);
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger });
    running.push({ stop: () => sink.close() });
    const sent = [0, 1, 2].map((n) => span('p1', 'outage', n));
    await sink.write({ spans: sent, traces: [header('p1', 'outage')] });

    const writer = new RecordingWriter();
    writer.down = true;
    const ingester = await ingest({ ...names, writer });
    await eventually(() => expect(writer.attempts).toBeGreaterThanOrEqual(3));
    expect(await ingester.lag()).toBe(1);
    expect(writer.batches).toHaveLength(0);

    writer.down = false;
    await eventually(() => expect(writer.spans).toEqual(sent));
    await eventually(async () => expect(await ingester.lag()).toBe(0));
    expect(await topicMessageCount(kafka, names.deadLetterTopic)).toBe(0);
  });

  it('redelivers what a stopped ingester had not committed (at-least-once)', async () => {
    const names = await topics(3);
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger });
    running.push({ stop: () => sink.close() });
    const sent = [0, 1].map((n) => span('p2', 'restart', n));
    await sink.write({ spans: sent, traces: [] });

    // The first ingester's insert is cut off by the shutdown, as a crash mid-insert would.
    let seen = 0;
    let cutOff: (err: Error) => void = () => undefined;
    const hanging: BatchWriter = {
      writeBatch: () => {
        seen++;
        return new Promise((_, reject) => (cutOff = reject));
      },
    };
    const first = await ingest({ ...names, writer: hanging });
    await eventually(() => expect(seen).toBe(1));
    const stopping = first.stop();
    cutOff(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await stopping;

    expect(await committedOffsets(kafka, names.groupId, names.topic)).toEqual(['-1', '-1', '-1']);

    const writer = new RecordingWriter();
    const second = await ingest({ ...names, writer });
    await eventually(() => expect(writer.spans).toEqual(sent));
    await eventually(async () => expect(await second.lag()).toBe(0));
    expect(seen).toBe(1);
  });
  it('stop() lets the insert in progress finish and commits it', async () => {
    const names = await topics(3);
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger });
    running.push({ stop: () => sink.close() });
    await sink.write({ spans: [span('p3', 'drain', 0)], traces: [] });

    let release: (() => void) | null = null;
    const written: WriteBatch[] = [];
    const slow: BatchWriter = {
      writeBatch: (batch) => new Promise<void>((resolve) => {
        release = () => {
          written.push(batch);
          resolve();
        };
      }),
    };
    const ingester = await ingest({ ...names, writer: slow });
    const finish = await eventually(() => release ?? Promise.reject(new Error('no insert yet')));
    const stopping = ingester.stop();
    await new Promise((r) => setTimeout(r, 200)); // stop() is under way while the insert runs
    finish();
    await stopping;
    expect(written).toHaveLength(1);
    expect((await committedOffsets(kafka, names.groupId, names.topic)).filter((o) => o !== '-1')).toEqual(['1']);
  });
  it('keeps its group membership through an insert longer than the session timeout', async () => {
    const names = await topics(3);
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger });
    running.push({ stop: () => sink.close() });
    await sink.write({ spans: [span('p5', 'slow', 0)], traces: [] });
    let calls = 0;
    const slow: BatchWriter = {
      writeBatch: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 8_000));
      },
    };
    // 6 s is the broker's minimum session timeout; the insert takes longer than that.
    await ingest({ ...names, writer: slow, sessionTimeoutMs: 6_000 });
    await eventually(async () => expect(await committedOffsets(kafka, names.groupId, names.topic)).toContain('1'), 20_000);
    expect(calls).toBe(1);
  });

  // Last: it stops the broker.
  it('the sink refuses with 429 past its in-flight bound, 413 for an oversized span, 503 + Retry-After when Kafka is gone', async () => {
    const names = await topics(3);
    const sink = await createKafkaSink({ kafka, topic: names.topic, logger, maxInFlightBytes: 2_000, maxMessageBytes: 10_000, retryAfterSeconds: 7 });
    running.push({ stop: () => sink.close() });
    const first = sink.write({ spans: [span('p4', 'bp-1', 0, { input: 'x'.repeat(1_500) })], traces: [] });
    const second = sink.write({ spans: [span('p4', 'bp-2', 0, { input: 'x'.repeat(1_500) })], traces: [] });
    await expect(second).rejects.toMatchObject({ name: 'BackpressureError', status: 429 });
    await first;
    await expect(sink.write({ spans: [span('p4', 'huge', 0, { input: 'x'.repeat(20_000) })], traces: [] })).rejects.toMatchObject({ status: 413 });

    await broker.stop();
    const started = Date.now();
    await expect(sink.write({ spans: [span('p4', 'bp-3', 0)], traces: [] })).rejects.toMatchObject({
      name: 'BackpressureError',
      status: 503,
      retryAfterSeconds: 7,
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(sink.stats()).toMatchObject({ pendingSpans: 0, pendingBytes: 0 });
  });
});
