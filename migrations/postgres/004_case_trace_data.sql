-- What a case trial's trace is built from, kept with its result: the run writes the traces of
-- finished cases in batches, off each case's critical path (docs/evals.md), from these rows.
ALTER TABLE eval_case_results ADD COLUMN IF NOT EXISTS calls jsonb;
ALTER TABLE eval_case_results ADD COLUMN IF NOT EXISTS started_ms bigint;
ALTER TABLE eval_case_results ADD COLUMN IF NOT EXISTS ended_ms bigint;
