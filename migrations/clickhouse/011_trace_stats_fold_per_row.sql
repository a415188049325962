-- A write's summaries fold into trace_stats row by row, with no GROUP BY (issue "real traffic
-- stored whole": the one all-or-nothing insert must cost no more than the two inserts before it).
-- The view's GROUP BY built an aggregation for every insert, a fixed ~4-6 ms of CPU however few its
-- rows (docs/benchmarks.md, "The summary fold without its GROUP BY"), to fold what the table's own
-- writer folds anyway: an AggregatingMergeTree merges a block's rows of one key as it writes the
-- part (optimize_on_insert), and every read merges the states of all parts. So each summary row
-- becomes one row of states: the SimpleAggregateFunction columns take the plain value, the argMax
-- columns a one-row state (initializeAggregation). min, max, maxMap and argMax by the insert's
-- time stay what they were: any number of writes in any order converge on the same summary.
ALTER TABLE agent_eval.trace_stats_fold_writes MODIFY QUERY
WITH
    JSONExtract(stats, 'Tuple(min_start Int64, max_end Int64, has_error UInt8, root Tuple(UInt8, Int64, String, String, String), span_stats Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64)), header UInt8, header_name String, header_status String, header_attributes Map(String, String), span_costs Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))), stored UInt8, session_id String, user_id String)') AS s,
    if(tupleElement(s, 'header') = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC')) AS header_at
SELECT
    project_id,
    trace_id,
    fromUnixTimestamp64Milli(tupleElement(s, 'min_start'), 'UTC') AS min_start,
    fromUnixTimestamp64Milli(tupleElement(s, 'max_end'), 'UTC') AS max_end,
    tupleElement(s, 'has_error') AS has_error,
    if(JSONHas(stats, 'root'),
        (tupleElement(tupleElement(s, 'root'), 1), fromUnixTimestamp64Milli(tupleElement(tupleElement(s, 'root'), 2), 'UTC'), tupleElement(tupleElement(s, 'root'), 3), tupleElement(tupleElement(s, 'root'), 4), tupleElement(tupleElement(s, 'root'), 5)),
        (255, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'), '', '', '{}')) AS root,
    tupleElement(s, 'span_stats') AS span_stats,
    initializeAggregation('argMaxState', tupleElement(s, 'header_name'), header_at) AS header_name,
    initializeAggregation('argMaxState', tupleElement(s, 'header_status'), header_at) AS header_status,
    initializeAggregation('argMaxState', tupleElement(s, 'header_attributes'), header_at) AS header_attributes,
    tupleElement(s, 'span_costs') AS span_costs,
    if(if(JSONHas(stats, 'stored'), tupleElement(s, 'stored'), 1) = 1, now64(3, 'UTC'), toDateTime64(0, 3, 'UTC')) AS last_stored,
    tupleElement(s, 'session_id') AS session_id,
    tupleElement(s, 'user_id') AS user_id
FROM agent_eval.write_rows
WHERE stats != '';
