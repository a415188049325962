import type { Attributes, RawSpan } from '../../core/model/raw-span.js';
import type { TraceHeader } from '../../core/model/span.js';
import type { IngestTrace, SpanInput } from '../../core/model/ingest-body.js';

const CONVENIENCE_FIELDS = ['model', 'input', 'output', 'input_tokens', 'output_tokens'] as const;

/** One span of the JSON body as a RawSpan; `type` becomes the declared kind the `spec` convention reads. */
export function spanInputToRaw(traceId: string, s: SpanInput): RawSpan {
  const declaredFields: Attributes = {};
  for (const field of CONVENIENCE_FIELDS) {
    const value = s[field];
    if (value !== undefined) declaredFields[field] = value;
  }
  return {
    traceId,
    spanId: s.span_id,
    parentSpanId: s.parent_span_id ?? null,
    name: s.name,
    startTimeMs: s.start_time,
    endTimeMs: Math.max(s.end_time ?? s.start_time, s.start_time),
    attributes: s.attributes,
    declaredFields,
    events: [],
    status: s.status ? { code: s.status, message: s.status_message } : { code: 'unset' },
    resource: {},
    scope: { name: 'agent-eval.json-ingest', version: '' },
    declaredType: s.type,
  };
}

/**
 * The JSON ingest body as RawSpans plus the explicit trace header. Without a start_time the
 * trace starts at its earliest span, or ends now when it has no spans.
 */
export function decodeIngestBody(body: IngestTrace, now = Date.now()): { spans: RawSpan[]; header: Omit<TraceHeader, 'project_id'> } {
  const spans = body.spans.map((s) => spanInputToRaw(body.trace_id, s));
  const earliest = spans.length ? Math.min(...spans.map((s) => s.startTimeMs)) : now - body.duration_ms;
  return {
    spans,
    header: {
      trace_id: body.trace_id,
      name: body.name,
      status: body.status,
      start_time: body.start_time ?? earliest,
      duration_ms: Math.round(body.duration_ms),
      attributes: Object.fromEntries(Object.entries(body.attributes).map(([k, v]) => [k, String(v)])),
    },
  };
}
