import { MAX_SCATTER_POINTS, type CorrelationMetric } from '../../model/analytics.js';
import { windowTracesSql } from './alert-metrics.js';
import { meanRankSql } from './rank-sql.js';
import { newestSpanRows } from './newest-span-rows.js';

/**
 * SQL of the dashboard's aggregate reads (GET /api/analytics/*). Values are always bound
 * ({name:Type}); the only text spliced in comes from the fixed fragments below. Every read is an
 * aggregate over one project's rows in [{from}, {to}): nothing returns rows one by one but the
 * bounded scatter sample.
 *
 * Each table keeps several versions of a row, and each read takes one per key as the rest of the
 * store does: the newest span row per (trace_id, span_id) among the window's (`FINAL` after a
 * PREWHERE, newest-span-rows.ts), score row per score_id (`ORDER BY ... DESC LIMIT 1 BY`), trace
 * summaries merged from `trace_stats` states.
 */

const TIME = "DateTime64(3, 'UTC')";

/** Quantiles are exact, interpolated linearly between the closest ranks (numpy's default, Excel's PERCENTILE.INC). */
const Q2 = 'quantilesExactInclusive(0.5, 0.95)';
const Q3 = 'quantilesExactInclusive(0.5, 0.95, 0.99)';

/** A row's bucket: the start (epoch seconds) of the {step}-second interval it falls in, aligned to the epoch (UTC). */
const bucket = (column: string) => `toUnixTimestamp(toStartOfInterval(${column}, toIntervalSecond({step:UInt32})))`;

/** Equality filters by the parameter each binds: the condition that its column equals it. */
function equalityFilters<P extends string>(columns: Record<P, string>): Record<P, string> {
  return Object.fromEntries(Object.entries<string>(columns).map(([param, column]) => [param, `${column} = {${param}:String}`])) as Record<P, string>;
}

/** Filters of the span reads. Applied to the newest row of each span. */
const SPAN_FILTERS = equalityFilters({ componentType: 'component_type', model: 'model' });
export type SpanFilter = keyof typeof SPAN_FILTERS;

/** The project's spans that started in the window, newest row of each, narrowed by `filters`. */
function windowSpans(filters: SpanFilter[]): string {
  const where = filters.length ? `WHERE ${filters.map((f) => SPAN_FILTERS[f]).join(' AND ')}` : '';
  return `(
  SELECT component_type, model, toUInt8(status = 'error') AS is_error, duration_ms, input_tokens + output_tokens AS tokens, start_time,
    ifNull(total_cost, 0) AS cost, toUInt8(span_type = 'generation' AND total_cost IS NULL) AS unpriced
  FROM (
    ${newestSpanRows(
      'component_type, model, status, duration_ms, input_tokens, output_tokens, start_time, span_type, total_cost',
      `project_id = {project:String} AND start_time >= {from:${TIME}} AND start_time < {to:${TIME}}`,
    )}
  )
  ${where}
)`;
}

/**
 * Component health: per component type, per model and over all spans (`dim` = 'component_type',
 * 'model', 'all'), in one pass: each span is counted once in each of the three grouping sets
 * (`grouping(c)` is 1 where the set leaves column c out). Grouping sets rather than each span
 * copied three times by an ARRAY JOIN: 141 against 160 ms over a week of 100,000 traces. The
 * empty set gives a row even when no span is in the window: HAVING drops it.
 */
export function componentHealthSql(filters: SpanFilter[]): string {
  return `
SELECT
  multiIf(grouping(model) = 1 AND grouping(component_type) = 0, 'component_type', grouping(component_type) = 1 AND grouping(model) = 0, 'model', 'all') AS dim,
  multiIf(dim = 'component_type', toString(component_type), dim = 'model', toString(model), '') AS key,
  count() AS span_count,
  sum(is_error) AS error_count,
  ${Q2}(duration_ms) AS latency,
  ${Q2}(tokens) AS tok,
  sum(tokens) AS tokens_total,
  sum(cost) AS cost_total,
  sum(unpriced) AS unpriced
FROM ${windowSpans(filters)}
GROUP BY GROUPING SETS ((component_type), (model), ())
HAVING span_count > 0
ORDER BY span_count DESC, key`;
}

/** The per-bucket rows of a metric series plus one row over the whole window (bucket -1). */
function seriesSql(source: string, timeColumn: string): string {
  return `
SELECT
  b AS bucket,
  count() AS n,
  avg(is_error) AS error_rate,
  ${Q3}(duration_ms) AS latency,
  ${Q3}(tokens) AS tok,
  sum(cost) AS cost
FROM ${source}
ARRAY JOIN [toInt64(${bucket(timeColumn)}), toInt64(-1)] AS b
GROUP BY bucket
ORDER BY bucket`;
}

/** Trace latency and tokens per bucket; parameters as alert-metrics' trace window (`status` = 'error'). */
export const TRACE_SERIES = seriesSql(windowTracesSql({}), 'start_time');

/** Span latency and tokens per bucket, narrowed by `filters`. */
export function spanSeriesSql(filters: SpanFilter[]): string {
  return seriesSql(windowSpans(filters), 'start_time');
}

/** Filters of the score reads. */
const SCORE_FILTERS = equalityFilters({ scoreName: 'name', source: 'source' });
export type ScoreFilter = keyof typeof SCORE_FILTERS;

/** The project's scores created in the window, each once (a re-sent score is one row). */
function windowScores(filters: ScoreFilter[]): string {
  const where = filters.map((f) => ` AND ${SCORE_FILTERS[f]}`).join('');
  return `(
  SELECT trace_id, name, value, created_at
  FROM agent_eval.scores
  WHERE project_id = {project:String} AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}${where}
  ORDER BY created_at DESC
  LIMIT 1 BY score_id
)`;
}

/** Score names in the window, most frequent first, with the window's total over all names; {limit} rows at most. */
export function scoreNamesSql(filters: ScoreFilter[]): string {
  return `
SELECT name, count() AS n, avg(value) AS avg, sum(count()) OVER () AS total
FROM ${windowScores(filters)}
GROUP BY name
ORDER BY n DESC, name
LIMIT {limit:UInt32}`;
}

/** Count and mean per (name, bucket) of the names in {names}. */
export function scoreBucketsSql(filters: ScoreFilter[]): string {
  return `
SELECT name, ${bucket('created_at')} AS bucket, count() AS n, avg(value) AS avg
FROM ${windowScores(filters)}
WHERE name IN {names:Array(String)}
GROUP BY name, bucket
ORDER BY name, bucket`;
}

/** A trace's latency (ms) or tokens, from its merged summary columns (as TRACE_SUMMARIES computes them). */
const METRIC: Record<CorrelationMetric, string> = {
  latency: "greatest(0, dateDiff('millisecond', start_time, end_time))",
  tokens: 'arraySum(stats.3) + arraySum(stats.4)',
};

/**
 * Score named {scoreName} (each trace's mean over the window's scores) against the trace's
 * latency or tokens: Pearson's r, Spearman's rho (of mean ranks: rank-sql.ts), means, and a seeded uniform sample of points
 * (the seed is fixed, so the same data gives the same sample).
 */
export function correlationSql(metric: CorrelationMetric): string {
  const scored = `(SELECT trace_id, avg(value) AS score FROM ${windowScores(['scoreName'])} GROUP BY trace_id)`;
  return `
SELECT
  count() AS n,
  corr(score, x) AS pearson,
  corr(score_rank, x_rank) AS spearman,
  avg(score) AS score_mean,
  avg(x) AS metric_mean,
  groupArraySample(${MAX_SCATTER_POINTS}, 1)(tuple(trace_id, score, x)) AS points
FROM (
  SELECT trace_id, score, x, ${meanRankSql('score')} AS score_rank, ${meanRankSql('x')} AS x_rank
  FROM (
  SELECT s.trace_id AS trace_id, s.score AS score, t.x AS x
  FROM ${scored} AS s
  INNER JOIN (
    SELECT trace_id, toFloat64(${METRIC[metric]}) AS x
    FROM (
      SELECT trace_id, min(min_start) AS start_time, max(max_end) AS end_time, maxMap(span_stats) AS stats
      FROM agent_eval.trace_stats
      WHERE project_id = {project:String} AND trace_id IN (SELECT trace_id FROM ${scored})
      GROUP BY trace_id
    )
  ) AS t ON s.trace_id = t.trace_id
  )
)`;
}
