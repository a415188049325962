import { randomBytes } from 'node:crypto';
import { otlpTypes } from '../collector/otlp/proto.js';
import { text } from './lib.js';

/**
 * Pre-encoded OTLP ExportTraceServiceRequest payloads shaped like GenAI agent runs (OTel GenAI
 * semantic conventions): per trace an `invoke_agent` root, then alternating `chat` LLM spans and
 * `execute_tool` spans with 1-4 KB message / argument / result attributes.
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
  /** Per span: index of its trace, and of its parent span (-1: root). */
  traceOf: Int32Array;
  parentOf: Int32Array;
}

export interface PayloadOptions {
  /** Spans per request (e.g. 512), split into traces of `spansPerTrace` (the last may be shorter). */
  spansPerPayload: number;
  spansPerTrace: number;
  seed: number;
}

type AnyValue = { stringValue: string } | { intValue: number } | { doubleValue: number } | { boolValue: boolean } | { arrayValue: { values: AnyValue[] } };
const str = (v: string): AnyValue => ({ stringValue: v });
const int = (v: number): AnyValue => ({ intValue: v });
const kv = (attrs: Record<string, AnyValue>) => Object.entries(attrs).map(([key, value]) => ({ key, value }));
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
const msg = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });

const MODELS = ['gpt-4o', 'claude-sonnet-4', 'gemini-2.5-pro'];
const TOOLS = ['search_knowledge_base', 'get_order_status', 'create_ticket', 'lookup_customer'];

function agentSpanAttrs(seed: number): Record<string, AnyValue> {
  return {
    'gen_ai.operation.name': str('invoke_agent'),
    'gen_ai.agent.name': str('support-bot'),
    'gen_ai.agent.id': str(`agent-${seed % 7}`),
    'gen_ai.conversation.id': str(`conv-${seed}`),
    'gen_ai.provider.name': str('openai'),
    'gen_ai.request.model': str(MODELS[seed % MODELS.length]),
    'user.id': str(`u${seed % 1000}`),
    'session.id': str(`s${seed % 5000}`),
    'gen_ai.input.messages': str(JSON.stringify([msg('user', text(512, seed))])),
    'gen_ai.output.messages': str(JSON.stringify([msg('assistant', text(512, seed + 3))])),
  };
}

function chatSpanAttrs(seed: number): Record<string, AnyValue> {
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
    'gen_ai.input.messages': str(JSON.stringify([msg('system', 'You are a helpful support agent.'), msg('user', text(1024 + (seed % 4) * 1024, seed))])),
    'gen_ai.output.messages': str(JSON.stringify([{ ...msg('assistant', text(1024 + (seed % 2) * 1024, seed + 7)), finish_reason: 'stop' }])),
  };
}

function toolSpanAttrs(seed: number): Record<string, AnyValue> {
  return {
    'gen_ai.operation.name': str('execute_tool'),
    'gen_ai.tool.name': str(TOOLS[seed % TOOLS.length]),
    'gen_ai.tool.type': str('function'),
    'gen_ai.tool.call.id': str(`call_${seed}`),
    'gen_ai.tool.description': str('Looks things up for the support agent'),
    'gen_ai.agent.name': str('support-bot'),
    'gen_ai.conversation.id': str(`conv-${seed}`),
    'gen_ai.tool.call.arguments': str(JSON.stringify({ query: text(1024 + (seed % 2) * 1024, seed), top_k: 5 })),
    'gen_ai.tool.call.result': str(JSON.stringify({ results: [text(1024 + (seed % 4) * 1024, seed + 11)] })),
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
  const traceIds: Buffer[] = [];
  const spanIds: Buffer[] = [];
  const traceOf: number[] = [];
  const parentOf: number[] = [];
  const spans: object[] = [];
  for (let s = 0; s < opts.spansPerPayload; s++) {
    const pos = s % opts.spansPerTrace; // position in its trace; 0 is the root
    const seed = opts.seed * 100_003 + s;
    if (pos === 0) traceIds.push(randomBytes(16));
    const t = traceIds.length - 1;
    const root = s - pos;
    spanIds.push(randomBytes(8));
    traceOf.push(t);
    parentOf.push(pos === 0 ? -1 : root);
    const start = now - 60_000 + pos * 200;
    const kind = pos === 0 ? 'agent' : pos % 2 === 1 ? 'chat' : 'tool';
    const error = kind === 'tool' && seed % 50 === 0;
    spans.push({
      traceId: traceIds[t],
      spanId: spanIds[s],
      parentSpanId: pos === 0 ? undefined : spanIds[root],
      name: kind === 'agent' ? 'invoke_agent support-bot' : kind === 'chat' ? `chat ${MODELS[seed % MODELS.length]}` : `execute_tool ${TOOLS[seed % TOOLS.length]}`,
      kind: kind === 'chat' ? 3 : 1, // CLIENT for model calls, INTERNAL otherwise
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(pos === 0 ? start + opts.spansPerTrace * 200 : start + 150),
      attributes: kv(kind === 'agent' ? agentSpanAttrs(seed) : kind === 'chat' ? chatSpanAttrs(seed) : toolSpanAttrs(seed)),
      status: error ? { code: 2, message: 'tool timed out' } : { code: 1 },
    });
  }
  const { ExportTraceServiceRequest } = otlpTypes();
  const request = {
    resourceSpans: [{ resource: { attributes: RESOURCE }, scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' }, spans }] }],
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
    if (parentOf[s] >= 0) parentIdAt[s] = find(spanIds[parentOf[s]], 0x22);
  }
  return { bytes, spans: n, traces: traceIds.length, traceIdAt, spanIdAt, parentIdAt, traceOf: Int32Array.from(traceOf), parentOf: Int32Array.from(parentOf) };
}

export function buildPool(size: number, opts: Omit<PayloadOptions, 'seed'>): PayloadTemplate[] {
  return Array.from({ length: size }, (_, seed) => buildPayload({ ...opts, seed }));
}

/** A copy of the template with fresh random trace and span ids; `traceId` is its first trace's, in hex. */
export function stamp(tpl: PayloadTemplate): { bytes: Buffer; traceId: string } {
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
  return { bytes: out, traceId: ids.subarray(0, 16).toString('hex') };
}
