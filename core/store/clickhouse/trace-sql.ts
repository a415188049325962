/**
 * SQL of the trace tables. Values are always bound ({name:Type}); the only text spliced in is
 * from the fixed fragments below.
 */

const LATEST_SPANS = `
  SELECT project_id, trace_id, span_id, parent_span_id, name, span_type, status, start_time, end_time,
         input_tokens, output_tokens, resource_attributes
  FROM agent_eval.spans
  WHERE project_id IN {projects:Array(String)} AND trace_id IN {traces:Array(String)}
  ORDER BY ingested_at DESC
  LIMIT 1 BY project_id, trace_id, span_id`;

/**
 * Per-trace aggregates of the stored spans of the given traces, newest row per span, so a
 * re-sent span never counts twice. Tokens and LLM calls count generation spans only.
 */
export const SPAN_AGGREGATES = `
SELECT project_id, trace_id,
  toUnixTimestamp64Milli(min(start_time)) AS start_ms,
  toUnixTimestamp64Milli(max(end_time)) AS end_ms,
  argMinIf(name, start_time, parent_span_id = '') AS root_name,
  argMin(name, start_time) AS first_name,
  argMinIf(resource_attributes, start_time, parent_span_id = '') AS root_resource,
  sumIf(input_tokens, span_type = 'generation') AS input_tokens,
  sumIf(output_tokens, span_type = 'generation') AS output_tokens,
  countIf(span_type = 'tool') AS tool_calls,
  countIf(span_type = 'generation') AS llm_calls,
  count() AS spans,
  countIf(status = 'error') AS errors
FROM (${LATEST_SPANS})
GROUP BY project_id, trace_id`;

/** The newest explicit header of each of the given traces. */
export const LATEST_HEADERS = `
SELECT project_id, trace_id, name, status, toUnixTimestamp64Milli(start_time) AS start_ms, duration_ms, attributes
FROM agent_eval.trace_headers
WHERE project_id IN {projects:Array(String)} AND trace_id IN {traces:Array(String)}
ORDER BY ingested_at DESC
LIMIT 1 BY project_id, trace_id`;

const TRACE_COLUMNS = `trace_id, name, status, start_time, end_time, duration_ms, span_count, error_count,
  total_input_tokens, total_output_tokens, tool_call_count, llm_call_count, attributes`;

export const GET_TRACE = `
SELECT ${TRACE_COLUMNS}
FROM agent_eval.traces
WHERE project_id = {project:String} AND trace_id = {trace:String}
ORDER BY version DESC
LIMIT 1`;

export const GET_TRACE_SPANS = `
SELECT * EXCEPT (project_id, ingested_at)
FROM agent_eval.spans
WHERE project_id = {project:String} AND trace_id = {trace:String}
ORDER BY ingested_at DESC
LIMIT 1 BY span_id`;

export const GET_SPAN = `
SELECT * EXCEPT (project_id, ingested_at)
FROM agent_eval.spans
WHERE project_id = {project:String} AND span_id = {span:String}
ORDER BY ingested_at DESC
LIMIT 1`;

/** Filters of GET /api/traces, by name; each binds its own parameter. */
export const TRACE_FILTERS = {
  status: 'status = {status:String}',
  name: 'positionCaseInsensitiveUTF8(name, {name:String}) > 0',
  startTime: "start_time >= {startTime:DateTime64(3, 'UTC')}",
  endTime: "start_time <= {endTime:DateTime64(3, 'UTC')}",
} as const;

/** The newest version of every trace of a project, filtered, newest first, with the filtered total. */
export function listTracesSql(filters: Array<keyof typeof TRACE_FILTERS>): string {
  const where = filters.length ? `WHERE ${filters.map((f) => TRACE_FILTERS[f]).join(' AND ')}` : '';
  return `
SELECT ${TRACE_COLUMNS}, count() OVER () AS total
FROM (
  SELECT ${TRACE_COLUMNS}
  FROM agent_eval.traces
  WHERE project_id = {project:String}
  ORDER BY version DESC
  LIMIT 1 BY trace_id
)
${where}
ORDER BY start_time DESC, trace_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
}

export function countTracesSql(filters: Array<keyof typeof TRACE_FILTERS>): string {
  const where = filters.length ? `WHERE ${filters.map((f) => TRACE_FILTERS[f]).join(' AND ')}` : '';
  return `
SELECT count() AS total
FROM (
  SELECT ${TRACE_COLUMNS} FROM agent_eval.traces WHERE project_id = {project:String}
  ORDER BY version DESC LIMIT 1 BY trace_id
)
${where}`;
}
