import type { FailureSpan } from '../../failures/root-cause.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

/**
 * The spans failure analysis reads of given traces (core/failures): each span's newest row, only
 * the columns a failing span's path and message need; attribute values are read for error spans
 * only. At most {max_rows} rows (the caller bounds the traces; a trace past the cap is read in part).
 */
export const FAILURE_SPANS_SQL = `
SELECT
  trace_id, span_id, parent_span_id, name, status,
  if(status = 'error', status_message, '') AS status_message,
  toUnixTimestamp64Milli(start_time) AS start_ms,
  if(status = 'error', arrayFirst(v -> v != '', [attributes['exception.type'], attributes['error.type']]), '') AS error_type,
  if(status = 'error', attributes['exception.message'], '') AS error_message
FROM agent_eval.spans
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
ORDER BY ingested_at DESC
LIMIT 1 BY trace_id, span_id
LIMIT {max_rows:UInt32}`;

interface Row {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  status: string;
  status_message: string;
  start_ms: unknown;
  error_type: string;
  error_message: string;
}

/** The failure-analysis columns of the traces' spans, by trace id. */
export async function readFailureSpans(rows: Rows, projectId: string, traceIds: readonly string[], maxRows: number): Promise<Map<string, FailureSpan[]>> {
  const byTrace = new Map<string, FailureSpan[]>();
  if (traceIds.length === 0) return byTrace;
  const list = await rows<Row>(FAILURE_SPANS_SQL, { project: projectId, traces: [...new Set(traceIds)], max_rows: maxRows });
  for (const r of list) {
    const span: FailureSpan = {
      span_id: r.span_id,
      parent_span_id: r.parent_span_id,
      name: r.name,
      error: r.status === 'error',
      message: r.error_message || r.status_message,
      error_type: r.error_type || null,
      start_ms: Number(r.start_ms) || 0,
    };
    const spans = byTrace.get(r.trace_id);
    if (spans) spans.push(span);
    else byTrace.set(r.trace_id, [span]);
  }
  return byTrace;
}
