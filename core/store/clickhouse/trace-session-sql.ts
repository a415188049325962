import { TRACE_COST } from './trace-stats-sql.js';
import { mergedStates, traceStateRows } from './trace-state-rows.js';

/**
 * SQL of the sessions (migration 009; contract: core/store/trace-sessions.ts). A session is the set of a
 * project's traces whose merged summary names it; everything else is folded from those traces'
 * summaries at read time. Values are always bound ({name:Type}); only the fixed fragments below
 * are spliced in.
 */

/** Conditions on a trace_stats row before the states merge: which traces are read at all. */
const SESSION_ROWS = {
  one: 'session_id = {session:String}',
  page: 'session_id IN {sessions:Array(String)}',
} as const;

/** A trace failed: an error span, or the JSON body's header says so. */
const FAILED = "toUInt8(span_error = 1 OR header_status = 'error') AS failed";

/**
 * Every trace that names a session, with only what orders and filters sessions (ids, times, the
 * error flag): the page over every session. Stored rows are read as stored (trace-state-rows.ts).
 */
const ALL_SESSION_TRACES = `(
  SELECT trace_id, session_id, user_id, start_time, end_time, ${FAILED}
  FROM ${traceStateRows(['session_id', 'user_id', 'start_time', 'end_time', 'span_error', 'header_status'])}
  WHERE session_id != ''
)`;

/** Each trace of the chosen sessions, its states merged, with what a session sums (tokens, cost, the name): the sessions shown. */
function sessionTraces(rows: keyof typeof SESSION_ROWS): string {
  return `(
  SELECT
    trace_id,
    session_id,
    user_id,
    start_time,
    end_time,
    ${FAILED},
    arraySum(stats.3) AS input_tokens,
    arraySum(stats.4) AS output_tokens,
    ${TRACE_COST} AS cost,
    if(header_name != '', header_name, root_span.4) AS name
  FROM (
    SELECT
      trace_id,
      ${mergedStates(['session_id', 'user_id', 'start_time', 'end_time', 'span_error', 'header_status', 'header_name', 'root_span'], ',\n      ')},
      maxMap(span_stats) AS stats,
      maxMap(span_costs) AS costs
    FROM agent_eval.trace_stats
    WHERE project_id = {project:String}
      AND trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND ${SESSION_ROWS[rows]})
    GROUP BY trace_id
  )
  WHERE ${rows === 'page' ? SESSION_ROWS.page : "session_id != ''"}
)`;
}

/**
 * Per session and score name: the mean of each trace's latest score of that name, and how many
 * traces have one. The traces are those naming a session of {sessions} (`scope` 'given') or any
 * session, of the score {scoreName} only ('named'); each trace counts for the session its merged
 * summary names. Scores of a whole session (session_id set, migration 010) are not a trace's.
 */
function sessionScoresSql(scope: 'given' | 'named'): string {
  const rows = scope === 'given' ? 'session_id IN {sessions:Array(String)}' : "session_id != ''";
  const ids = `SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND ${rows}`;
  return `
SELECT t.session_id AS session_id, s.name AS name, avg(s.value) AS mean, count() AS traces
FROM (
  SELECT trace_id, name, argMax(value, created_at) AS value
  FROM agent_eval.scores
  WHERE project_id = {project:String} AND trace_id IN (${ids}) AND session_id = ''${scope === 'named' ? ' AND name = {scoreName:String}' : ''}
  GROUP BY trace_id, name
) AS s
INNER JOIN (
  SELECT trace_id, max(session_id) AS session_id
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND trace_id IN (${ids})
  GROUP BY trace_id
) AS t ON s.trace_id = t.trace_id
WHERE ${scope === 'given' ? 't.session_id IN {sessions:Array(String)}' : "t.session_id != ''"}
GROUP BY session_id, name`;
}

/** The score means of the sessions in {sessions}, by session and name. */
export const SESSION_SCORES = `${sessionScoresSql('given')}
ORDER BY session_id, name`;

/**
 * Scores of the sessions in {sessions} as a whole (online session rules'): per session, rule and
 * name, the latest (aliases apart from the columns, which the WHERE reads). Each was written under the trace of the session's last turn, so the sessions'
 * traces find them through the table's key.
 */
export const SESSION_LEVEL_SCORES = `
SELECT
  session_id,
  name,
  attributes['agent_eval.online_rule_id'] AS rule_id,
  argMax(score_id, created_at) AS latest_id,
  argMax(trace_id, created_at) AS latest_trace,
  argMax(value, created_at) AS latest_value,
  argMax(reason, created_at) AS latest_reason,
  argMax(attributes, created_at) AS attrs,
  toUnixTimestamp64Milli(max(created_at)) AS created_ms
FROM agent_eval.scores
WHERE project_id = {project:String}
  AND trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND session_id IN {sessions:Array(String)})
  AND session_id IN {sessions:Array(String)}
GROUP BY session_id, name, rule_id
ORDER BY session_id, name, rule_id`;

/** Sessions whose own latest score of {scoreName} (over every rule's) is below {scoreBelow}. */
const SESSION_LEVEL_BELOW = `session_id IN (
    SELECT session_id FROM agent_eval.scores
    WHERE project_id = {project:String} AND session_id != '' AND name = {scoreName:String}
    GROUP BY session_id
    HAVING argMax(value, created_at) < {scoreBelow:Float64})`;

/** Filters of GET /api/sessions over a session's folded values; each binds its own parameter. */
export const SESSION_FILTERS = {
  userId: 'countIf(user_id = {userId:String}) > 0',
  startTime: "max(end_time) >= {startTime:DateTime64(3, 'UTC')}",
  endTime: "min(start_time) <= {endTime:DateTime64(3, 'UTC')}",
  hasErrors: '(countIf(failed = 1) > 0) = {hasErrors:UInt8}',
  // The session's mean of that score over its turns, as SESSION_SCORES computes it, or its own score of that name.
  scoreBelow: `(session_id IN (SELECT session_id FROM (${sessionScoresSql('named')}) WHERE mean < {scoreBelow:Float64}) OR ${SESSION_LEVEL_BELOW})`,
} as const;
export type SessionFilter = keyof typeof SESSION_FILTERS;

const SESSION_COLUMNS = `
  session_id,
  count() AS trace_count,
  toUnixTimestamp64Milli(min(start_time)) AS start_ms,
  toUnixTimestamp64Milli(max(end_time)) AS end_ms,
  countIf(failed = 1) AS error_count,
  sum(input_tokens) AS total_input_tokens,
  sum(output_tokens) AS total_output_tokens,
  if(countIf(cost IS NOT NULL) > 0, sum(cost), NULL) AS total_cost,
  arraySort(groupUniqArrayIf(5)(user_id, user_id != '')) AS user_ids,
  argMin(name, (start_time, trace_id)) AS first_trace_name`;

/** Sessions that sort after the cursor's (latest activity first, then session id descending). */
const AFTER_CURSOR = '(end_ms, session_id) < ({cursorEnd:Int64}, {cursorSession:String})';

/**
 * One page of the project's session ids, newest activity first, with how many the filters match:
 * from the cheap states of every session's traces only (SESSION_FOLD then folds the page's
 * sessions whole). One extra row tells whether another page follows.
 */
export function sessionPageSql(filters: SessionFilter[], withCursor: boolean): string {
  const having = filters.length ? `HAVING ${filters.map((f) => SESSION_FILTERS[f]).join(' AND ')}` : '';
  return `
SELECT session_id, toUnixTimestamp64Milli(max(end_time)) AS end_ms, count() OVER () AS total
FROM ${ALL_SESSION_TRACES}
GROUP BY session_id
${having}
${withCursor ? `QUALIFY ${AFTER_CURSOR}` : ''}
ORDER BY end_ms DESC, session_id DESC
LIMIT {limit:UInt32}`;
}

/** The number of sessions the filters match, for a page past the end (no row carries the window count). */
export function sessionCountSql(filters: SessionFilter[]): string {
  const having = filters.length ? `HAVING ${filters.map((f) => SESSION_FILTERS[f]).join(' AND ')}` : '';
  return `SELECT count() AS total FROM (SELECT session_id FROM ${ALL_SESSION_TRACES} GROUP BY session_id ${having})`;
}

/** The sessions of {sessions} folded whole (a page's), in no order. */
export const SESSION_FOLD = `
SELECT ${SESSION_COLUMNS}
FROM ${sessionTraces('page')}
GROUP BY session_id`;

/** One session folded, and its trace ids oldest first (one more than the bound, to tell it was cut). */
export const SESSION_ONE = `
SELECT ${SESSION_COLUMNS},
  arraySlice(arrayMap(t -> t.2, arraySort(groupArray((start_time, trace_id)))), 1, {maxTraces:UInt32}) AS trace_ids
FROM ${sessionTraces('one')}
GROUP BY session_id`;

/**
 * The input and output of each given trace's root span (its earliest, newest version), cut to {cap} code points.
 * The cut texts take other names: an alias is visible in its whole SELECT, and the lengths are of the stored texts.
 */
export const TURN_TEXTS = `
SELECT
  trace_id,
  substringUTF8(input, 1, {cap:UInt32}) AS input_text,
  substringUTF8(output, 1, {cap:UInt32}) AS output_text,
  lengthUTF8(input) > {cap:UInt32} AS input_truncated,
  lengthUTF8(output) > {cap:UInt32} AS output_truncated
FROM agent_eval.spans
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)} AND parent_span_id = ''
ORDER BY trace_id, start_time, span_id, ingested_at DESC
LIMIT 1 BY trace_id`;
