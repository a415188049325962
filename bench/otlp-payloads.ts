import { randomBytes } from 'node:crypto';
import { sizedText, spanSize, type SpanSize } from './lib.js';
import { protoTypes } from './proto.js';

/**
 * Pre-encoded OTLP ExportTraceServiceRequest payloads shaped like GenAI agent runs (OTel GenAI
 * semantic conventions): per trace an `invoke_agent` root, then alternating `chat` LLM spans and
 * `execute_tool` spans whose prompt / arguments and completion / result attributes have the
 * sizes of a {@link SpanSize} (whole attribute values; default `2k`: 1.5 KB in, 256 B out, about
 * 2.2 KB per span on the wire with the other GenAI attributes).
 *
 * Encoding happens once, before the timed phase. A template is sent many times, so every send
 * gets fresh ids: {@link stamp} copies the bytes and overwrites the trace / span / parent ids in
 * place at offsets found at build time (ids are fixed-length bytes fields, so nothing shifts).
 */
export interface PayloadTemplate {
  bytes: Buffer;
  spans: number;
  traces: number;
  /** Per span, in encoding order: byte offsets of its trace id, span id and parent id (-1: root). */
  traceIdAt: Int32Array;
  spanIdAt: Int32Array;
  parentIdAt: Int32Array;
  /** Per span: index of its trace, and of its parent span (-1: root, -2: a span of an earlier request). */
  traceOf: Int32Array;
  parentOf: Int32Array;
  /** Per trace: its number of spans. */
  traceSpans: Int32Array;
}

export interface PayloadOptions {
  /** Spans per request (e.g. 512), split into traces of `spansPerTrace` (the last may be shorter). */
  spansPerPayload: number;
  spansPerTrace: number;
  seed: number;
  /** Sizes of the large attributes (default `2k`). */
  size?: SpanSize;
  /**
   * A later request of a long trace: no root span, every span's parent is the root of an earlier
   * request (stamped by {@link stampInto}). Use with spansPerTrace >= spansPerPayload.
   */
  continuation?: boolean;
}

type AnyValue = { stringValue: string } | { intValue: number } | { doubleValue: number } | { boolValue: boolean } | { arrayValue: { values: AnyValue[] } };
const str = (v: string): AnyValue => ({ stringValue: v });
const int = (v: number): AnyValue => ({ intValue: v });
const kv = (attrs: Record<string, AnyValue>) => Object.entries(attrs).map(([key, value]) => ({ key, value }));
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
const msg = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });

/** JSON of `wrap(content)` with filler content sized so the whole text is `bytes` long. */
function fit(size: SpanSize, bytes: number, seed: number, wrap: (content: string) => unknown): AnyValue {
  const overhead = JSON.stringify(wrap('')).length;
  return str(JSON.stringify(wrap(sizedText(size, Math.max(0, bytes - overhead), seed))));
}

const MODELS = ['gpt-4o', 'claude-sonnet-4', 'gemini-2.5-pro'];
const TOOLS = ['search_knowledge_base', 'get_order_status', 'create_ticket', 'lookup_customer'];

function agentSpanAttrs(seed: number, size: SpanSize): Record<string, AnyValue> {
  return {
    'gen_ai.operation.name': str('invoke_agent'),
    'gen_ai.agent.name': str('support-bot'),
    'gen_ai.agent.id': str(`agent-${seed % 7}`),
    'gen_ai.conversation.id': str(`conv-${seed}`),
    'gen_ai.provider.name': str('openai'),
    'gen_ai.request.model': str(MODELS[seed % MODELS.length]),
    'user.id': str(`u${seed % 1000}`),
    'session.id': str(`s${seed % 5000}`),
    'gen_ai.input.messages': fit(size, size.input(seed), seed, (c) => [msg('user', c)]),
    'gen_ai.output.messages': fit(size, size.output(seed), seed + 3, (c) => [msg('assistant', c)]),
  };
}

function chatSpanAttrs(seed: number, size: SpanSize): Record<string, AnyValue> {
  const model = MODELS[seed % MODELS.length];
  return {
    'gen_ai.operation.name': str('chat'),
    'gen_ai.provider.name': str('openai'),
    'gen_ai.request.model': str(model),
    'gen_ai.response.model': str(`${model}-2025-01-01`),
    'gen_ai.response.id': str(`chatcmpl-${seed}`),
    'gen_ai.request.temperature': { doubleValue: 0.2 },
    'gen_ai.response.finish_reasons': { arrayValue: { values: [str('stop')] } },
    'gen_ai.usage.input_tokens': int(400 + (seed % 3000)),
    'gen_ai.usage.output_tokens': int(50 + (seed % 800)),
    'gen_ai.input.messages': fit(size, size.input(seed), seed, (c) => [msg('system', 'You are a helpful support agent.'), msg('user', c)]),
    'gen_ai.output.messages': fit(size, size.output(seed), seed + 7, (c) => [{ ...msg('assistant', c), finish_reason: 'stop' }]),
  };
}

function toolSpanAttrs(seed: number, size: SpanSize): Record<string, AnyValue> {
  return {
    'gen_ai.operation.name': str('execute_tool'),
    'gen_ai.tool.name': str(TOOLS[seed % TOOLS.length]),
    'gen_ai.tool.type': str('function'),
    'gen_ai.tool.call.id': str(`call_${seed}`),
    'gen_ai.tool.description': str('Looks things up for the support agent'),
    'gen_ai.agent.name': str('support-bot'),
    'gen_ai.conversation.id': str(`conv-${seed}`),
    'gen_ai.tool.call.arguments': fit(size, size.input(seed), seed, (c) => ({ query: c, top_k: 5 })),
    'gen_ai.tool.call.result': fit(size, size.output(seed), seed + 11, (c) => ({ results: [c] })),
    'code.function.name': str('tools.lookup'),
  };
}

const RESOURCE = kv({
  'service.name': str('support-bot'),
  'service.version': str('1.4.2'),
  'service.instance.id': str('bench-0'),
  'deployment.environment.name': str('bench'),
  'telemetry.sdk.name': str('opentelemetry'),
  'telemetry.sdk.language': str('python'),
  'telemetry.sdk.version': str('1.38.0'),
  'host.name': str('bench-host'),
});

/** One template: spans built as plain objects, encoded with protobufjs, id offsets located. */
export function buildPayload(opts: PayloadOptions): PayloadTemplate {
  const now = Date.now();
  const size = opts.size ?? spanSize();
  const external = randomBytes(8); // placeholder parent of a continuation's spans
  const traceIds: Buffer[] = [];
  const spanIds: Buffer[] = [];
  const traceOf: number[] = [];
  const parentOf: number[] = [];
  const spans: object[] = [];
  for (let s = 0; s < opts.spansPerPayload; s++) {
    const pos = (s % opts.spansPerTrace) + (opts.continuation ? 1 : 0); // position in its trace; 0 is the root
    const seed = opts.seed * 100_003 + s;
    if (s % opts.spansPerTrace === 0) traceIds.push(randomBytes(16));
    const t = traceIds.length - 1;
    const root = s - (s % opts.spansPerTrace);
    spanIds.push(randomBytes(8));
    traceOf.push(t);
    parentOf.push(opts.continuation ? -2 : pos === 0 ? -1 : root);
    const step = Math.min(200, 50_000 / opts.spansPerTrace); // ms between spans: a trace fits in the last minute
    const start = now - 60_000 + pos * step;
    const kind = pos === 0 ? 'agent' : pos % 2 === 1 ? 'chat' : 'tool';
    const error = kind === 'tool' && seed % 50 === 0;
    spans.push({
      traceId: traceIds[t],
      spanId: spanIds[s],
      parentSpanId: opts.continuation ? external : pos === 0 ? undefined : spanIds[root],
      name:
        kind === 'agent' ? 'invoke_agent support-bot' : kind === 'chat' ? `chat ${MODELS[seed % MODELS.length]}` : `execute_tool ${TOOLS[seed % TOOLS.length]}`,
      kind: kind === 'chat' ? 3 : 1, // CLIENT for model calls, INTERNAL otherwise
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(pos === 0 ? start + opts.spansPerTrace * step : start + step * 0.75),
      attributes: kv(kind === 'agent' ? agentSpanAttrs(seed, size) : kind === 'chat' ? chatSpanAttrs(seed, size) : toolSpanAttrs(seed, size)),
      status: error ? { code: 2, message: 'tool timed out' } : { code: 1 },
    });
  }
  const { ExportTraceServiceRequest } = protoTypes();
  const request = {
    resourceSpans: [
      { resource: { attributes: RESOURCE }, scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' }, spans }] },
    ],
  };
  const bytes = Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());

  // Spans are encoded in order, each starting with trace_id (1), span_id (2), then parent_span_id (4).
  const n = spans.length;
  const traceIdAt = new Int32Array(n);
  const spanIdAt = new Int32Array(n);
  const parentIdAt = new Int32Array(n).fill(-1);
  let at = 0;
  const find = (id: Buffer, tag: number) => {
    at = bytes.indexOf(id, at);
    if (at < 2 || bytes[at - 2] !== tag || bytes[at - 1] !== id.length) throw new Error('bench payload: id not found where expected');
    return at;
  };
  for (let s = 0; s < n; s++) {
    traceIdAt[s] = find(traceIds[traceOf[s]], 0x0a);
    spanIdAt[s] = find(spanIds[s], 0x12);
    if (parentOf[s] !== -1) parentIdAt[s] = find(parentOf[s] === -2 ? external : spanIds[parentOf[s]], 0x22);
  }
  const traceSpans = new Int32Array(traceIds.length);
  for (const t of traceOf) traceSpans[t]++;
  return {
    bytes,
    spans: n,
    traces: traceIds.length,
    traceIdAt,
    spanIdAt,
    parentIdAt,
    traceOf: Int32Array.from(traceOf),
    parentOf: Int32Array.from(parentOf),
    traceSpans,
  };
}

export function buildPool(size: number, opts: Omit<PayloadOptions, 'seed'>): PayloadTemplate[] {
  return Array.from({ length: size }, (_, seed) => buildPayload({ ...opts, seed }));
}

/** What the OTLP scenarios send: `poolSize` templates of `spansPerPayload` spans of `spanSize`. */
export interface PayloadShape {
  poolSize: number;
  spansPerPayload: number;
  spansPerTrace: number;
  /** A preset of lib.ts SPAN_SIZES. */
  spanSize: string;
}

const pools = new Map<string, PayloadTemplate[]>();

/** The pool of this shape, built (and encoded) once per process. */
export function cachedPool(shape: PayloadShape): PayloadTemplate[] {
  const key = `${shape.poolSize}/${shape.spansPerPayload}/${shape.spansPerTrace}/${shape.spanSize}`;
  let pool = pools.get(key);
  if (!pool) {
    const t = performance.now();
    pool = buildPool(shape.poolSize, { spansPerPayload: shape.spansPerPayload, spansPerTrace: shape.spansPerTrace, size: spanSize(shape.spanSize) });
    pools.set(key, pool);
    console.log(
      JSON.stringify({
        phase: 'otlp-encode',
        payloads: pool.length,
        spans_per_payload: shape.spansPerPayload,
        bytes_per_span: bytesPerSpan(pool),
        ms: Math.round(performance.now() - t),
      }),
    );
  }
  return pool;
}

/** Average encoded bytes per span of a pool. */
export function bytesPerSpan(pool: PayloadTemplate[]): number {
  return Math.round(pool.reduce((n, p) => n + p.bytes.length, 0) / pool.reduce((n, p) => n + p.spans, 0));
}

/**
 * A copy of the template with fresh random trace and span ids; `traceId` is its first trace's, in
 * hex, `traces` every trace's id with its span count.
 */
export function stamp(tpl: PayloadTemplate): { bytes: Buffer; traceId: string; traces: Array<{ id: string; spans: number }> } {
  const ids = randomBytes(16 * tpl.traces + 8 * tpl.spans);
  const out = Buffer.allocUnsafe(tpl.bytes.length);
  tpl.bytes.copy(out);
  const spanBase = 16 * tpl.traces;
  for (let s = 0; s < tpl.spans; s++) {
    const t = tpl.traceOf[s] * 16;
    ids.copy(out, tpl.traceIdAt[s], t, t + 16);
    ids.copy(out, tpl.spanIdAt[s], spanBase + s * 8, spanBase + s * 8 + 8);
    const p = tpl.parentOf[s];
    if (p >= 0) ids.copy(out, tpl.parentIdAt[s], spanBase + p * 8, spanBase + p * 8 + 8);
  }
  const traces = Array.from({ length: tpl.traces }, (_, t) => ({ id: ids.subarray(t * 16, t * 16 + 16).toString('hex'), spans: tpl.traceSpans[t] }));
  return { bytes: out, traceId: traces[0].id, traces };
}

/**
 * One request of a long trace: every span gets `traceId` and a fresh span id, except the
 * template's root (first request), which gets `rootSpanId`; every parent is `rootSpanId`.
 */
export function stampInto(tpl: PayloadTemplate, traceId: Buffer, rootSpanId: Buffer): Buffer {
  const ids = randomBytes(8 * tpl.spans);
  const out = Buffer.from(tpl.bytes);
  for (let s = 0; s < tpl.spans; s++) {
    traceId.copy(out, tpl.traceIdAt[s]);
    if (tpl.parentOf[s] === -1) rootSpanId.copy(out, tpl.spanIdAt[s]);
    else {
      ids.copy(out, tpl.spanIdAt[s], s * 8, s * 8 + 8);
      rootSpanId.copy(out, tpl.parentIdAt[s]);
    }
  }
  return out;
}
