-- One insert per write (core/store/clickhouse/batch-writer.ts). A write stored its span rows in
-- `spans`, then its trace summaries in `trace_stats_input`: two inserts, one after the other, so
-- that a refused span insert left no summary behind (issue "real traffic stored whole"). Waiting
-- for the first before starting the second cost JSON ingest ~30% of its throughput
-- (docs/benchmarks.md, "One insert per write").
--
-- Now a write is one insert into the Null table write_rows: its span rows, then its summary rows,
-- in one TabSeparated body. ClickHouse parses the whole body before either view sees a row, so
-- data it refuses (a value it cannot read) stores nothing in either table; then the two views
-- below take each block apart: span rows into `spans`, summary rows into `trace_stats_input`,
-- whose own view folds them into `trace_stats` as before.
--
-- A span row holds the span's columns and an empty `stats`; a summary row holds its trace's
-- project_id and trace_id (the shard key on a cluster) and the summary as the JSON object
-- trace-stats-rows.ts encodes (the form Kafka messages carry), every other column empty. Column
-- types are the plain forms of `spans`' (String for LowCardinality(String)): parsing a plain
-- String is cheaper, and the view converts as it inserts.
CREATE TABLE IF NOT EXISTS agent_eval.write_rows
(
    project_id String,
    trace_id String,
    span_id String,
    parent_span_id String,
    name String,
    span_type String,
    component_type String,
    convention String,
    kind String,
    status String,
    status_message String,
    start_time DateTime64(3, 'UTC'),
    end_time DateTime64(3, 'UTC'),
    duration_ms UInt64,
    model String,
    input String,
    output String,
    input_tokens UInt64,
    output_tokens UInt64,
    attributes Map(String, String),
    resource_attributes Map(String, String),
    scope_name String,
    scope_version String,
    events String,
    cached_input_tokens UInt64,
    input_cost Nullable(Float64),
    output_cost Nullable(Float64),
    cached_input_cost Nullable(Float64),
    total_cost Nullable(Float64),
    cost_version String,
    stats String
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_eval.spans_from_writes TO agent_eval.spans AS
SELECT
    project_id, trace_id, span_id, parent_span_id, name, span_type, component_type, convention, kind,
    status, status_message, start_time, end_time, duration_ms, model, input, output, input_tokens,
    output_tokens, attributes, resource_attributes, scope_name, scope_version, events,
    cached_input_tokens, input_cost, output_cost, cached_input_cost, total_cost, cost_version
FROM agent_eval.write_rows
WHERE stats = '';

-- The summary's JSON (trace-stats-rows.ts) read into the columns of trace_stats_input. Times are
-- milliseconds since the epoch; `root` absent (a header alone) takes the column's default, which
-- sorts after every span; `stored` absent is 1 (a write of the trace's data).
CREATE MATERIALIZED VIEW IF NOT EXISTS agent_eval.trace_stats_from_writes TO agent_eval.trace_stats_input AS
WITH JSONExtract(stats, 'Tuple(min_start Int64, max_end Int64, has_error UInt8, root Tuple(UInt8, Int64, String, String, String), span_stats Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64)), header UInt8, header_name String, header_status String, header_attributes Map(String, String), span_costs Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))), stored UInt8)') AS s
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
    tupleElement(s, 'header') AS header,
    tupleElement(s, 'header_name') AS header_name,
    tupleElement(s, 'header_status') AS header_status,
    tupleElement(s, 'header_attributes') AS header_attributes,
    tupleElement(s, 'span_costs') AS span_costs,
    if(JSONHas(stats, 'stored'), tupleElement(s, 'stored'), 1) AS stored
FROM agent_eval.write_rows
WHERE stats != '';
