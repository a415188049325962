-- Spans: one row per span version; a re-sent span is replaced (ReplacingMergeTree on ingested_at)
-- and reads take the newest row per span (LIMIT 1 BY), so a retried batch never counts twice.
-- ORDER BY serves "fetch one trace by id"; the bloom filter serves "fetch one span by id".
-- Small granules keep a point lookup from decompressing thousands of large input/output values.
-- fsync_after_insert: an acknowledged insert is on disk, not only in the page cache.
CREATE TABLE IF NOT EXISTS agent_eval.spans
(
    project_id LowCardinality(String),
    trace_id String,
    span_id String,
    parent_span_id String,
    name String,
    span_type LowCardinality(String),
    component_type LowCardinality(String),
    convention LowCardinality(String),
    kind LowCardinality(String),
    status LowCardinality(String),
    status_message String,
    start_time DateTime64(3, 'UTC'),
    end_time DateTime64(3, 'UTC'),
    duration_ms UInt64,
    model LowCardinality(String),
    input String CODEC(ZSTD(1)),
    output String CODEC(ZSTD(1)),
    input_tokens UInt64,
    output_tokens UInt64,
    attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    resource_attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    scope_name LowCardinality(String),
    scope_version LowCardinality(String),
    events String CODEC(ZSTD(1)),
    ingested_at DateTime64(6, 'UTC') DEFAULT now64(6),
    INDEX idx_span_id span_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(start_time)
ORDER BY (project_id, trace_id, span_id)
TTL toDateTime(start_time) + INTERVAL 90 DAY
SETTINGS index_granularity = 1024, fsync_after_insert = 1, fsync_part_directory = 1;

-- Trace-level fields a client stated explicitly (the JSON ingest body).
CREATE TABLE IF NOT EXISTS agent_eval.trace_headers
(
    project_id LowCardinality(String),
    trace_id String,
    name String,
    status LowCardinality(String),
    start_time DateTime64(3, 'UTC'),
    duration_ms UInt64,
    attributes Map(LowCardinality(String), String),
    ingested_at DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(start_time)
ORDER BY (project_id, trace_id)
TTL toDateTime(start_time) + INTERVAL 90 DAY
SETTINGS index_granularity = 1024, fsync_after_insert = 1, fsync_part_directory = 1;

-- Traces: derived from spans and headers after every write of the trace; the newest version
-- (highest `version`) is the truth and reads pick it with LIMIT 1 BY, never FINAL.
CREATE TABLE IF NOT EXISTS agent_eval.traces
(
    project_id LowCardinality(String),
    trace_id String,
    name String,
    status LowCardinality(String),
    start_time DateTime64(3, 'UTC'),
    end_time DateTime64(3, 'UTC'),
    duration_ms UInt64,
    total_input_tokens UInt64,
    total_output_tokens UInt64,
    tool_call_count UInt32,
    llm_call_count UInt32,
    span_count UInt32,
    error_count UInt32,
    attributes Map(LowCardinality(String), String),
    version DateTime64(6, 'UTC'),
    INDEX idx_start_time start_time TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(start_time)
ORDER BY (project_id, trace_id)
TTL toDateTime(start_time) + INTERVAL 90 DAY
SETTINGS index_granularity = 1024, fsync_after_insert = 1, fsync_part_directory = 1;

CREATE TABLE IF NOT EXISTS agent_eval.scores
(
    project_id LowCardinality(String),
    score_id String,
    trace_id String,
    span_id String,
    name String,
    value Float64,
    score_type LowCardinality(String),
    source LowCardinality(String),
    scorer_name String,
    reason String,
    evidence Array(String),
    created_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(created_at)
PARTITION BY toYYYYMM(created_at)
ORDER BY (project_id, trace_id, score_id)
TTL toDateTime(created_at) + INTERVAL 90 DAY
SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
