-- Trace summaries as mergeable states instead of re-derived rows (docs/architecture.md).
-- Every write adds, next to its span rows, one row per trace it touches holding that batch's
-- contribution: plain values in SimpleAggregateFunction columns, encoded by the collector with
-- the spans (core/store/clickhouse/trace-stats-rows.ts). Trace headers are folded in by a
-- materialized view. Nothing is read on the write path, the cost of a batch does not grow with
-- its trace, and every state is commutative and idempotent (min, max, maxMap keyed by span id,
-- argMax by the store's insert time), so any number of writers, in any order, with any number of
-- re-sent rows, converge on the same summary. Nothing carries a version a writer could set.
CREATE TABLE IF NOT EXISTS agent_eval.trace_stats
(
    project_id LowCardinality(String),
    trace_id String,
    min_start SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    max_end SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    has_error SimpleAggregateFunction(max, UInt8),
    -- (is_child, start_time, span_id, name, resource attributes as JSON) of the earliest root
    -- span, else of the earliest span: the span that names the trace and gives its attributes.
    -- Rows without spans (headers) hold a default that sorts after every span.
    root SimpleAggregateFunction(min, Tuple(UInt8, DateTime64(3, 'UTC'), String, String, String))
        DEFAULT (255, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'), '', '', '{}'),
    -- Per span id: flags (1 stored, 2 error, 4 tool, 8 generation) and the generation's input and
    -- output tokens. Keyed by span, so a re-sent span counts once.
    span_stats SimpleAggregateFunction(maxMap, Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64))),
    -- The newest explicit header of the JSON ingest body, by the store's insert time. (Map keys
    -- are plain String: aggregate states do not keep LowCardinality.)
    header_name AggregateFunction(argMax, String, DateTime64(6, 'UTC')),
    header_status AggregateFunction(argMax, String, DateTime64(6, 'UTC')),
    header_attributes AggregateFunction(argMax, Map(String, String), DateTime64(6, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(min_start)
ORDER BY (project_id, trace_id)
TTL toDateTime(min_start) + INTERVAL 90 DAY
SETTINGS index_granularity = 1024, fsync_after_insert = 1, fsync_part_directory = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_eval.trace_stats_from_headers TO agent_eval.trace_stats AS
SELECT
    project_id,
    trace_id,
    min(start_time) AS min_start,
    max(start_time + toIntervalMillisecond(duration_ms)) AS max_end,
    argMaxState(name, ingested_at) AS header_name,
    argMaxState(toString(status), ingested_at) AS header_status,
    argMaxState(CAST(attributes, 'Map(String, String)'), ingested_at) AS header_attributes
FROM agent_eval.trace_headers
GROUP BY project_id, trace_id;

-- Backfill from the rows stored before this migration. States are idempotent, so a row also
-- added by a write while this runs counts once.
INSERT INTO agent_eval.trace_stats (project_id, trace_id, min_start, max_end, has_error, root, span_stats)
SELECT
    project_id,
    trace_id,
    min(start_time),
    max(end_time),
    max(toUInt8(status = 'error')),
    min((toUInt8(parent_span_id != ''), start_time, span_id, name, toJSONString(resource_attributes))),
    maxMap((
        [span_id],
        [toUInt8(1 + 2 * (status = 'error') + 4 * (span_type = 'tool') + 8 * (span_type = 'generation'))],
        [if(span_type = 'generation', input_tokens, toUInt64(0))],
        [if(span_type = 'generation', output_tokens, toUInt64(0))]
    ))
FROM agent_eval.spans
GROUP BY project_id, trace_id;

INSERT INTO agent_eval.trace_stats (project_id, trace_id, min_start, max_end, header_name, header_status, header_attributes)
SELECT
    project_id,
    trace_id,
    min(start_time),
    max(start_time + toIntervalMillisecond(duration_ms)),
    argMaxState(name, ingested_at),
    argMaxState(toString(status), ingested_at),
    argMaxState(CAST(attributes, 'Map(String, String)'), ingested_at)
FROM agent_eval.trace_headers
GROUP BY project_id, trace_id;

-- The derived rows of the old write path; trace_stats replaces them.
DROP TABLE IF EXISTS agent_eval.traces;
