/**
 * SQL over `trace_stats` (migrations/clickhouse/002): per-trace aggregate states, merged at read
 * time. Values are always bound ({name:Type}); the only text spliced in is from the fixed
 * fragments below.
 */

/** The cheap merged columns: enough to filter, sort and name a trace. */
const CHEAP_STATES = `
    min(min_start) AS start_time,
    max(has_error) AS span_error,
    argMaxMerge(header_name) AS header_name,
    argMaxMerge(header_status) AS header_status,
    min(root) AS root_span`;

const NAME = `if(header_name != '', header_name, root_span.4)`;
const STATUS = `if(span_error = 1 OR header_status = 'error', 'error', 'ok')`;

/**
 * The summaries of the given traces. `span_stats` maps each span id to its flags (1 stored,
 * 2 error, 4 tool, 8 generation) and tokens, so every count is of distinct spans. The root's
 * resource attributes ride in `root` as JSON; the newest header's attributes update them.
 */
export const TRACE_SUMMARIES = `
SELECT
  trace_id,
  ${NAME} AS name,
  ${STATUS} AS status,
  start_time,
  end_time,
  toUInt64(greatest(0, dateDiff('millisecond', start_time, end_time))) AS duration_ms,
  length(stats.1) AS span_count,
  arrayCount(f -> bitAnd(f, 2) != 0, stats.2) AS error_count,
  arraySum(stats.3) AS total_input_tokens,
  arraySum(stats.4) AS total_output_tokens,
  arrayCount(f -> bitAnd(f, 4) != 0, stats.2) AS tool_call_count,
  arrayCount(f -> bitAnd(f, 8) != 0, stats.2) AS llm_call_count,
  mapUpdate(JSONExtract(root_span.5, 'Map(String, String)'), header_attributes) AS attributes
FROM (
  SELECT
    trace_id,${CHEAP_STATES},
    max(max_end) AS end_time,
    argMaxMerge(header_attributes) AS header_attributes,
    maxMap(span_stats) AS stats
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  GROUP BY trace_id
)`;

/** Filters of GET /api/traces, by name; each binds its own parameter. */
export const TRACE_FILTERS = {
  status: `${STATUS} = {status:String}`,
  name: `positionCaseInsensitiveUTF8(${NAME}, {name:String}) > 0`,
  startTime: "start_time >= {startTime:DateTime64(3, 'UTC')}",
  endTime: "start_time <= {endTime:DateTime64(3, 'UTC')}",
} as const;
export type TraceFilter = keyof typeof TRACE_FILTERS;

/** Traces that sort after the cursor's trace (newest first, then trace id descending). */
const AFTER_CURSOR = "(start_time, trace_id) < ({cursorStart:DateTime64(3, 'UTC')}, {cursorTrace:String})";

function filtered(filters: TraceFilter[]): string {
  const where = filters.length ? `WHERE ${filters.map((f) => TRACE_FILTERS[f]).join(' AND ')}` : '';
  return `(
  SELECT trace_id,${CHEAP_STATES}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}
  GROUP BY trace_id
) ${where}`;
}

/**
 * One page of a project's trace ids, newest first, with the number of traces the filters match
 * (before the cursor). Only cheap states are merged here; the page's summaries come from
 * {@link TRACE_SUMMARIES}. One extra row tells whether another page follows.
 */
export function tracePageSql(filters: TraceFilter[], withCursor: boolean): string {
  return `
SELECT trace_id, toUnixTimestamp64Milli(start_time) AS start_ms, count() OVER () AS total
FROM ${filtered(filters)}
${withCursor ? `QUALIFY ${AFTER_CURSOR}` : ''}
ORDER BY start_time DESC, trace_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
}

/** The number of traces the filters match, for a page past the end (no row carries the window count). */
export function traceCountSql(filters: TraceFilter[]): string {
  return `SELECT count() AS total FROM ${filtered(filters)}`;
}
