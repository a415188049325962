-- What model calls cost (docs/costs.md). The collector prices every generation span at ingest from
-- the versioned price table (core/cost/) and writes the cost with the span: input (uncached),
-- output, cached input and total, in USD, and the table's version. The cost columns are NULL where
-- a span was not priced: not a generation, a model the table does not know, or stored before this
-- migration (POST /api/admin/recompute-costs prices those). Rows written by an older collector
-- (e.g. still in Kafka) leave the columns out and read as NULL / 0 / ''.
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS cached_input_tokens UInt64 DEFAULT 0;
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS input_cost Nullable(Float64);
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS output_cost Nullable(Float64);
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS cached_input_cost Nullable(Float64);
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS total_cost Nullable(Float64);
ALTER TABLE agent_eval.spans ADD COLUMN IF NOT EXISTS cost_version LowCardinality(String) DEFAULT '';

-- A trace's cost as a state like its tokens (migration 002): per generation span id, the tuple
-- (priced at ms, total cost, priced 0/1). maxMap keeps each span's largest tuple, that is its
-- newest pricing, so a recompute that lowers a price replaces the old cost, a re-sent span counts
-- once, and writers in any order converge. Spans whose model is unknown count as (at, 0, 0).
ALTER TABLE agent_eval.trace_stats ADD COLUMN IF NOT EXISTS span_costs SimpleAggregateFunction(maxMap, Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))));
ALTER TABLE agent_eval.trace_stats_input ADD COLUMN IF NOT EXISTS span_costs Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))) DEFAULT ([], []);

-- The view folds the new column too. MODIFY QUERY swaps the view's SELECT in one step, so no
-- insert passes through the Null table unfolded.
ALTER TABLE agent_eval.trace_stats_from_input MODIFY QUERY
SELECT
    project_id,
    trace_id,
    min(min_start) AS min_start,
    max(max_end) AS max_end,
    max(has_error) AS has_error,
    min(root) AS root,
    maxMap(span_stats) AS span_stats,
    argMaxState(header_name, if(header = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC'))) AS header_name,
    argMaxState(header_status, if(header = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC'))) AS header_status,
    argMaxState(header_attributes, if(header = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC'))) AS header_attributes,
    maxMap(span_costs) AS span_costs
FROM agent_eval.trace_stats_input
GROUP BY project_id, trace_id;
