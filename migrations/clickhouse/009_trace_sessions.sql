-- Sessions (issue "evaluate what the agent did": sessions in observability, docs/api.md "Sessions").
-- Each trace's summary carries the conversation (session) and the end user it belongs to, as the
-- collector reads them from its spans' attributes and the JSON body's trace attributes
-- (core/model/trace-session-ids.ts: the first usable value of the keys every convention uses, span
-- attributes before resource attributes). `max` folds them, so any number of writes in any order
-- converge, and a trace whose spans carry no id keeps '' (never wins over an id).
ALTER TABLE agent_eval.trace_stats ADD COLUMN IF NOT EXISTS session_id SimpleAggregateFunction(max, String) DEFAULT '';
ALTER TABLE agent_eval.trace_stats ADD COLUMN IF NOT EXISTS user_id SimpleAggregateFunction(max, String) DEFAULT '';
ALTER TABLE agent_eval.trace_stats_input ADD COLUMN IF NOT EXISTS session_id String DEFAULT '';
ALTER TABLE agent_eval.trace_stats_input ADD COLUMN IF NOT EXISTS user_id String DEFAULT '';

-- A session's traces are found by the id before their states merge (GET /api/sessions/{id}).
ALTER TABLE agent_eval.trace_stats ADD INDEX IF NOT EXISTS idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1;

-- Both folds take the ids too (MODIFY QUERY swaps each view's SELECT in one step).
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
    max(if(stored = 1, now64(3, 'UTC'), toDateTime64(0, 3, 'UTC'))) AS last_stored,
    max(session_id) AS session_id,
    max(user_id) AS user_id
FROM agent_eval.trace_stats_input
GROUP BY project_id, trace_id;

ALTER TABLE agent_eval.trace_stats_fold_writes MODIFY QUERY
WITH
    JSONExtract(stats, 'Tuple(min_start Int64, max_end Int64, has_error UInt8, root Tuple(UInt8, Int64, String, String, String), span_stats Tuple(Array(String), Array(UInt8), Array(UInt64), Array(UInt64)), header UInt8, header_name String, header_status String, header_attributes Map(String, String), span_costs Tuple(Array(String), Array(Tuple(UInt64, Float64, UInt8))), stored UInt8, session_id String, user_id String)') AS s,
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
    max(if(if(JSONHas(stats, 'stored'), tupleElement(s, 'stored'), 1) = 1, now64(3, 'UTC'), toDateTime64(0, 3, 'UTC'))) AS last_stored,
    max(tupleElement(s, 'session_id')) AS session_id,
    max(tupleElement(s, 'user_id')) AS user_id
FROM agent_eval.write_rows
WHERE stats != ''
GROUP BY project_id, trace_id;

-- Traces stored before this migration: their spans' ids, by the same rule (keys in the order of
-- trace-session-ids.ts; a unit test checks). `stored` 0: online rules do not see them again.
INSERT INTO agent_eval.trace_stats_input (project_id, trace_id, min_start, max_end, session_id, user_id, stored)
SELECT project_id, trace_id, min(start_time), max(end_time), max(sid), max(uid), 0
FROM (
    SELECT
        project_id,
        trace_id,
        start_time,
        end_time,
        arrayFirst(v -> v != '' AND lengthUTF8(v) <= 256 AND NOT match(v, '[\\x00-\\x1f\\x7f]'), [
        attributes['session.id'],
        attributes['gen_ai.conversation.id'],
        attributes['langfuse.session.id'],
        attributes['traceloop.association.properties.session_id'],
        attributes['ai.telemetry.metadata.sessionId'],
        attributes['session_id'],
        resource_attributes['session.id'],
        resource_attributes['gen_ai.conversation.id'],
        resource_attributes['langfuse.session.id'],
        resource_attributes['traceloop.association.properties.session_id'],
        resource_attributes['ai.telemetry.metadata.sessionId'],
        resource_attributes['session_id']]) AS sid,
        arrayFirst(v -> v != '' AND lengthUTF8(v) <= 256 AND NOT match(v, '[\\x00-\\x1f\\x7f]'), [
        attributes['user.id'],
        attributes['enduser.id'],
        attributes['langfuse.user.id'],
        attributes['traceloop.association.properties.user_id'],
        attributes['ai.telemetry.metadata.userId'],
        attributes['user_id'],
        resource_attributes['user.id'],
        resource_attributes['enduser.id'],
        resource_attributes['langfuse.user.id'],
        resource_attributes['traceloop.association.properties.user_id'],
        resource_attributes['ai.telemetry.metadata.userId'],
        resource_attributes['user_id']]) AS uid
    FROM agent_eval.spans
)
WHERE sid != '' OR uid != ''
GROUP BY project_id, trace_id;
