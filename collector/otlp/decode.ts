import type { Attributes, RawSpan, RawSpanEvent, RawSpanStatus } from '../../core/model/raw-span.js';
import { keyValuesToAttrs } from './any-value.js';
import { OtlpDecodeError, within } from './errors.js';
import { asList, asNode, asString, enumNumber, field, nanosToMs, SPAN_ID_BYTES, toHexId, TRACE_ID_BYTES } from './scalars.js';

// Span.SpanKind and Status.StatusCode (trace.proto), indexed by their numeric values. Kind 0 is
// SPAN_KIND_UNSPECIFIED: the API has no such kind, so it decodes to "not given".
const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

function decodeStatus(value: unknown): RawSpanStatus {
  const node = asNode(value, 'status');
  // An absent status means STATUS_CODE_UNSET (trace.proto, Span.status).
  if (!node) return { code: 'unset' };
  const code = enumNumber(node.code, STATUS_CODES, 'STATUS_CODE_');
  const status: RawSpanStatus = { code: code === 1 ? 'ok' : code === 2 ? 'error' : 'unset' };
  const message = asString(node.message, 'message');
  if (message) status.message = message;
  return status;
}

function decodeEvent(value: unknown): RawSpanEvent {
  const node = asNode(value, 'event') ?? {};
  return {
    name: asString(node.name, 'name'),
    timeMs: nanosToMs(field(node, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
    attributes: within('attributes', () => keyValuesToAttrs(node.attributes)),
  };
}

interface SpanContext {
  resource: Attributes;
  scope: { name: string; version: string };
}

function decodeSpan(value: unknown, context: SpanContext): RawSpan {
  const node = asNode(value, 'span') ?? {};
  const traceId = toHexId(field(node, 'traceId', 'trace_id'), 'traceId', TRACE_ID_BYTES);
  const spanId = toHexId(field(node, 'spanId', 'span_id'), 'spanId', SPAN_ID_BYTES);
  const parent = toHexId(field(node, 'parentSpanId', 'parent_span_id'), 'parentSpanId', SPAN_ID_BYTES);
  const kind = enumNumber(node.kind, SPAN_KINDS, 'SPAN_KIND_');
  const span: RawSpan = {
    traceId: traceId.hex,
    spanId: spanId.hex,
    // A root span has an empty parent_span_id (trace.proto).
    parentSpanId: parent.hex === '' ? null : parent.hex,
    name: asString(node.name, 'name'),
    startTimeMs: nanosToMs(field(node, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
    endTimeMs: nanosToMs(field(node, 'endTimeUnixNano', 'end_time_unix_nano'), 'endTimeUnixNano'),
    attributes: within('attributes', () => keyValuesToAttrs(node.attributes)),
    events: asList(node.events, 'events').map((e, i) => within(`events[${i}]`, () => decodeEvent(e))),
    status: within('status', () => decodeStatus(node.status)),
    resource: context.resource,
    scope: context.scope,
  };
  if (kind !== undefined && kind > 0 && kind < SPAN_KINDS.length) span.kind = SPAN_KINDS[kind].toLowerCase();
  // An id of the wrong size refuses this span only (ingest answers it in partial_success).
  const problem = traceId.problem ?? spanId.problem ?? parent.problem;
  if (problem) span.decodeProblem = problem;
  return span;
}

function decodeScope(value: unknown): SpanContext['scope'] {
  const node = asNode(value, 'scope') ?? {};
  return { name: asString(node.name, 'name'), version: asString(node.version, 'version') };
}

function decodeResourceSpans(value: unknown, out: RawSpan[]): void {
  const node = asNode(value, 'ResourceSpans') ?? {};
  const resourceNode = asNode(node.resource, 'resource');
  const resource = resourceNode ? within('resource.attributes', () => keyValuesToAttrs(resourceNode.attributes)) : {};
  // Senders predating OTLP 0.15 used instrumentation_library_spans / instrumentation_library (JSON only;
  // protobuf field 1000 is reserved).
  const scopeKey = field(node, 'scopeSpans', 'scope_spans') !== undefined ? 'scopeSpans' : 'instrumentationLibrarySpans';
  const scopeSpans = asList(field(node, scopeKey, scopeKey === 'scopeSpans' ? 'scope_spans' : 'instrumentation_library_spans'), scopeKey);
  scopeSpans.forEach((item, i) =>
    within(`${scopeKey}[${i}]`, () => {
      const ss = asNode(item, 'ScopeSpans') ?? {};
      const scope = within('scope', () => decodeScope(field(ss, 'scope') ?? field(ss, 'instrumentationLibrary', 'instrumentation_library')));
      const context: SpanContext = { resource, scope };
      const spans = asList(ss.spans, 'spans');
      for (let k = 0; k < spans.length; k++) out.push(within(`spans[${k}]`, () => decodeSpan(spans[k], context)));
    }),
  );
}

/**
 * An ExportTraceServiceRequest as a tree of objects (parsed OTLP/JSON, or a protobufjs-decoded
 * message; binary requests are read straight off the wire by decode-protobuf.ts) ->
 * the convention-agnostic spans, in request order (the order partial_success indexes refer to).
 * Each span carries its ResourceSpans' resource attributes and its ScopeSpans' scope.
 * Throws {@link OtlpDecodeError} when a field has a type OTLP does not allow.
 */
export function requestToRawSpans(request: unknown): RawSpan[] {
  const node = asNode(request, 'ExportTraceServiceRequest');
  if (!node) throw new OtlpDecodeError('expected an ExportTraceServiceRequest object');
  const out: RawSpan[] = [];
  const list = asList(field(node, 'resourceSpans', 'resource_spans'), 'resourceSpans');
  list.forEach((rs, i) => within(`resourceSpans[${i}]`, () => decodeResourceSpans(rs, out)));
  return out;
}

/** OTLP/JSON ExportTraceServiceRequest (`application/json`, UTF-8) -> spans. */
export function decodeJsonRequest(body: Uint8Array | string): RawSpan[] {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    // A UTF-8 byte order mark is legal before JSON text but JSON.parse rejects it.
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new OtlpDecodeError(`invalid JSON: ${(err as Error).message}`, '', { cause: err });
  }
  return requestToRawSpans(parsed);
}
