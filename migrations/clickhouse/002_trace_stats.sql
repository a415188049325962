-- Trace summaries as mergeable states instead of re-derived rows (docs/architecture.md).
-- Every write inserts, next to its span rows, one row per trace it touches into the Null-engine
-- table trace_stats_input: what that write's spans (and the JSON body's explicit trace header)
-- contribute to the trace's summary, encoded by the collector with the spans
-- (core/store/clickhouse/trace-stats-rows.ts). A materialized view folds each inserted block
-- into trace_stats, so a write costs two parts (spans, trace_stats) whatever it carries.
-- Nothing is read on the write path, the cost of a batch does not grow with its trace, and every
-- state is commutative and idempotent (min, max, maxMap keyed by span id, argMax by the store's
-- insert time), so any number of writers, in any order, with any number of re-sent rows,
-- converge on the same summary. Nothing carries a version a writer could set.
CREATE TABLE IF NOT EXISTS agent_eval.trace_stats
(
    project_id LowCardinality(String),
    trace_id String,
    min_start SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    max_end SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    has_error SimpleAggregateFunction(max, UInt8),
    -- (is_child, start_time, span_id, name, resource attributes as JSON) of the earliest root
    -- span, else of the earliest span: the span that names the trace and gives its attributes.
    -- Rows without spans (a header alone) hold a value that sorts after every span.
    root SimpleAggregateFunction(min, Tuple(UInt8, DateTime64(3, 'UTC'), String, String, String)),
    -- Per span id: flags (1 stored, 2 error, 4 tool, 8 generation) and the generation's input and
    -- output tokens. Keyed by span, so a re-sent span counts once.
    span_stats SimpleAggregateFunction(maxMap, Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64))),
    -- The newest explicit header of the JSON ingest body, by the store's insert time (rows
    -- without a header carry the epoch, so they never win). Map keys are plain String: aggregate
    -- states do not keep LowCardinality.
    header_name AggregateFunction(argMax, String, DateTime64(6, 'UTC')),
    header_status AggregateFunction(argMax, String, DateTime64(6, 'UTC')),
    header_attributes AggregateFunction(argMax, Map(String, String), DateTime64(6, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(min_start)
ORDER BY (project_id, trace_id)
TTL toDateTime(min_start) + INTERVAL 90 DAY
SETTINGS index_granularity = 1024, fsync_after_insert = 1, fsync_part_directory = 1;

-- What a write adds to its traces' summaries; stores nothing itself (Null engine).
CREATE TABLE IF NOT EXISTS agent_eval.trace_stats_input
(
    project_id String,
    trace_id String,
    min_start DateTime64(3, 'UTC'),
    max_end DateTime64(3, 'UTC'),
    has_error UInt8 DEFAULT 0,
    root Tuple(UInt8, DateTime64(3, 'UTC'), String, String, String) DEFAULT (255, toDateTime64('2299-12-31 00:00:00', 3, 'UTC'), '', '', '{}'),
    span_stats Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64)) DEFAULT ([], [], [], []),
    header UInt8 DEFAULT 0,
    header_name String DEFAULT '',
    header_status String DEFAULT '',
    header_attributes Map(String, String) DEFAULT map()
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_eval.trace_stats_from_input TO agent_eval.trace_stats AS
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
    argMaxState(header_attributes, if(header = 1, now64(6, 'UTC'), toDateTime64(0, 6, 'UTC'))) AS header_attributes
FROM agent_eval.trace_stats_input
GROUP BY project_id, trace_id;

-- Backfill from the rows stored before this migration, through the view. States are idempotent,
-- so a row also added by a write while this runs counts once.
INSERT INTO agent_eval.trace_stats_input (project_id, trace_id, min_start, max_end, has_error, root, span_stats)
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

INSERT INTO agent_eval.trace_stats_input (project_id, trace_id, min_start, max_end, header, header_name, header_status, header_attributes)
SELECT
    project_id,
    trace_id,
    start_time,
    start_time + toIntervalMillisecond(duration_ms),
    1,
    name,
    toString(status),
    CAST(attributes, 'Map(String, String)')
FROM agent_eval.trace_headers
ORDER BY ingested_at DESC
LIMIT 1 BY project_id, trace_id;

-- Fewer, wider merges: every insert writes a part per table, and on a node with few cores the
-- merges that fold small parts together cost as much CPU as the inserts (docs/benchmarks.md).
-- A larger base lets more parts gather before a merge, so each row is rewritten fewer times; the
-- number of active parts stays bounded (a few dozen per partition under sustained load).
ALTER TABLE agent_eval.spans MODIFY SETTING merge_selector_base = 50;
ALTER TABLE agent_eval.trace_stats MODIFY SETTING merge_selector_base = 50;

-- Replaced: the derived rows of the old write path, and the headers now kept as states.
DROP TABLE IF EXISTS agent_eval.traces;
DROP TABLE IF EXISTS agent_eval.trace_headers;
