import { NEWEST_ROW_PER_SPAN, newestSpanRows } from './newest-span-rows.js';

/**
 * SQL of costs over stored spans (docs/costs.md): repricing a window with the current price table
 * (POST /api/admin/recompute-costs) and the cost of a set of traces (runs). Values are always
 * bound ({name:Type}); the only text spliced in comes from the fixed fragments below.
 *
 * Repricing needs the table's prices per model as the spans name them. The matching rules live in
 * TypeScript alone (core/cost/model-name.ts): the caller resolves the window's distinct model
 * names and binds the prices it found as arrays ({models}, {inputPrices}, ...), so SQL only looks
 * a name up by position. The arithmetic is core/cost/span-cost.ts `tokenCost`, step for step.
 */

const TIME = "DateTime64(3, 'UTC')";

/** The newest row of every span of the project that started in [{from}, {to}). */
const WINDOW_LATEST = newestSpanRows(
  'trace_id, span_id, span_type, model, start_time, end_time, input_tokens, output_tokens, cached_input_tokens, attributes, total_cost, cost_version, ingested_at',
  `project_id = {project:String} AND start_time >= {from:${TIME}} AND start_time < {to:${TIME}}`,
);

/**
 * Cached input tokens: the stored count, else (rows stored before the column existed) the first
 * of the attributes ingest reads ({cacheKeys}: CACHED_INPUT_TOKEN_ATTRIBUTES) that holds a count.
 */
const CACHED = `if(cached_input_tokens > 0, cached_input_tokens, toUInt64(if(cached_attr > 0 AND cached_attr = floor(cached_attr) AND cached_attr <= 9007199254740991, cached_attr, 0)))`;
const CACHED_ATTR = `toFloat64OrZero(arrayFirst(v -> v != '', arrayMap(k -> attributes[k], {cacheKeys:Array(String)})))`;

/**
 * The new cost columns of a span row, from its own columns: `price_index` is its model's position
 * in {models} (0: not priced, every cost NULL). Same arithmetic as `tokenCost`.
 */
const REPRICE_COLUMNS = `
  indexOf({models:Array(String)}, model) AS price_index,
  ${CACHED_ATTR} AS cached_attr,
  ${CACHED} AS cached,
  if(cached <= input_tokens, input_tokens - cached, input_tokens) AS uncached,
  if(price_index = 0, NULL, (toFloat64(uncached) * {inputPrices:Array(Float64)}[price_index]) / 1e6) AS new_input_cost,
  if(price_index = 0, NULL, (toFloat64(cached) * {cachedPrices:Array(Float64)}[price_index]) / 1e6) AS new_cached_input_cost,
  if(price_index = 0, NULL, (toFloat64(output_tokens) * {outputPrices:Array(Float64)}[price_index]) / 1e6) AS new_output_cost,
  new_input_cost + new_cached_input_cost + new_output_cost AS new_total_cost,
  if(price_index = 0, '', {version:String}) AS new_cost_version`;

/** Totals differing by less than a trillionth of a dollar are the same (float arithmetic in two languages). */
const COST_CHANGED = `if(new_total_cost IS NULL, total_cost IS NOT NULL, total_cost IS NULL OR abs(assumeNotNull(new_total_cost) - assumeNotNull(total_cost)) > 1e-12)`;

/** The window's generation spans (newest row each) with their new costs and what changed. */
const REPRICED = `(
  SELECT trace_id, span_id, model, start_time, end_time, ingested_at, cached_input_tokens, total_cost, cost_version, ${REPRICE_COLUMNS},
    ${COST_CHANGED} AS cost_changed,
    cost_changed OR new_cost_version != cost_version OR cached != cached_input_tokens AS rewrite
  FROM (${WINDOW_LATEST})
  WHERE span_type = 'generation'
)`;

/** The distinct model names of the window's generation spans, for the caller to resolve. */
export const WINDOW_MODELS = `
SELECT DISTINCT model
FROM agent_eval.spans
WHERE project_id = {project:String} AND start_time >= {from:${TIME}} AND start_time < {to:${TIME}} AND span_type = 'generation'
LIMIT 100000`;

/** What a repricing would change: read before anything is written. */
export const REPRICE_REPORT = `
SELECT
  count() AS examined,
  countIf(rewrite) AS rewritten,
  countIf(cost_changed) AS changed,
  countIf(price_index = 0) AS unpriced,
  uniqExact(trace_id) AS traces,
  topKIf(50)(model, price_index = 0) AS unpriced_models
FROM ${REPRICED}`;

/**
 * The new cost states of the window's traces: every generation span's (priced at, total, priced)
 * with {pricedAt} newer than any earlier pricing, so it wins in trace_stats (migration 004). Min
 * start and max end are the spans' own, which the traces' states already hold; `stored` 0 leaves
 * the traces' last write time as it was (migration 005: online rules do not see them again).
 */
export const REPRICE_TRACE_STATS = `
INSERT INTO agent_eval.trace_stats_input (project_id, trace_id, min_start, max_end, span_costs, stored)
SELECT
  {project:String},
  trace_id,
  min(start_time),
  max(end_time),
  (groupArray(span_id), groupArray(tuple({pricedAt:UInt64}, ifNull(new_total_cost, 0), toUInt8(new_total_cost IS NOT NULL)))),
  0
FROM ${REPRICED}
GROUP BY trace_id`;

/**
 * New versions of the spans whose cost, price version or cached tokens change: the newest row of
 * each copied with the new cost columns and a new `ingested_at`, so reads (newest row per span)
 * and merges (ReplacingMergeTree on ingested_at) take it. Nothing else of the row changes.
 */
export const REPRICE_SPANS = `
INSERT INTO agent_eval.spans
SELECT * EXCEPT (price_index, cached_attr, cached, uncached, new_input_cost, new_cached_input_cost, new_output_cost, new_total_cost, new_cost_version)
  REPLACE (
    cached AS cached_input_tokens,
    new_input_cost AS input_cost,
    new_output_cost AS output_cost,
    new_cached_input_cost AS cached_input_cost,
    new_total_cost AS total_cost,
    new_cost_version AS cost_version,
    now64(6) AS ingested_at
  )
FROM (
  -- One level down, so the new values' names cannot shadow the columns the WHERE compares.
  SELECT *, ${REPRICE_COLUMNS}
  FROM agent_eval.spans
  WHERE project_id = {project:String} AND start_time >= {from:${TIME}} AND start_time < {to:${TIME}}
    AND (trace_id, span_id, ingested_at) IN (SELECT trace_id, span_id, ingested_at FROM ${REPRICED} WHERE rewrite)
)`;

/**
 * Per trace of {traces}: the cost of its generation spans (newest row each), the LLM judges' part
 * (spans with `agent_eval.judge`) and how many were not priced.
 */
export const TRACE_COSTS = `
SELECT
  trace_id,
  sum(ifNull(total_cost, 0)) AS total,
  sumIf(ifNull(total_cost, 0), judge != '') AS judges,
  countIf(total_cost IS NULL) AS unpriced
FROM (
  SELECT trace_id, span_id, span_type, total_cost, attributes['agent_eval.judge'] AS judge
  FROM agent_eval.spans
  WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  ${NEWEST_ROW_PER_SPAN}
)
WHERE span_type = 'generation'
GROUP BY trace_id`;
