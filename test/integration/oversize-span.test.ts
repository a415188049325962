import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { apiFetch, makeDataDir, sampleTrace } from '../helpers/server.js';
import { pollUntil, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { decodeResponse, encodeRequest, postTraces } from '../fixtures/otlp/harness.js';

// Issue 7, item 4: one oversize span does not sink an export. A span whose stored row is over
// MAX_SPAN_BYTES is refused alone, at ingest, before any write path sees it: OTLP stores the rest
// and names it in partial_success; the JSON routes (all or nothing) answer 422 naming spans[i].
// The same inputs, the same answers, in both write paths: the in-process batcher (embedded) and
// Kafka (sink -> broker -> ingester), each the real service in its own OS process.

const MAX_SPAN_BYTES = 16_384;
const PROJECT = 'proj-oversize';
/** Why the span is refused, as a pattern: its size once stored is not known before it is encoded. */
const TOO_LARGE = `span is \\d+ bytes once stored; the limit is ${MAX_SPAN_BYTES} \\(MAX_SPAN_BYTES\\)`;

interface TraceDetail {
  trace_id: string;
  name: string;
  span_count: number;
  spans: Array<{ span_id: string; name: string }>;
}

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();

/** An OTLP export of one trace: a root and three children, the third carrying a prompt over MAX_SPAN_BYTES. */
function exportWithOneOversizeSpan() {
  const traceId = hex(0x7e57, 16);
  const start = Date.now() - 60_000;
  const spans = [0, 1, 2, 3].map((i) => ({
    traceId: Buffer.from(traceId, 'hex'),
    spanId: Buffer.from(hex(i + 1, 8), 'hex'),
    parentSpanId: i === 0 ? undefined : Buffer.from(hex(1, 8), 'hex'),
    name: i === 0 ? 'invoke_agent' : `chat ${i}`,
    startTimeUnixNano: nanos(start + i * 10),
    endTimeUnixNano: nanos(start + i * 10 + 5),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: i === 0 ? 'invoke_agent' : 'chat' } },
      ...(i === 2 ? [{ key: 'gen_ai.prompt', value: { stringValue: 'x'.repeat(2 * MAX_SPAN_BYTES) } }] : []),
    ],
  }));
  const body = encodeRequest({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] }, scopeSpans: [{ spans }] }] });
  return { body, traceId, oversize: { index: 2, spanId: hex(3, 8) }, stored: [1, 2, 4].map((n) => hex(n, 8)) };
}

const modes: Array<{ mode: string; sink: 'batcher' | 'kafka'; env: () => Record<string, string> }> = [
  { mode: 'embedded (batcher)', sink: 'batcher', env: () => ({}) },
  { mode: 'Kafka (sink -> broker -> ingester)', sink: 'kafka', env: () => ({ KAFKA_BROKERS: broker!.brokers.join(',') }) },
];

let broker: KafkaBroker | undefined;
afterAll(async () => {
  await broker?.stop();
});

describe.each(modes)('$mode', ({ sink, env }) => {
  const dataDir = makeDataDir('agent-eval-oversize-');
  let svc: ServiceProcess;

  beforeAll(async () => {
    if (sink === 'kafka') broker = await startKafka({ version: process.env.KAFKA_TEST_VERSION });
    svc = await spawnServiceProcess(dataDir, { MAX_SPAN_BYTES: String(MAX_SPAN_BYTES), ...env() });
    expect((await writePath()).kind).toBe(sink);
  });
  afterAll(async () => {
    await stopProcess(svc);
    removeDir(dataDir);
  });

  async function getTrace(id: string): Promise<{ status: number; body?: TraceDetail }> {
    const res = await apiFetch(svc.apiUrl!, PROJECT, `/api/traces/${id}`);
    if (res.status === 200) return { status: 200, body: (await res.json()) as TraceDetail };
    await res.body?.cancel();
    return { status: res.status };
  }

  async function writePath(): Promise<{ kind: string; pendingSpans: number; consumerLag?: number }> {
    const health = (await (await fetch(`${svc.apiUrl}/api/health`)).json()) as { ingest: { kind: string; pendingSpans: number; consumerLag?: number } };
    return health.ingest;
  }

  /** Everything accepted so far is stored: nothing buffered, and (with Kafka) nothing left to consume. */
  const settled = () =>
    pollUntil('the write path to settle', async () => {
      const { pendingSpans, consumerLag } = await writePath();
      return pendingSpans === 0 && (consumerLag ?? 0) === 0 ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 100 });

  it('OTLP/HTTP protobuf: 200 with partial_success naming the oversize span; every other span is stored', async () => {
    const sent = exportWithOneOversizeSpan();
    const res = await postTraces(svc.otlpHttpUrl!, sent.body, { project: PROJECT });
    expect(res.status).toBe(200);
    const answer = decodeResponse(new Uint8Array(await res.arrayBuffer()));
    expect(answer).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: expect.stringMatching(new RegExp(`^1 span\\(s\\) rejected: spans\\[${sent.oversize.index}\\] \\(span_id ${sent.oversize.spanId}\\): ${TOO_LARGE}$`)) as string,
      },
    });

    const trace = await pollUntil('the three other spans to be readable', async () => {
      const got = await getTrace(sent.traceId);
      return got.body?.span_count === sent.stored.length ? got.body : undefined;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    expect(trace.spans.map((s) => s.span_id).sort()).toEqual(sent.stored);
    expect(trace.name).toBe('invoke_agent');
    await settled();
    expect((await getTrace(sent.traceId)).body?.span_count).toBe(sent.stored.length);
  });

  it('JSON ingest: 422 naming spans[i] for the oversize span, and nothing of the trace is stored', async () => {
    const body = sampleTrace('json-oversize', { spanCount: 3 });
    Object.assign(body.spans[1], { input: 'x'.repeat(2 * MAX_SPAN_BYTES) });
    const res = await apiFetch(svc.apiUrl!, PROJECT, '/api/traces/ingest', { method: 'POST', json: body });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: 'Validation error',
      code: 'VALIDATION_ERROR',
      message: 'Field validation failed',
      details: [{ field: 'spans[1]', message: expect.stringMatching(new RegExp(`^${TOO_LARGE}$`)) as string }],
    });

    // The same trace without the oversize span is accepted: the 422 was about that span alone.
    const control = sampleTrace('json-control', { spanCount: 3 });
    const accepted = await apiFetch(svc.apiUrl!, PROJECT, '/api/traces/ingest', { method: 'POST', json: control });
    expect(accepted.status, await accepted.text()).toBe(201);
    await pollUntil('the control trace to be readable', async () => ((await getTrace('json-control')).body?.span_count === 3 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await settled();
    expect((await getTrace('json-oversize')).status).toBe(404);
  });
});
