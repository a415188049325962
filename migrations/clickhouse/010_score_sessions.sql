-- Scores of a session as a whole (docs/online-evals.md, "Session rules"): an online session rule's
-- score names the session it judged. It is also written under the trace of the session's last
-- turn (trace_id), so the session's traces still find it through the table's key; session_id tells
-- a session's score from that trace's own. '' on every other score, and on rows written before.
ALTER TABLE agent_eval.scores ADD COLUMN IF NOT EXISTS session_id String DEFAULT '' CODEC(ZSTD(1));
