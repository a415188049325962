-- Multi-turn evaluation (issue 30; docs/evals.md, "Conversations"). A case may be a scripted
-- conversation (`turns`) or a simulated user (`simulation`) instead of one `input`; such a case
-- stores a null input.
ALTER TABLE eval_run_cases ADD COLUMN IF NOT EXISTS turns jsonb;
ALTER TABLE eval_run_cases ADD COLUMN IF NOT EXISTS simulation jsonb;
ALTER TABLE eval_run_cases ALTER COLUMN input DROP NOT NULL;

-- How a conversation trial ended ({ended, turns_done}); null for single-turn trials.
ALTER TABLE eval_case_results ADD COLUMN IF NOT EXISTS conversation jsonb;

-- One row per turn of a conversation trial, written as soon as the turn is answered and scored,
-- so the API shows a conversation's progress while it runs and a worker that restarts finds the
-- turns it must not ask the agent again. The primary key makes a turn recorded once however
-- often its activity is retried.
CREATE TABLE IF NOT EXISTS eval_turn_results (
    run_id uuid NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index integer NOT NULL,
    trial integer NOT NULL,
    turn integer NOT NULL,
    user_message text NOT NULL,
    output jsonb,
    tool_calls jsonb,
    usage jsonb,
    latency_ms double precision,
    details jsonb NOT NULL DEFAULT '{}',
    avg_score double precision,
    passed boolean NOT NULL DEFAULT false,
    approval jsonb,
    error text,
    trace_id text,
    -- The turn's agent calls (with the answers), for the case trace and the next turn's history.
    calls jsonb,
    started_ms bigint,
    ended_ms bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, case_index, trial, turn)
);
