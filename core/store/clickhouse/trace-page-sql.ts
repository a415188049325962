import { MISSING_KEY, type TraceSort } from '../../model/trace-sort.js';
import type { TraceStateColumnName } from './trace-state-rows.js';
import { filteredTraces, type TraceFilter } from './trace-stats-sql.js';

/**
 * A page of GET /api/traces: trace ids in the list's order (core/model/trace-sort.ts) with the
 * count of traces the filters match. Newest first reads only the cheap merged states; other orders
 * merge what their key needs (the end, the costs, the span stats) or join the scores.
 */

const TIME = "DateTime64(3, 'UTC')";
const NEWEST: TraceSort = { by: 'time', order: 'desc' };

/** Each key but time: the summary columns it reads and its value (a number at or above 0, or NULL when the trace has none). */
const KEYS: Record<Exclude<TraceSort['by'], 'time'>, { columns: TraceStateColumnName[] | null; value: string }> = {
  duration: { columns: ['end_time'], value: "toFloat64(greatest(0, dateDiff('millisecond', start_time, end_time)))" },
  cost: { columns: ['cost'], value: 'cost' },
  tokens: { columns: ['tokens'], value: 'toFloat64(tokens)' },
  score: { columns: null, value: 'sort_score.value' },
};

/** The latest value of the sorted score per trace, joined to the filtered traces (NULL when a trace has none). */
const SCORE_JOIN = `LEFT JOIN (
  SELECT trace_id, toNullable(argMax(value, created_at)) AS value
  FROM agent_eval.scores
  WHERE project_id = {project:String} AND name = {sortScore:String}
  GROUP BY trace_id
) AS sort_score ON sort_score.trace_id = traces.trace_id`;

/**
 * One page of a project's trace ids in the sort's order (ties by trace id the same way), with
 * the number of traces the filters match (before the cursor). Only the merged states the filters
 * and the key need are read; the page's summaries come from TRACE_SUMMARIES. One extra row tells
 * whether another page follows. Binds `cursorStart` (time) or `cursorKey`, and `cursorTrace`.
 */
export function tracePageSql(filters: TraceFilter[], withCursor: boolean, sort: TraceSort = NEWEST): string {
  const dir = sort.order === 'desc' ? 'DESC' : 'ASC';
  const after = sort.order === 'desc' ? '<' : '>';
  if (sort.by === 'time') {
    return `
SELECT trace_id, toUnixTimestamp64Milli(start_time) AS start_ms, 0 AS sort_key, count() OVER () AS total
FROM ${filteredTraces(filters)}
${withCursor ? `QUALIFY (start_time, trace_id) ${after} ({cursorStart:${TIME}}, {cursorTrace:String})` : ''}
ORDER BY start_time ${dir}, trace_id ${dir}
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
  }
  const key = KEYS[sort.by];
  const from =
    key.columns === null
      ? `(SELECT * FROM ${filteredTraces(filters)}) AS traces\n${SCORE_JOIN}`
      : `(SELECT * FROM ${filteredTraces(filters, key.columns)}) AS traces`;
  return `
SELECT traces.trace_id AS trace_id, toUnixTimestamp64Milli(start_time) AS start_ms, ifNull(${key.value}, ${MISSING_KEY[sort.order]}) AS sort_key, count() OVER () AS total
FROM ${from}
${withCursor ? `QUALIFY (sort_key, trace_id) ${after} ({cursorKey:Float64}, {cursorTrace:String})` : ''}
ORDER BY sort_key ${dir}, trace_id ${dir}
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
}

/**
 * The newest page with no filter, without merging every trace of the project (tracePageSql must,
 * to learn each trace's start): a trace's start is the least `min_start` of its summary rows, so
 * every trace that started after the {candidates}-th newest row has a row among those rows. Step
 * one, this query: the project's {candidates} newest summary rows (before the cursor's
 * start, when there is one). Step two, newestPageSql: the merged starts of those rows' traces,
 * keeping the traces that started after the oldest of the rows (`threshold`; all of them when the
 * rows were every row there is), in the list's order. Those are the newest traces, exactly; when
 * they are too few for the page, the caller asks again with more rows.
 */
export function newestCandidateRowsSql(withCursor: boolean): string {
  return `
SELECT trace_id, toString(min_start) AS row_start
FROM agent_eval.trace_stats
WHERE project_id = {project:String}${withCursor ? ` AND min_start <= {cursorStart:${TIME}}` : ''}
ORDER BY min_start DESC
LIMIT {candidates:UInt32}`;
}

/** Step two of {@link newestCandidateRowsSql}: binds {traces} (the rows' trace ids) and, unless `complete`, {threshold}. */
export function newestPageSql(withCursor: boolean, complete: boolean): string {
  const where = [
    ...(complete ? [] : [`start_time > {threshold:${TIME}}`]),
    ...(withCursor ? [`(start_time, trace_id) < ({cursorStart:${TIME}}, {cursorTrace:String})`] : []),
  ];
  return `
SELECT trace_id, toUnixTimestamp64Milli(start_time) AS start_ms, 0 AS sort_key
FROM (
  SELECT trace_id, min(min_start) AS start_time
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  GROUP BY trace_id
)${
    where.length
      ? `
WHERE ${where.join(' AND ')}`
      : ''
  }
ORDER BY start_time DESC, trace_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;
}

/**
 * The number of a project's traces, for the newest page (which carries no count). Distinct trace ids
 * by a 64-bit hash, as `uniqExact` of the ids themselves costs twice as much at 1M traces; two ids
 * share a hash with a chance of about n^2 / 2^65 (3e-8 at a million traces).
 */
export const PROJECT_TRACE_COUNT = `SELECT uniqExact(cityHash64(trace_id)) AS total FROM agent_eval.trace_stats WHERE project_id = {project:String}`;

/**
 * The number of traces the filters match, for a page past the end (no row carries the window
 * count). With no filter, the project's count as the newest page gives it, so the bare list says
 * one total on every page.
 */
export function traceCountSql(filters: TraceFilter[]): string {
  return filters.length === 0 ? PROJECT_TRACE_COUNT : `SELECT count() AS total FROM ${filteredTraces(filters)}`;
}

/**
 * A text's words for a preview: of a chat (a JSON list of messages) the last message of `role`
 * (its content when that is text, else the message), of one message its content, else the text.
 */
const chatText = (col: string, role: string) => `multiIf(
    length(arrayFilter(m -> JSONExtractString(m, 'role') = '${role}', JSONExtractArrayRaw(${col}))) > 0,
      arrayLast(m -> JSONExtractString(m, 'role') = '${role}', JSONExtractArrayRaw(${col})),
    ${col})`;
const contentOf = (message: string) => `if(JSONExtractString(${message}, 'content') != '', JSONExtractString(${message}, 'content'), ${message})`;

/**
 * The first characters of the given root spans' input and output (each trace's span that names it:
 * trace_stats' `root`, as TRACE_SUMMARIES gives its id), any stored version: of a chat, the last
 * user message and the last assistant message. Binds the roots as two lists, {traces} and {spans},
 * pair by pair; only those spans are read.
 */
export const ROOT_PREVIEWS = `
SELECT trace_id,
  any(substringUTF8(${contentOf(chatText('input', 'user'))}, 1, {chars:UInt32})) AS input,
  any(substringUTF8(${contentOf(chatText('output', 'assistant'))}, 1, {chars:UInt32})) AS output
FROM agent_eval.spans
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  AND (trace_id, span_id) IN arrayZip({traces:Array(String)}, {spans:Array(String)})
GROUP BY trace_id`;
