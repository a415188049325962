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
 * Re-derives the trace rows of the given (project, trace) keys from all their stored spans and
 * their latest explicit header. Runs after every write of those traces, so trace fields are
 * right whatever order spans arrive in; sums read the newest row per span, so a re-sent span
 * never counts twice. Tokens and LLM calls count generation spans only (see docs/conventions.md).
 */
export const DERIVE_TRACES = `
INSERT INTO agent_eval.traces (project_id, trace_id, name, status, start_time, end_time, duration_ms,
  total_input_tokens, total_output_tokens, tool_call_count, llm_call_count, span_count, error_count, attributes, version)
WITH
  s AS (
    SELECT project_id, trace_id, 1 AS has_s,
      min(start_time) AS s_start, max(end_time) AS s_end,
      argMinIf(name, start_time, parent_span_id = '') AS root_name,
      argMin(name, start_time) AS first_name,
      argMinIf(resource_attributes, start_time, parent_span_id = '') AS root_resource,
      sumIf(input_tokens, span_type = 'generation') AS in_tokens,
      sumIf(output_tokens, span_type = 'generation') AS out_tokens,
      countIf(span_type = 'tool') AS tools,
      countIf(span_type = 'generation') AS llms,
      count() AS spans,
      countIf(status = 'error') AS errors
    FROM (${LATEST_SPANS})
    GROUP BY project_id, trace_id
  ),
  h AS (
    SELECT project_id, trace_id, 1 AS has_h, name AS h_name, status AS h_status,
      start_time AS h_start, duration_ms AS h_duration, attributes AS h_attributes
    FROM agent_eval.trace_headers
    WHERE project_id IN {projects:Array(String)} AND trace_id IN {traces:Array(String)}
    ORDER BY ingested_at DESC
    LIMIT 1 BY project_id, trace_id
  )
SELECT
  project_id,
  trace_id,
  if(has_h = 1 AND h_name != '', h_name, if(root_name != '', root_name, first_name)),
  if(errors > 0 OR h_status = 'error', 'error', 'ok'),
  multiIf(has_s = 1 AND has_h = 1, least(s_start, h_start), has_s = 1, s_start, h_start) AS t_start,
  greatest(if(has_s = 1, s_end, t_start), if(has_h = 1, h_start + toIntervalMillisecond(h_duration), t_start)) AS t_end,
  toUInt64(greatest(0, dateDiff('millisecond', t_start, t_end))),
  in_tokens,
  out_tokens,
  tools,
  llms,
  spans,
  errors,
  mapUpdate(root_resource, h_attributes),
  now64(6)
FROM s FULL OUTER JOIN h USING (project_id, trace_id)
WHERE has({keys:Array(String)}, concat(project_id, '/', trace_id))`;

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
