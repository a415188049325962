-- Online rules scan traces in the order they reach the analytical store (its trace_stats.last_stored,
-- ClickHouse migration 005), not by their end time: a trace stored long after it ended is still
-- after the watermark when it lands (docs/online-evals.md, "Delay and the watermark").
-- The scan position and the backlog are therefore store times. A watermark kept from the end-time
-- scan reads as a store time: traces are stored after they end, so nothing stored since is skipped
-- (at most a few already decided are read again, and their (rule, trace) evaluation exists).
ALTER TABLE online_rules RENAME COLUMN watermark_end_ms TO watermark_stored_ms;
ALTER TABLE online_rules RENAME COLUMN backlog_end_ms TO backlog_stored_ms;

-- When the trace was last stored as the scan saw it: the lag of a rule is now minus the oldest of
-- these among its open evaluations (how far scoring is behind ingest).
ALTER TABLE online_evaluations ADD COLUMN IF NOT EXISTS trace_stored_ms bigint;
UPDATE online_evaluations SET trace_stored_ms = trace_end_ms WHERE trace_stored_ms IS NULL;
ALTER TABLE online_evaluations ALTER COLUMN trace_stored_ms SET NOT NULL;

DROP INDEX IF EXISTS online_evaluations_open;
CREATE INDEX IF NOT EXISTS online_evaluations_open ON online_evaluations (rule_id, trace_stored_ms) WHERE status IN ('pending', 'running');
