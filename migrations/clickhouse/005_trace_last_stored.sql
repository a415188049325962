-- When a trace was last written, by the store's clock (docs/online-evals.md, "Delay and the
-- watermark"). Online rules scan traces in the order they reach the store, not in the order they
-- ended by their spans' clocks: a trace that arrives late (an exporter that held it back, a Kafka
-- ingester far behind, a client clock behind the server's) is still after a rule's watermark
-- when it lands. The view stamps each write with now64(3) where the insert runs; max keeps the
-- latest, so any number of writers converge. Rows stored before this migration read as their
-- trace's end (the DEFAULT), which is when they were at the latest written as far as anyone knows.
ALTER TABLE agent_eval.trace_stats ADD COLUMN IF NOT EXISTS last_stored SimpleAggregateFunction(max, DateTime64(3, 'UTC')) DEFAULT max_end;

-- 0 for rows that do not carry the trace's data (a cost recompute's new states): they leave
-- last_stored as it was, so repricing old traces does not present them to online rules again.
ALTER TABLE agent_eval.trace_stats_input ADD COLUMN IF NOT EXISTS stored UInt8 DEFAULT 1;

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
    maxMap(span_costs) AS span_costs,
    max(if(stored = 1, now64(3, 'UTC'), toDateTime64(0, 3, 'UTC'))) AS last_stored
FROM agent_eval.trace_stats_input
GROUP BY project_id, trace_id;
