import { toClickHouseTime } from './time.js';
import { USE_TRACE_ID_BLOOM } from './trace-id-bloom.js';
import { costOf, mergedStates, rowStates, TRACE_STATE_PARAMS, traceStateRows, type TraceStateColumnName } from './trace-state-rows.js';
/**
 * SQL over `trace_stats` (migrations/clickhouse/002): per-trace aggregate states, merged at read
 * time. Values are always bound ({name:Type}); the only text spliced in is from the fixed
 * fragments below.
 */

/** The summary columns every list reads: enough to filter, sort and name a trace. */
const LISTED: readonly TraceStateColumnName[] = ['start_time', 'span_error', 'header_name', 'header_status', 'root_span'];

const NAME = `if(header_name != '', header_name, root_span.4)`;

/**
 * A trace's cost from its merged `span_costs` (migrations/clickhouse/004): per generation span its
 * newest (priced at, total, priced) tuple. NULL when no span of the trace is priced.
 */
export const TRACE_COST = costOf('costs');

/** Generation spans of the trace the price table could not price. */
export const UNPRICED_CALLS = 'arrayCount(v -> v.3 = 0, costs.2)';
const STATUS = `if(span_error = 1 OR header_status = 'error', 'error', 'ok')`;

/** The summary columns a trace's summary reads, as its states merge them (trace-state-rows.ts). */
const SUMMARY_STATES: readonly TraceStateColumnName[] = [...LISTED, 'end_time', 'header_attributes', 'session_id', 'user_id'];

/**
 * What a summary needs of a trace's `span_stats` and `span_costs` (merged, or one row's): each
 * span's flags (1 stored, 2 error, 4 tool, 8 generation; the map is keyed by span id, so every count
 * is of distinct spans), the token sums, and the generations' cost sum and priced flags.
 */
function spanTotals(stats: string, costs: string): string {
  return [
    `tupleElement(${stats}, 2) AS span_flags`,
    `arraySum(tupleElement(${stats}, 3)) AS total_input_tokens`,
    `arraySum(tupleElement(${stats}, 4)) AS total_output_tokens`,
    `arraySum(tupleElement(tupleElement(${costs}, 2), 2)) AS cost_sum`,
    `tupleElement(tupleElement(${costs}, 2), 3) AS cost_priced`,
  ].join(',\n  ');
}

/**
 * The summaries of the given traces as their states (trace-summary-row.ts TraceRow, which derives
 * name, status, counts, cost and attributes from them): one row per trace, its rows merged by
 * GROUP BY. The root's resource attributes ride in `root` as JSON; the newest header's attributes
 * update them.
 */
export const TRACE_SUMMARIES = `
SELECT
  trace_id,
  ${mergedStates(SUMMARY_STATES, ',\n  ')},
  ${spanTotals('maxMap(span_stats)', 'maxMap(span_costs)')}
FROM agent_eval.trace_stats
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
GROUP BY trace_id`;

/**
 * {@link TRACE_SUMMARIES} of one trace ({traces} holds its id): `FINAL` merges its rows as the
 * table's merges do, in key order as it reads; the PREWHERE is on the key alone, so every row of
 * the trace is in the merge, as the GROUP BY has them. For one trace it is as fast or faster (at
 * 1M traces in one part: p50 16 against 29 ms; in 21 parts: 19.6 against 19.7, p95 29 against
 * 32); for the 50 of a list page it is slower (137 against 84 ms in 21 parts), each trace's key
 * range merged on its own (docs/benchmarks.md, "Newest rows by FINAL").
 */
export const TRACE_SUMMARY = `
SELECT
  trace_id,
  ${rowStates(SUMMARY_STATES, ',\n  ')},
  ${spanTotals('span_stats', 'span_costs')}
FROM agent_eval.trace_stats FINAL
PREWHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
${USE_TRACE_ID_BLOOM}`;

/**
 * The summaries of the traces `ids` names (a subquery) with every field derived in SQL, under the
 * API's names: for the bulk export (export-sql.ts), whose rows ClickHouse formats itself. The reads
 * derive the same fields in TypeScript from {@link TRACE_SUMMARIES}' states
 * (trace-summary-row.ts); test/integration/trace-summary-row.test.ts holds the two equal.
 */
export function traceSummariesSql(ids: string): string {
  return `
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
  ${TRACE_COST} AS total_cost,
  ${UNPRICED_CALLS} AS unpriced_llm_call_count,
  mapUpdate(JSONExtract(root_span.5, 'Map(String, String)'), header_attributes) AS attributes,
  session_id,
  user_id
FROM (
  SELECT
    trace_id,
    ${mergedStates(SUMMARY_STATES, ',\n    ')},
    maxMap(span_stats) AS stats,
    maxMap(span_costs) AS costs
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND trace_id IN ${ids}
  GROUP BY trace_id
)`;
}

/**
 * The attributes that carry a trace's tags, in every convention that has them: OpenInference
 * `tag.tags`, Langfuse `langfuse.trace.tags`, the Vercel AI SDK's metadata `tags`, and `tags` (the
 * SPEC body's trace or span attributes). A value holds the tag when it is the tag, a JSON list
 * holding it (an OTel string-list attribute is stored so), or a comma-separated list holding it.
 */
export const TAG_KEYS = ['tag.tags', 'langfuse.trace.tags', 'ai.telemetry.metadata.tags', 'tags'] as const;
const hasTag = (map: string) =>
  `arrayExists(v -> v != '' AND (v = {tag:String} OR has(JSONExtract(v, 'Array(String)'), {tag:String}) OR has(arrayMap(x -> trimBoth(x), splitByChar(',', v)), {tag:String})), [${TAG_KEYS.map((k) => `${map}['${k}']`).join(', ')}])`;

/**
 * A trace's source (core/model/trace.ts TRACE_SOURCES) by the keys the service's own traces carry
 * (online-scan-sql.ts NOT_SERVICE_TRACES reads the same): in the merged header attributes (the run
 * workflow's and the online judges' JSON bodies), or for an evaluation on a root span's attributes
 * (the SDK's `evaluate()` traces, sent over OTLP). The root spans are read once, as a set.
 */
export const TRACE_SOURCE = `multiIf(
    mapContains(header_attributes, 'agent_eval.online_rule_id'), 'online-judge',
    mapContains(header_attributes, 'agent_eval.run_id') OR trace_id IN (
      SELECT trace_id FROM agent_eval.spans
      WHERE project_id = {project:String} AND parent_span_id = '' AND mapContains(attributes, 'agent_eval.run_id')), 'evaluation',
    'production')`;

/** Filters of GET /api/traces over a trace's merged states, by name; each binds its own parameter. */
export const TRACE_FILTERS = {
  status: `${STATUS} = {status:String}`,
  name: `positionCaseInsensitiveUTF8(${NAME}, {name:String}) > 0`,
  startTime: "start_time >= {startTime:DateTime64(3, 'UTC')}",
  endTime: "start_time <= {endTime:DateTime64(3, 'UTC')}",
  minDurationMs: "dateDiff('millisecond', start_time, end_time) >= {minDurationMs:UInt64}",
  hasErrors: 'span_error = {hasErrors:UInt8}',
  // Name and id over every trace; span contents by the ids the search window found ({@link SPAN_SEARCH}).
  search: `(positionCaseInsensitiveUTF8(${NAME}, {search:String}) > 0 OR positionCaseInsensitiveUTF8(trace_id, {search:String}) > 0 OR trace_id IN {searchHits:Array(String)})`,
  // A span's attributes, or the trace attributes of the JSON body (merged: `header_attributes`, read only with this filter).
  tag: `(${hasTag('header_attributes')} OR trace_id IN (SELECT trace_id FROM agent_eval.spans WHERE project_id = {project:String} AND ${hasTag('attributes')}))`,
  traceSource: `${TRACE_SOURCE} = {traceSource:String}`,
} as const;

/** Filters that read the merged `header_attributes` (merged only for them). */
const HEADER_FILTERS: readonly string[] = ['tag', 'traceSource'];

/**
 * Filters by what other tables hold, as sets of trace ids: applied to trace_stats rows before they
 * are merged (the primary key (project_id, trace_id) then skips what is not in the set).
 */
const SET_FILTERS = {
  // The trace's latest score of that name (as review queues' `score_below`, docs/feedback.md).
  scoreBelow: `trace_id IN (
    SELECT trace_id FROM agent_eval.scores
    WHERE project_id = {project:String} AND name = {scoreName:String}
    GROUP BY trace_id
    HAVING argMax(value, created_at) < {scoreBelow:Float64})`,
  // Session and user ids (migration 009) are found before the states merge: any write of the trace names them.
  sessionId: `trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND session_id = {sessionId:String})`,
  userId: `trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND user_id = {userId:String})`,
  // The resource of a write's earliest span rides in its `root` (as JSON): the service's environment.
  environment: `trace_id IN (
    SELECT trace_id FROM agent_eval.trace_stats
    WHERE project_id = {project:String}
      AND {environment:String} IN (JSONExtractString(root.5, 'deployment.environment.name'), JSONExtractString(root.5, 'deployment.environment')))`,
} as const;

/** Span-level filters: the trace has a span with this model / component type (each may be another span). */
const SPAN_CONDITIONS = {
  model: 'model = {model:String}',
  componentType: 'component_type = {componentType:String}',
} as const;

export const TRACE_FILTER_NAMES = [...Object.keys(TRACE_FILTERS), ...Object.keys(SET_FILTERS), ...Object.keys(SPAN_CONDITIONS)] as Array<
  keyof typeof TRACE_FILTERS | keyof typeof SET_FILTERS | keyof typeof SPAN_CONDITIONS
>;
export type TraceFilter = (typeof TRACE_FILTER_NAMES)[number];

/**
 * Parameters the trace and session lists both bind: the project, the page size plus one (one
 * extra row says whether a next page exists) and their shared filters' values (times as
 * ClickHouse's, a flag as 0/1, a score bound as its name and value).
 */
export function listParams(
  projectId: string,
  q: { limit: number; startTime?: Date; endTime?: Date; hasErrors?: boolean; scoreBelow?: { name: string; value: number } },
): Record<string, unknown> {
  return {
    ...TRACE_STATE_PARAMS,
    project: projectId,
    limit: q.limit + 1,
    startTime: q.startTime ? toClickHouseTime(q.startTime.getTime()) : undefined,
    endTime: q.endTime ? toClickHouseTime(q.endTime.getTime()) : undefined,
    hasErrors: q.hasErrors === undefined ? undefined : q.hasErrors ? 1 : 0,
    scoreName: q.scoreBelow?.name,
    scoreBelow: q.scoreBelow?.value,
  };
}

/**
 * The trace ids having spans that meet the span conditions. Reads only the narrow columns of the
 * project's spans (project_id, trace_id, model, component_type: the last two LowCardinality),
 * never inputs or outputs; a `start_time` filter bounds it too, since a trace's spans start at or
 * after the trace does (and spans are partitioned by month of their start).
 */
function spanSet(filters: TraceFilter[]): string | null {
  const conds = (Object.keys(SPAN_CONDITIONS) as Array<keyof typeof SPAN_CONDITIONS>).filter((f) => filters.includes(f)).map((f) => SPAN_CONDITIONS[f]);
  if (conds.length === 0) return null;
  const since = filters.includes('startTime') ? " AND start_time >= {startTime:DateTime64(3, 'UTC')}" : '';
  const from = `FROM agent_eval.spans WHERE project_id = {project:String}${since}`;
  if (conds.length === 1) return `trace_id IN (SELECT trace_id ${from} AND ${conds[0]})`;
  return `trace_id IN (SELECT trace_id ${from} AND (${conds.join(' OR ')}) GROUP BY trace_id HAVING ${conds.map((c) => `countIf(${c}) > 0`).join(' AND ')})`;
}

/**
 * Span names, inputs and outputs of the given traces containing `search` (case-insensitive): the
 * content half of GET /api/traces?search=, over a bounded window of traces. Any stored version of
 * a span counts.
 */
export const SPAN_SEARCH = `
SELECT DISTINCT trace_id
FROM agent_eval.spans
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0
    OR positionCaseInsensitiveUTF8(input, {search:String}) > 0
    OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)`;

/** The latest value per score name (and how many scores of that name) of each given trace. */
export const TRACE_SCORES = `
SELECT trace_id, name, argMax(value, created_at) AS value, uniqExact(score_id) AS count
FROM agent_eval.scores
WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
GROUP BY trace_id, name
ORDER BY trace_id, name`;

/**
 * The project's traces the filters keep, as a FROM clause: one row per trace (trace-state-rows.ts)
 * with the listed columns (trace_id, start_time, ...), the `extra` ones (a sort's:
 * trace-page-sql.ts) and the filters' conditions.
 */
export function filteredTraces(filters: TraceFilter[], extra: readonly TraceStateColumnName[] = []): string {
  const sets = [
    ...(Object.keys(SET_FILTERS) as Array<keyof typeof SET_FILTERS>).filter((f) => filters.includes(f)).map((f) => SET_FILTERS[f]),
    spanSet(filters),
  ].filter((x): x is string => x !== null);
  const states = (Object.keys(TRACE_FILTERS) as Array<keyof typeof TRACE_FILTERS>).filter((f) => filters.includes(f)).map((f) => TRACE_FILTERS[f]);
  const where = states.length ? `WHERE ${states.join(' AND ')}` : '';
  const columns = new Set<TraceStateColumnName>([...LISTED, ...extra]);
  if (filters.includes('minDurationMs')) columns.add('end_time');
  if (filters.some((f) => HEADER_FILTERS.includes(f))) columns.add('header_attributes');
  const since = filters.includes('startTime') ? "{startTime:DateTime64(3, 'UTC')}" : undefined;
  return `${traceStateRows([...columns], { picked: sets, since })} ${where}`;
}
