import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { apiFetch, makeDataDir, sampleTrace } from '../helpers/server.js';
import { pollUntil, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { decodeResponse, encodeRequest, postTraces } from '../fixtures/otlp/harness.js';

// Large spans (issue 25): a span whose stored row is over MAX_SPAN_BYTES is stored with its largest
// texts cut to fit, not refused, and says so in its attributes (the original size of each cut text).
// Only a span that cannot fit even with every text cut (its ids, names and attribute keys alone are
// over the limit) is refused alone: OTLP stores the rest and names it in partial_success; the JSON
// routes (all or nothing) answer 422 naming spans[i]. The same in both write paths: the in-process
// batcher (embedded) and Kafka (sink -> broker -> ingester), each the real service in its own process.

const MAX_SPAN_BYTES = 16_384;
const PROJECT = 'proj-oversize';
/** Why a span that cannot be cut to fit is refused. */
const TOO_LARGE = `span is \\d+ bytes once stored with every text cut; the limit is ${MAX_SPAN_BYTES} \\(MAX_SPAN_BYTES\\)`;
const ATTRIBUTES_RECORD = 'agent_eval.truncated.attributes_bytes';
const INPUT_RECORD = 'agent_eval.truncated.input_bytes';

/** A long prompt: markdown paragraphs with blank lines, non-ASCII, as agents send. */
const LONG_PROMPT = Array.from({ length: 400 }, (_, i) => `## Step ${i}\n\nRead the file \`src/${i}.ts\` and summarize it — ✓ 日本語.`).join('\n\n');

interface TraceDetail {
  trace_id: string;
  name: string;
  span_count: number;
  spans: Array<{ span_id: string; name: string; input_truncated: boolean; output_truncated: boolean }>;
}

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();

/**
 * An OTLP export of one trace: a root and four children; the third carries a prompt over
 * MAX_SPAN_BYTES (cut to fit), the fourth more attribute keys than the limit holds (refused).
 */
function exportWithOversizeSpans() {
  const traceId = hex(0x7e57, 16);
  const start = Date.now() - 60_000;
  const spans = [0, 1, 2, 3, 4].map((i) => ({
    traceId: Buffer.from(traceId, 'hex'),
    spanId: Buffer.from(hex(i + 1, 8), 'hex'),
    parentSpanId: i === 0 ? undefined : Buffer.from(hex(1, 8), 'hex'),
    name: i === 0 ? 'invoke_agent' : `chat ${i}`,
    startTimeUnixNano: nanos(start + i * 10),
    endTimeUnixNano: nanos(start + i * 10 + 5),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: i === 0 ? 'invoke_agent' : 'chat' } },
      ...(i === 2 ? [{ key: 'gen_ai.prompt', value: { stringValue: LONG_PROMPT } }] : []),
      ...(i === 4 ? Array.from({ length: 1_000 }, (_, k) => ({ key: `custom.attribute.key.number.${k}`, value: { stringValue: '' } })) : []),
    ],
  }));
  const body = encodeRequest({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] }, scopeSpans: [{ spans }] }],
  });
  return { body, traceId, cut: hex(3, 8), refused: { index: 4, spanId: hex(5, 8) }, stored: [1, 2, 3, 4].map((n) => hex(n, 8)) };
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
    if (sink === 'kafka') broker = await startKafka();
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
    pollUntil(
      'the write path to settle',
      async () => {
        const { pendingSpans, consumerLag } = await writePath();
        return pendingSpans === 0 && (consumerLag ?? 0) === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

  async function getSpan(id: string): Promise<{ input: string; attributes: Record<string, string> }> {
    const res = await apiFetch(svc.apiUrl!, PROJECT, `/api/spans/${id}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { input: string; attributes: Record<string, string> };
  }

  it('OTLP/HTTP protobuf: the oversize span stored cut to fit; only a span that cannot fit is named in partial_success', async () => {
    const sent = exportWithOversizeSpans();
    const res = await postTraces(svc.otlpHttpUrl!, sent.body, { project: PROJECT });
    expect(res.status).toBe(200);
    const answer = decodeResponse(new Uint8Array(await res.arrayBuffer()));
    expect(answer).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: expect.stringMatching(
          new RegExp(`^1 span\\(s\\) rejected: spans\\[${sent.refused.index}\\] \\(span_id ${sent.refused.spanId}\\): ${TOO_LARGE}$`),
        ) as string,
      },
    });

    const trace = await pollUntil(
      'the four other spans to be readable',
      async () => {
        const got = await getTrace(sent.traceId);
        return got.body?.span_count === sent.stored.length ? got.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(trace.spans.map((s) => s.span_id).sort()).toEqual(sent.stored);
    expect(trace.name).toBe('invoke_agent');

    // The cut span keeps the beginning of its texts, byte for byte, and records their original size.
    const cut = await getSpan(sent.cut);
    const original = Buffer.byteLength(LONG_PROMPT);
    // The GenAI normalizer makes `gen_ai.prompt` the span's input.
    expect(cut.attributes['gen_ai.prompt']).toBeUndefined();
    expect(cut.input.length).toBeGreaterThan(MAX_SPAN_BYTES / 2);
    expect(cut.input.length).toBeLessThan(LONG_PROMPT.length);
    expect(LONG_PROMPT.startsWith(cut.input)).toBe(true);
    expect(Number(cut.attributes[INPUT_RECORD])).toBe(original);
    expect(cut.attributes[ATTRIBUTES_RECORD]).toBeUndefined();
    await settled();
    expect((await getTrace(sent.traceId)).body?.span_count).toBe(sent.stored.length);
  });

  it('JSON ingest: 201 with the oversize input stored cut to fit; 422 naming spans[i] for a span that cannot fit, and nothing stored', async () => {
    const body = sampleTrace('json-oversize', { spanCount: 3 });
    Object.assign(body.spans[1], { input: LONG_PROMPT });
    const res = await apiFetch(svc.apiUrl!, PROJECT, '/api/traces/ingest', { method: 'POST', json: body });
    expect(res.status, await res.clone().text()).toBe(201);
    const trace = await pollUntil('the trace to be readable', async () => ((await getTrace('json-oversize')).body?.span_count === 3 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(trace).toBe(true);
    const span = await getSpan(body.spans[1].span_id);
    expect(LONG_PROMPT.startsWith(span.input)).toBe(true);
    expect(span.input.length).toBeGreaterThan(MAX_SPAN_BYTES / 2);
    expect(Number(span.attributes[INPUT_RECORD])).toBe(Buffer.byteLength(LONG_PROMPT));
    // The trace view says the input is not whole; the other spans' are.
    const view = (await getTrace('json-oversize')).body!.spans;
    expect(view.map((s) => [s.span_id, s.input_truncated, s.output_truncated])).toEqual(
      body.spans.map((s) => [s.span_id, s.span_id === body.spans[1].span_id, false]),
    );

    const unfit = sampleTrace('json-unfit', { spanCount: 3 });
    Object.assign(unfit.spans[1], { attributes: Object.fromEntries(Array.from({ length: 1_000 }, (_, k) => [`custom.attribute.key.number.${k}`, ''])) });
    const refused = await apiFetch(svc.apiUrl!, PROJECT, '/api/traces/ingest', { method: 'POST', json: unfit });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: 'Validation error',
      code: 'VALIDATION_ERROR',
      message: 'Field validation failed',
      details: [{ field: 'spans[1]', message: expect.stringMatching(new RegExp(`^${TOO_LARGE}$`)) as string }],
    });
    await settled();
    expect((await getTrace('json-unfit')).status).toBe(404);
  });
});
