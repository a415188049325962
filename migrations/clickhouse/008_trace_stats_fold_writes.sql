-- The write's summaries fold straight into trace_stats (issue "performance, third pass": "the
-- trace summary without its Null-table hop"). Since 007 a write's summary rows went write_rows ->
-- trace_stats_from_writes -> trace_stats_input (Null) -> trace_stats_from_input -> trace_stats:
-- two views, each with a fixed cost per insert (~2.8 ms of CPU however few its rows:
-- docs/benchmarks.md, "One insert per write: where its time goes"). This view does both steps in
-- one: the JSON read into the summary's fields (as trace_stats_from_writes did) and their fold
-- into the states (as trace_stats_from_input does, whose SELECT it repeats over those fields).
-- trace_stats_input and its view stay: cost recomputes and backfills insert there.
--
-- Created before the old view is dropped, so no insert passes between the two unfolded; an insert
-- that runs while both exist folds its summaries twice, which changes nothing (every state is
-- idempotent: min, max, maxMap keyed by span id, argMax by the insert's time).
CREATE MATERIALIZED VIEW IF NOT EXISTS agent_eval.trace_stats_fold_writes TO agent_eval.trace_stats AS
WITH
    JSONExtract(stats, 'Tuple(min_start Int64, max_end Int64, has_error UInt8, root Tuple(UInt8, Int64, String, String, String), span_stats Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64)), header UInt8, header_name String, header_status String, header_attributes Map(String, String), span_costs Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))), stored UInt8)') AS s,
    if(tupleElement(s, 'header') = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC')) AS header_at
SELECT
    project_id,
    trace_id,
    min(fromUnixTimestamp64Milli(tupleElement(s, 'min_start'), 'UTC')) AS min_start,
    max(fromUnixTimestamp64Milli(tupleElement(s, 'max_end'), 'UTC')) AS max_end,
    max(tupleElement(s, 'has_error')) AS has_error,
    min(if(JSONHas(stats, 'root'),
        (tupleElement(tupleElement(s, 'root'), 1), fromUnixTimestamp64Milli(tupleElement(tupleElement(s, 'root'), 2), 'UTC'), tupleElement(tupleElement(s, 'root'), 3), tupleElement(tupleElement(s, 'root'), 4), tupleElement(tupleElement(s, 'root'), 5)),
        (255, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'), '', '', '{}'))) AS root,
    maxMap(tupleElement(s, 'span_stats')) AS span_stats,
    argMaxState(tupleElement(s, 'header_name'), header_at) AS header_name,
    argMaxState(tupleElement(s, 'header_status'), header_at) AS header_status,
    argMaxState(tupleElement(s, 'header_attributes'), header_at) AS header_attributes,
    maxMap(tupleElement(s, 'span_costs')) AS span_costs,
    max(if(if(JSONHas(stats, 'stored'), tupleElement(s, 'stored'), 1) = 1, now64(3, 'UTC'), toDateTime64(0, 3, 'UTC'))) AS last_stored
FROM agent_eval.write_rows
WHERE stats != ''
GROUP BY project_id, trace_id;

DROP VIEW IF EXISTS agent_eval.trace_stats_from_writes;
