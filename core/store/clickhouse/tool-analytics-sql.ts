import { TOOL_NAME_KEYS } from '../../scoring/trajectory/span-tree.js';
import { newestSpanRows } from './newest-span-rows.js';

/**
 * SQL of the tool analytics (GET /api/analytics/tools, docs/api.md "Analytics"). Values are always
 * bound ({name:Type}); only the fixed fragments below are spliced in. As the other analytics
 * reads, each span is read in its newest row (`newestSpanRows`: FINAL after the PREWHERE) and each
 * score once (`LIMIT 1 BY score_id`).
 */

const TIME = "DateTime64(3, 'UTC')";

/** A tool span, as the span tree reads one (span-tree.ts): span type or component type `tool`. */
const IS_TOOL = "(span_type = 'tool' OR component_type = 'tool')";

/** The tool's name: the first non-empty attribute of TOOL_NAME_KEYS, else the span's name (as SpanNode.toolName). */
export const TOOL_NAME = `arrayFirst(v -> v != '', [${TOOL_NAME_KEYS.map((k) => `attributes['${k}']`).join(', ')}, name])`;

/** A failed tool call, as the `toolErrors` scorer counts one: status error or attribute `tool_status: error`. */
const TOOL_FAILED = "toUInt8(status = 'error' OR attributes['tool_status'] = 'error')";

/**
 * The tool spans of `where` (conditions on the span rows), newest tool row of each: trace, tool
 * name, failed, duration. Rows are narrowed to tool rows first (two LowCardinality columns), so the
 * attribute maps of the other spans are never read: a span re-sent as another type keeps counting
 * as its last tool version. Every condition is PREWHERE, so the maps are read only for the rows
 * that pass all of them (ClickHouse on its own moved fewer: 60 against 47 ms over 24 hours of
 * 100,000 traces, docs/benchmarks.md).
 */
function toolSpans(where: string): string {
  return `(
  ${newestSpanRows(`trace_id, ${TOOL_NAME} AS tool, ${TOOL_FAILED} AS failed, duration_ms`, `project_id = {project:String} AND ${IS_TOOL} AND ${where}`)}
)`;
}

/**
 * Per tool over the tool spans that started in [{from}, {to}): calls, failures, latency
 * quantiles (exact, as component health's), traces (by a 64-bit hash of their id, as the list's
 * total counts them). The most called first; {limit} rows at most,
 * each carrying the window's totals (tools and calls) for the truncation flag.
 */
export const TOOL_CALLS_SQL = `
SELECT
  tool,
  count() AS calls,
  sum(failed) AS errors,
  quantilesExactInclusive(0.5, 0.95)(duration_ms) AS latency,
  uniqExact(cityHash64(trace_id)) AS traces,
  count() OVER () AS tools,
  sum(count()) OVER () AS all_calls
FROM ${toolSpans(`start_time >= {from:${TIME}} AND start_time < {to:${TIME}}`)}
GROUP BY tool
ORDER BY calls DESC, tool
LIMIT {limit:UInt32}`;

/**
 * The tool whose arguments a `toolCalls` reason names as its first mismatch ('' for any other
 * reason): strict mode's "call N (tool) differs: ...", unordered and superset's "expected call N
 * (tool) was not made; the closest, call M, differs: ..." (core/scoring/trajectory/tool-calls.ts).
 * A wrong tool at a position ("call N is x, expected y"), a missing or extra call, a forbidden tool
 * are not argument mismatches.
 */
export const MISMATCH_PATTERN = String.raw`^(?:strict: call \d+|(?:unordered|superset): expected call \d+) \((.+?)\) (?:differs|was not made; the closest, call \d+, differs): `;

/**
 * Per tool over the `toolCalls` scores created in [{from}, {to}): how many scored a trace that
 * called it (or whose mismatch names it), and how many of those name its arguments as the first
 * mismatch. Only the tools in {tools} (the page of TOOL_CALLS_SQL).
 */
export const TOOL_MISMATCH_SQL = `
SELECT tool, count() AS scored, countIf(tool = mismatch) AS mismatched
FROM (
  SELECT s.mismatch AS mismatch, t.tools AS tools
  FROM (
    SELECT score_id, trace_id, extract(reason, {pattern:String}) AS mismatch
    FROM agent_eval.scores
    WHERE project_id = {project:String} AND scorer_name = 'toolCalls' AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}
    ORDER BY created_at DESC
    LIMIT 1 BY score_id
  ) AS s
  LEFT JOIN (
    SELECT trace_id, groupUniqArray(tool) AS tools
    FROM ${toolSpans(`trace_id IN (
      SELECT trace_id FROM agent_eval.scores
      WHERE project_id = {project:String} AND scorer_name = 'toolCalls' AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}})`)}
    GROUP BY trace_id
  ) AS t ON s.trace_id = t.trace_id
)
ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', arrayPushBack(tools, mismatch))) AS tool
WHERE tool IN {tools:Array(String)}
GROUP BY tool`;

/** How many `toolCalls` scores were created in [{from}, {to}) (each once). */
export const TOOL_SCORES_SQL = `
SELECT uniqExact(score_id) AS n
FROM agent_eval.scores
WHERE project_id = {project:String} AND scorer_name = 'toolCalls' AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}`;
