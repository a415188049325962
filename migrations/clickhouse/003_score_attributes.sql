-- Free-form attributes of a score, set by the service where a score needs more than its fields
-- (docs/online-evals.md: an online rule's score names its rule and the trace of the judge that
-- gave it). Rows written before this migration read back with an empty map.
ALTER TABLE agent_eval.scores ADD COLUMN IF NOT EXISTS attributes Map(LowCardinality(String), String) CODEC(ZSTD(1));
