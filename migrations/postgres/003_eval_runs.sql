-- Evaluation runs of both API families (/api/evals/runs and /api/runs) share these tables.
-- The run's cases are copied in when it is created: a suite edited later makes a new suite
-- version, never a different run, and workflows read their case by (run_id, case_index).
CREATE TABLE IF NOT EXISTS eval_runs (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text,
    suite_id uuid,
    suite_version integer,
    suite_name text,
    agent_id uuid NOT NULL,
    agent_name text NOT NULL,
    agent_version text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'running', 'paused', 'completed', 'cancelled', 'failed')),
    config jsonb NOT NULL,
    aggregation text NOT NULL,
    min_score double precision NOT NULL,
    case_count integer NOT NULL,
    repetitions integer NOT NULL,
    summary jsonb,
    error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    completed_at timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS eval_runs_by_project ON eval_runs (project_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS eval_runs_by_suite ON eval_runs (project_id, suite_name, created_at DESC);

CREATE TABLE IF NOT EXISTS eval_run_cases (
    run_id uuid NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index integer NOT NULL,
    name text NOT NULL,
    input jsonb NOT NULL,
    expected jsonb NOT NULL,
    -- The scorers that judge this case: its own, else the suite's or run's defaults.
    scorers jsonb NOT NULL,
    min_score double precision,
    weight double precision NOT NULL DEFAULT 1,
    PRIMARY KEY (run_id, case_index)
);

-- One row per case trial. The primary key makes a result recorded once however often an
-- activity is retried (a worker killed after the insert, before Temporal heard of it).
CREATE TABLE IF NOT EXISTS eval_case_results (
    run_id uuid NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index integer NOT NULL,
    trial integer NOT NULL,
    status text NOT NULL CHECK (status IN ('passed', 'failed', 'cancelled')),
    details jsonb NOT NULL DEFAULT '{}',
    avg_score double precision NOT NULL DEFAULT 0,
    passed boolean NOT NULL DEFAULT false,
    duration_ms double precision NOT NULL DEFAULT 0,
    latency_ms double precision,
    output jsonb,
    tool_calls jsonb,
    usage jsonb,
    approval jsonb,
    error text,
    trace_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, case_index, trial)
);
