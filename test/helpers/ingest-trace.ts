/**
 * JSON ingest bodies (POST /api/traces/ingest) for tests and benchmarks, with a span's times given
 * as an offset from a start and a length, the way a test thinks of them, instead of two ISO
 * strings written out at every span.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** A span of the JSON ingest shape without its times: its id, name and type, and any other field as sent. */
export type IngestSpanFields = { span_id: string; name: string; type: string } & Record<string, unknown>;

/** The span `fields`, starting `at` ms after `start` and `ms` long. */
export function spanAt(start: number, at: number, ms: number, fields: IngestSpanFields): Record<string, unknown> {
  return { ...fields, start_time: iso(start + at), end_time: iso(start + at + ms) };
}

/**
 * Spans under the root `${traceId}-root` of a trace that starts at `start`: `child(suffix, at, ms,
 * fields)` is span `${traceId}-${suffix}`, `at` ms after the start and `ms` long.
 */
export function childrenOf(traceId: string, start: number) {
  return (suffix: string, at: number, ms: number, fields: { name: string; type: string } & Record<string, unknown>) =>
    spanAt(start, at, ms, { span_id: `${traceId}-${suffix}`, parent_span_id: `${traceId}-root`, ...fields });
}

export interface IngestTraceOptions {
  name: string;
  /** The trace's start, ms since the epoch. */
  start: number;
  /** The trace's and its root span's length. */
  durationMs: number;
  status?: 'ok' | 'error';
  /** The body's trace attributes; left out when not given. */
  attributes?: Record<string, string>;
  /** The root span: it starts with the trace and lasts as long. */
  root: IngestSpanFields;
  /** The other spans, as `spanAt` gives them. */
  spans?: Array<Record<string, unknown>>;
}

/** A JSON ingest body of trace `id`: its root span, then `spans`. */
export function ingestTrace(id: string, o: IngestTraceOptions) {
  return {
    trace_id: id,
    name: o.name,
    status: o.status ?? 'ok',
    duration_ms: o.durationMs,
    start_time: iso(o.start),
    ...(o.attributes === undefined ? {} : { attributes: o.attributes }),
    spans: [spanAt(o.start, 0, o.durationMs, o.root), ...(o.spans ?? [])],
  };
}
