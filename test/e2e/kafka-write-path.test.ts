import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kafka } from 'kafkajs';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { committedOffsets, kafkaClient, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { MESSAGE_HEADERS } from '../../collector/kafka/envelope.js';
import { apiFetch, makeDataDir, sampleTrace, startTestService, type TestService } from '../helpers/server.js';
import { agentTrace, exportSpans, makeExporter, recordSpans, type ExporterKind } from '../fixtures/otlp/sdk.js';
import { exited, forEachConcurrently, pollUntil, removeDir, sleep, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';

// The Kafka write path end to end, with nothing mocked: a real broker (scripts/kafka.sh), real
// chDB and embedded PostgreSQL, real OTel exporters. Every process has its own embedded stores,
// so every request names its project explicitly (x-project-id) for the processes to agree.

let broker: KafkaBroker;
let kafka: Kafka;
let brokers: string;

beforeAll(async () => {
  broker = await startKafka();
  brokers = broker.brokers.join(',');
  kafka = kafkaClient(broker, 'kafka-write-path-test', 5);
});

afterAll(async () => {
  await broker?.stop();
});

// ---------------------------------------------------------------------------------------------
// small helpers

interface TraceDetail {
  trace_id: string;
  name: string;
  status: string;
  span_count: number;
  spans: Array<Record<string, unknown> & { span_id: string; parent_span_id: string | null; type: string; name: string }>;
  [k: string]: unknown;
}

async function getTrace(apiUrl: string, project: string, id: string): Promise<TraceDetail | undefined> {
  const res = await apiFetch(apiUrl, project, `/api/traces/${encodeURIComponent(id)}`);
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  if (res.status !== 200) throw new Error(`GET trace ${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as TraceDetail;
}

/**
 * Polls until the trace is readable with `spanCount` spans and, when given, the `name` of its
 * explicit header. A request's span rows and its trace_stats_input rows (the summary: span_count,
 * counts, tokens; and the explicit header) travel in one message (format 4), which the ingester
 * inserts whole, spans first, some time after the 201.
 */
async function waitForTrace(apiUrl: string, project: string, id: string, spanCount: number, name?: string, timeoutMs = 30_000): Promise<TraceDetail> {
  let last: TraceDetail | undefined;
  return pollUntil(
    `trace ${id} with ${spanCount} spans${name ? ` named ${name}` : ''}`,
    async () => {
      last = await getTrace(apiUrl, project, id);
      const complete = last && last.span_count === spanCount && last.spans.length === spanCount && (name === undefined || last.name === name);
      return complete ? last : undefined;
    },
    { timeoutMs, intervalMs: 200, describe: () => (last ? `span_count ${last.span_count}, spans ${last.spans.length}, name ${last.name}` : 'not found') },
  );
}

/** A JSON ingest body read back complete: its spans and its header. */
const waitForJsonTrace = (apiUrl: string, project: string, sent: ReturnType<typeof sampleTrace>) =>
  waitForTrace(apiUrl, project, sent.trace_id, sent.spans.length, sent.name);

interface ListedTrace {
  trace_id: string;
  name: string;
  span_count: number;
}

async function listTraces(apiUrl: string, project: string): Promise<{ total: number; traces: ListedTrace[] }> {
  const res = await apiFetch(apiUrl, project, '/api/traces?limit=1000');
  expect(res.status).toBe(200);
  return (await res.json()) as { total: number; traces: ListedTrace[] };
}

/** End offsets (high watermarks) per partition, in partition order. */
async function endOffsets(topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition).map((p) => p.high);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Whether every JSON body sent is stored whole: listed (from trace_stats) with its header's name
 * and its span count, and every span row readable (from spans, a separate table, though the rows
 * travel in the same message). `whole` keeps the traces already found whole across polls.
 */
async function allStored(apiUrl: string, project: string, sent: Array<ReturnType<typeof sampleTrace>>, whole = new Set<string>()): Promise<true | undefined> {
  const list = await listTraces(apiUrl, project);
  if (list.total !== sent.length) return undefined;
  const listed = new Map(list.traces.map((t) => [t.trace_id, t]));
  if (!sent.every((body) => listed.get(body.trace_id)?.name === body.name && listed.get(body.trace_id)?.span_count === body.spans.length)) return undefined;
  for (const body of sent) {
    if (whole.has(body.trace_id)) continue;
    if ((await getTrace(apiUrl, project, body.trace_id))?.spans.length !== body.spans.length) return undefined;
    whole.add(body.trace_id);
  }
  return true;
}

/** A format-4 message value's two parts: span rows up to the first empty line, then trace_stats_input rows. */
function partsOf(value: string): { spans: string[]; stats: string[] } {
  const at = value.indexOf('\n\n');
  if (at === -1) throw new Error(`a format-4 value without the empty line between its parts: ${value.slice(0, 200)}`);
  const [spans, stats] = [value.slice(0, at), value.slice(at + 2)];
  return { spans: spans ? spans.split('\n') : [], stats: stats ? stats.split('\n') : [] };
}

/** Messages of `topic` the group has not committed (a partition never committed counts from 0). */
async function groupLag(groupId: string, topic: string): Promise<number> {
  const [ends, done] = await Promise.all([endOffsets(topic), committedOffsets(kafka, groupId, topic)]);
  return ends.reduce((n, high, p) => n + Number(high) - Math.max(0, Number(done[p] ?? '-1')), 0);
}

async function groupState(groupId: string): Promise<{ state: string; members: number }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return { state: groups[0].state, members: groups[0].members.length };
  } finally {
    await admin.disconnect();
  }
}

async function healthOf(apiUrl: string): Promise<{ status: string; ingest?: { kind: string; consumerLag?: unknown; pendingSpans: number } }> {
  const res = await fetch(`${apiUrl}/api/health`);
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; ingest?: { kind: string; consumerLag?: unknown; pendingSpans: number } };
}

/** A trace of the real SDK: a root and `children` tool calls parented to it (context passed explicitly). */
function sdkTrace(children: number): Promise<ReadableSpan[]> {
  return recordSpans((tracer) => {
    const root = tracer.startSpan('agent.run', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
    const ctx = trace.setSpan(context.active(), root);
    for (let i = 0; i < children; i++) {
      tracer.startSpan(`execute_tool search-${i}`, { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } }, ctx).end();
    }
    root.end();
  });
}

function hrToIso([s, ns]: [number, number]): string {
  return new Date(s * 1000 + Math.floor(ns / 1e6)).toISOString();
}

/** What GET /api/traces/{id} must show for a JSON-ingested trace, span by span. */
function expectJsonTraceAsSent(got: TraceDetail, sent: ReturnType<typeof sampleTrace>): void {
  expect(got).toMatchObject({ trace_id: sent.trace_id, name: sent.name, status: sent.status, start_time: sent.start_time, span_count: sent.spans.length });
  expect(got.spans).toHaveLength(sent.spans.length);
  expect(new Set(got.spans.map((s) => s.span_id))).toEqual(new Set(sent.spans.map((s) => s.span_id)));
  for (const s of sent.spans) {
    const span = got.spans.find((g) => g.span_id === s.span_id)!;
    expect(span).toMatchObject({
      name: s.name,
      type: s.type,
      parent_span_id: (s as { parent_span_id?: string }).parent_span_id ?? null,
      start_time: s.start_time,
      end_time: s.end_time,
    });
    const attrs = (s as { attributes?: Record<string, unknown> }).attributes;
    if (s.type === 'generation') expect(span).toMatchObject({ model: attrs?.model, input_tokens: attrs?.input_tokens, output_tokens: attrs?.output_tokens });
  }
}

// ---------------------------------------------------------------------------------------------

describe('one process with every role: receivers -> Kafka -> ingester -> ClickHouse', () => {
  const PROJECT = 'proj-kafka';
  const TOPIC = 'agent-eval.spans';
  const GROUP = 'agent-eval-ingester';
  let svc: TestService;

  beforeAll(async () => {
    // Without credentials: this test looks at the Kafka path (auth.test.ts covers keys).
    svc = await startTestService({ AUTH_MODE: 'none', KAFKA_BROKERS: brokers });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('JSON ingest: every 201 trace goes through the spans topic and reads back as sent', async () => {
    const before = await topicMessageCount(kafka, TOPIC);
    const sent = Array.from({ length: 30 }, (_, i) => sampleTrace(`kjson-${i}`, { spanCount: 1 + (i % 6), status: i % 7 === 0 ? 'error' : 'ok' }));
    await forEachConcurrently(sent.length, 8, async (i) => {
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: sent[i], project: PROJECT });
      expect(res.status, await res.text()).toBe(201);
    });
    // One message per request (format 4): its span rows, an empty line, then its trace_stats_input
    // rows, the spans' contribution to the trace's summary and the trace header. The 201s were
    // answered once Kafka acknowledged them.
    const after = await topicMessageCount(kafka, TOPIC);
    expect(after).toBe(before + sent.length);
    const messages = (await readTopic(kafka, TOPIC, after)).filter((m) => m.value.includes('"kjson-'));
    expect(messages).toHaveLength(sent.length);
    const bodies = new Map(sent.map((b) => [b.trace_id, b]));
    for (const m of messages) {
      expect(m.headers[MESSAGE_HEADERS.format], m.value).toBe('4');
      const parts = partsOf(m.value);
      expect(Number(m.headers[MESSAGE_HEADERS.spanRows])).toBe(parts.spans.length);
      expect(Number(m.headers[MESSAGE_HEADERS.statsRows])).toBe(parts.stats.length);
      // The header rides next to the spans' contribution, and the spans they count beside them.
      const rows = parts.stats.map((line) => JSON.parse(line) as { trace_id: string; header?: number });
      expect(rows.map((r) => r.header ?? 0).sort(), m.value).toEqual([0, 1]);
      const traceId = rows[0].trace_id;
      expect(
        rows.map((r) => r.trace_id),
        m.value,
      ).toEqual([traceId, traceId]);
      const body = bodies.get(traceId)!;
      expect(body, traceId).toBeDefined();
      bodies.delete(traceId);
      // Span rows are TabSeparated: trace id, then span id, in the second and third fields.
      expect(parts.spans.map((row) => row.split('\t')[1])).toEqual(body.spans.map(() => traceId));
      expect(parts.spans.map((row) => row.split('\t')[2]).sort()).toEqual(body.spans.map((x) => x.span_id).sort());
    }
    // Each request in exactly one message.
    expect(bodies.size).toBe(0);

    for (const body of sent) expectJsonTraceAsSent(await waitForJsonTrace(svc.apiUrl!, PROJECT, body), body);
    const one = (await getTrace(svc.apiUrl!, PROJECT, 'kjson-5'))!;
    expect(one).toMatchObject({ span_count: 6, llm_call_count: 3, tool_call_count: 2, total_input_tokens: 30, total_output_tokens: 60 });

    const list = await listTraces(svc.apiUrl!, PROJECT);
    expect(list.total).toBe(sent.length);
    // The ingester group committed everything it wrote.
    await pollUntil('the ingester group to commit up to the end of the topic', async () => ((await groupLag(GROUP, TOPIC)) === 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
  });

  it.each<ExporterKind>(['http/protobuf', 'grpc', 'http/json'])('real OTel %s exporter: spans, types and attributes read back as sent', async (kind) => {
    const sent = await recordSpans((tracer) => agentTrace(tracer));
    const traceId = sent[0].spanContext().traceId;
    const target = kind === 'grpc' ? `http://${svc.otlpGrpcAddress}` : svc.otlpHttpUrl!;
    const exporter = makeExporter(kind, target, PROJECT);
    const before = await topicMessageCount(kafka, TOPIC);
    expect(await exportSpans(exporter, sent)).toEqual({ code: 0 });
    await exporter.shutdown();
    // One message: the span rows and the trace's trace_stats_input row (OTLP has no trace header).
    expect(await topicMessageCount(kafka, TOPIC)).toBe(before + 1);

    const got = await waitForTrace(svc.apiUrl!, PROJECT, traceId, 2);
    expect(got).toMatchObject({ trace_id: traceId, span_count: 2, llm_call_count: 1, error_count: 1, total_input_tokens: 42 });
    const root = sent.find((s) => s.name === 'invoke_agent')!;
    const llm = sent.find((s) => s.name === 'chat gpt-4o')!;
    expect(got.spans.find((s) => s.span_id === root.spanContext().spanId)).toMatchObject({
      name: 'invoke_agent',
      parent_span_id: null,
      kind: 'server',
      type: 'span',
      start_time: hrToIso(root.startTime),
      resource_attributes: { 'service.name': 'sdk-agent', 'deployment.environment': 'test' },
      scope: { name: 'agent-eval-test', version: '1.2.3' },
    });
    expect(got.spans.find((s) => s.span_id === llm.spanContext().spanId)).toMatchObject({
      name: 'chat gpt-4o',
      parent_span_id: root.spanContext().spanId,
      kind: 'client',
      type: 'generation',
      model: 'gpt-4o',
      input_tokens: 42,
      status: 'error',
      status_message: 'rate limited',
      start_time: hrToIso(llm.startTime),
      attributes: expect.objectContaining({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.request.temperature': '0.5' }) as Record<string, string>,
      events: [expect.objectContaining({ name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'hello' } })],
    });
  });

  it('/api/health reports the consumer lag as a number and /metrics exports agent_eval_kafka_consumer_lag', async () => {
    await pollUntil('lag 0 after the previous tests', async () => ((await groupLag(GROUP, TOPIC)) === 0 ? true : undefined), { timeoutMs: 20_000 });
    const health = await healthOf(svc.apiUrl!);
    expect(health.status).toBe('healthy');
    expect(health.ingest).toMatchObject({ kind: 'kafka', pendingSpans: 0 });
    expect(typeof health.ingest!.consumerLag).toBe('number');
    expect(health.ingest!.consumerLag).toBe(0);

    const metrics = await (await fetch(`${svc.apiUrl}/metrics`)).text();
    const line = /^agent_eval_kafka_consumer_lag (\S+)$/m.exec(metrics);
    expect(line, metrics.slice(0, 2000)).not.toBeNull();
    // -1 would mean "no Kafka"; the group is caught up.
    expect(Number(line![1])).toBe(0);
  });

  it('a 201 trace is only readable once the ingester consumed it: with the ingester stopped it waits in Kafka', async () => {
    await svc.writePath.ingester!.stop();
    const before = await topicMessageCount(kafka, TOPIC);
    const body = sampleTrace('kjson-unconsumed', { spanCount: 3 });
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project: PROJECT });
    expect(res.status).toBe(201);
    // One message: its span rows and its trace_stats_input rows (the summary and the header).
    expect(await topicMessageCount(kafka, TOPIC)).toBe(before + 1);
    await sleep(2000);
    // The receiver did not write to ClickHouse itself: the trace (spans, header and summary) is in Kafka, uncommitted.
    expect(await getTrace(svc.apiUrl!, PROJECT, 'kjson-unconsumed')).toBeUndefined();
    expect(await groupLag(GROUP, TOPIC)).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('roles split across OS processes: collector (OTLP), api (JSON) -> Kafka -> ingester', () => {
  const TOPIC = 'e2e-split.spans';
  const GROUP = 'e2e-split-ingester';
  let env: Record<string, string>;
  const dirs = { c: makeDataDir('agent-eval-kafka-c-'), a: makeDataDir('agent-eval-kafka-a-'), i: makeDataDir('agent-eval-kafka-i-') };
  let C: ServiceProcess; // collector only: OTLP receivers, no API port
  let A: ServiceProcess; // api only: JSON ingest (its reads would hit its own, empty chDB)
  let I: ServiceProcess | undefined; // ingester + api: consumes into its chDB and serves the reads
  let killedI: ServiceProcess | undefined;

  beforeAll(async () => {
    env = { KAFKA_BROKERS: brokers, KAFKA_TOPIC: TOPIC, KAFKA_DLQ_TOPIC: `${TOPIC}.dlq`, KAFKA_GROUP_ID: GROUP };
    const started = await Promise.allSettled([
      spawnServiceProcess(dirs.c, { ...env, AGENT_EVAL_ROLES: 'collector' }),
      spawnServiceProcess(dirs.a, { ...env, AGENT_EVAL_ROLES: 'api' }),
      spawnServiceProcess(dirs.i, { ...env, AGENT_EVAL_ROLES: 'ingester,api' }),
    ]);
    // Keep what started, so afterAll stops it even when another one failed to start.
    const [c, a, i] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
    [C, A, I] = [c!, a!, i];
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });

  afterAll(async () => {
    await Promise.all([stopProcess(C), stopProcess(A), stopProcess(I), stopProcess(killedI)]);
    for (const dir of Object.values(dirs)) removeDir(dir);
  });

  async function sendJson(project: string, body: ReturnType<typeof sampleTrace>): Promise<number> {
    const res = await apiFetch(A.apiUrl!, project, '/api/traces/ingest', { method: 'POST', json: body });
    await res.body?.cancel();
    return res.status;
  }

  it('each process serves only its roles, and a trace sent to C or A is read from I', async () => {
    const PROJECT = 'proj-kafka-split';
    expect(C.apiUrl).toBeUndefined();
    expect(C.otlpHttpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(C.otlpGrpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(A.apiUrl).toBeDefined();
    expect(A.otlpGrpcAddress).toBeUndefined();
    expect(I!.apiUrl).toBeDefined();
    expect(I!.otlpGrpcAddress).toBeUndefined();

    const json = Array.from({ length: 10 }, (_, i) => sampleTrace(`split-${i}`, { spanCount: 2 + (i % 4) }));
    for (const body of json) expect(await sendJson(PROJECT, body)).toBe(201);
    const otlp: Array<{ kind: ExporterKind; spans: ReadableSpan[] }> = [];
    for (const kind of ['http/protobuf', 'grpc'] as const) {
      const spans = await sdkTrace(3);
      const exporter = makeExporter(kind, kind === 'grpc' ? `http://${C.otlpGrpcAddress}` : C.otlpHttpUrl!, PROJECT);
      expect(await exportSpans(exporter, spans)).toEqual({ code: 0 });
      await exporter.shutdown();
      otlp.push({ kind, spans });
    }

    for (const body of json) expectJsonTraceAsSent(await waitForJsonTrace(I!.apiUrl!, PROJECT, body), body);
    for (const { spans } of otlp) {
      const got = await waitForTrace(I!.apiUrl!, PROJECT, spans[0].spanContext().traceId, 4);
      const root = spans.find((s) => s.name === 'agent.run')!;
      for (const s of spans) {
        expect(got.spans.find((g) => g.span_id === s.spanContext().spanId)).toMatchObject({
          name: s.name,
          parent_span_id: s === root ? null : root.spanContext().spanId,
          type: s === root ? 'span' : 'tool',
        });
      }
      expect(got).toMatchObject({ tool_call_count: 3 });
    }
    expect((await listTraces(I!.apiUrl!, PROJECT)).total).toBe(json.length + otlp.length);
    // The api-only process produced to Kafka and wrote nothing to its own ClickHouse.
    expect(await getTrace(A.apiUrl!, PROJECT, 'split-0')).toBeUndefined();
    expect((await healthOf(A.apiUrl!)).ingest).toMatchObject({ kind: 'kafka' });
    expect((await healthOf(A.apiUrl!)).ingest!.consumerLag).toBeUndefined();
  });

  it('SIGKILL of the ingester mid-stream, then a restart on the same data dir: every acknowledged span exactly once', async () => {
    const PROJECT = 'proj-kafka-kill';
    const TOTAL = 480;
    const expected = new Map<string, Set<string>>(); // acknowledged trace -> its span ids
    const failures: string[] = [];
    let acked = 0;
    const exporters = Array.from({ length: 3 }, () => makeExporter('http/protobuf', C.otlpHttpUrl!, PROJECT));

    async function sendOne(i: number): Promise<void> {
      const spanCount = 1 + (i % 5);
      if (i % 2 === 0) {
        const body = sampleTrace(`kill-${i}`, { spanCount });
        const status = await sendJson(PROJECT, body);
        if (status !== 201) return void failures.push(`json ${i}: ${status}`);
        expected.set(body.trace_id, new Set(body.spans.map((s) => s.span_id)));
      } else {
        const spans = await sdkTrace(spanCount - 1);
        const result = await exportSpans(exporters[i % exporters.length], spans);
        if (result.code !== 0) return void failures.push(`otlp ${i}: ${result.error?.message}`);
        expected.set(spans[0].spanContext().traceId, new Set(spans.map((s) => s.spanContext().spanId)));
      }
      acked++;
    }

    let killedAt = -1;
    let visibleAtKill = -1;
    const sender = forEachConcurrently(TOTAL, 4, async (i) => {
      await sendOne(i);
      await sleep(25); // a steady stream over several seconds, not one burst
    });
    // Part-way: kill -9 the ingester while the stream runs.
    await pollUntil('a third of the stream acknowledged', () => Promise.resolve(acked >= TOTAL / 3 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
    visibleAtKill = (await listTraces(I!.apiUrl!, PROJECT)).total;
    killedI = I;
    I = undefined;
    killedI!.child.kill('SIGKILL');
    killedAt = acked;
    expect(await exited(killedI!.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
    // Keep sending while no ingester runs; restart it on the same data dir part-way through the rest.
    await pollUntil('two thirds acknowledged', () => Promise.resolve(acked >= (2 * TOTAL) / 3 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
    const restarting = spawnServiceProcess(dirs.i, { ...env, AGENT_EVAL_ROLES: 'ingester,api' });
    restarting.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    await sender;
    await Promise.all(exporters.map((e) => e.shutdown()));
    I = await restarting;
    killedI = undefined;

    expect(failures).toEqual([]);
    expect(acked).toBe(TOTAL);
    expect(expected.size).toBe(TOTAL);
    expect(visibleAtKill).toBeGreaterThan(0);
    expect(visibleAtKill).toBeLessThan(TOTAL);
    expect(killedAt).toBeLessThan(TOTAL);

    // The restarted ingester reports its backlog (a number in /api/health), then drains it.
    let maxLag = 0;
    const apiUrl = I.apiUrl!;
    const readyAt = Date.now();
    await pollUntil(
      'the restarted ingester to drain the lag and show every acknowledged trace',
      async () => {
        const lag = (await healthOf(apiUrl)).ingest?.consumerLag;
        expect(typeof lag).toBe('number');
        maxLag = Math.max(maxLag, lag as number);
        if (lag !== 0) return undefined;
        return (await listTraces(apiUrl, PROJECT)).total === TOTAL ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, describe: () => `max lag seen ${maxLag}` },
    );
    console.info(
      `kill -9 at ${killedAt}/${TOTAL} acknowledged (${visibleAtKill} readable then); after the restart the lag peaked at ${maxLag} messages and drained in ${Date.now() - readyAt} ms`,
    );

    const list = await listTraces(apiUrl, PROJECT);
    expect(list.total).toBe(TOTAL);
    expect(new Set(list.traces.map((t) => t.trace_id))).toEqual(new Set(expected.keys()));
    for (const t of list.traces) expect(t.span_count, t.trace_id).toBe(expected.get(t.trace_id)!.size);
    const entries = [...expected.entries()];
    await forEachConcurrently(TOTAL, 4, async (n) => {
      const [id, spanIds] = entries[n];
      const got = (await getTrace(apiUrl, PROJECT, id))!;
      expect(got, id).toBeDefined();
      expect(got.span_count, id).toBe(spanIds.size);
      expect(got.spans.map((s) => s.span_id).sort(), id).toEqual([...spanIds].sort()); // no duplicate, none missing
    });
    expect(await groupLag(GROUP, TOPIC)).toBe(0);
  }, 240_000);

  it('SIGTERM drains the ingester: it exits 0, leaves the group, and its offsets are committed to the end', async () => {
    const PROJECT = 'proj-kafka-term';
    // 1. SIGTERM while the ingester is consuming a burst.
    const burst = Array.from({ length: 150 }, (_, i) => sampleTrace(`term-${i}`, { spanCount: 1 + (i % 4) }));
    await forEachConcurrently(burst.length, 8, async (i) => expect(await sendJson(PROJECT, burst[i])).toBe(201));
    const committedBefore = await committedOffsets(kafka, GROUP, TOPIC);
    const stopping = I!;
    I = undefined;
    stopping.child.kill('SIGTERM');
    expect(await exited(stopping.child, 60_000), stopping.output().slice(-6000)).toEqual({ code: 0, signal: null });
    expect(stopping.output()).toContain('"ingester stopped"');
    // It left the group (no member waits out a session timeout) and never committed backwards.
    expect(await groupState(GROUP)).toEqual({ state: 'Empty', members: 0 });
    const ends = await endOffsets(TOPIC);
    const committed = await committedOffsets(kafka, GROUP, TOPIC);
    committed.forEach((c, p) => {
      expect(BigInt(c)).toBeGreaterThanOrEqual(BigInt(committedBefore[p]));
      expect(BigInt(c)).toBeLessThanOrEqual(BigInt(ends[p]));
    });

    // 2. A restart picks up at once from the committed offsets: everything exactly once.
    I = await spawnServiceProcess(dirs.i, { ...env, AGENT_EVAL_ROLES: 'ingester,api' });
    const readyAt = Date.now();
    const whole = new Set<string>();
    await pollUntil('the burst to be readable', () => allStored(I!.apiUrl!, PROJECT, burst, whole), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    // A clean leave means no wait for a dead member's session timeout (30 s): a group still holding
    // the old member could not hand the partitions over sooner (a loaded machine took 21 s once).
    expect(Date.now() - readyAt).toBeLessThan(30_000);
    for (const body of burst) {
      const got = (await getTrace(I.apiUrl!, PROJECT, body.trace_id))!;
      expect(got.spans.map((s) => s.span_id).sort()).toEqual(body.spans.map((s) => s.span_id).sort());
      expect(got.span_count).toBe(body.spans.length);
    }

    // 3. SIGTERM right after the ingester wrote a second burst: the commit of its last insert is not lost.
    const second = Array.from({ length: 60 }, (_, i) => sampleTrace(`term2-${i}`, { spanCount: 3 }));
    await forEachConcurrently(second.length, 8, async (i) => expect(await sendJson(PROJECT, second[i])).toBe(201));
    await pollUntil('the second burst to be readable', () => allStored(I!.apiUrl!, PROJECT, [...burst, ...second], whole), {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const last = I;
    I = undefined;
    last.child.kill('SIGTERM');
    expect(await exited(last.child, 60_000), last.output().slice(-6000)).toEqual({ code: 0, signal: null });
    expect(await committedOffsets(kafka, GROUP, TOPIC)).toEqual(await endOffsets(TOPIC));
    expect(await groupLag(GROUP, TOPIC)).toBe(0);
  }, 180_000);
});
