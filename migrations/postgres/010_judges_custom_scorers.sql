-- HTTP custom scorers, registered per project like agents (docs/scorers.md). Suites and runs
-- name them like any scorer; `headers` usually hold credentials and are never returned.
CREATE TABLE IF NOT EXISTS custom_scorers (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    endpoint text NOT NULL,
    data_type text NOT NULL CHECK (data_type IN ('numeric', 'boolean')),
    description text,
    headers jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Found by id or by name, so a name is unique in a project.
CREATE UNIQUE INDEX IF NOT EXISTS custom_scorers_project_name ON custom_scorers (project_id, name);
CREATE INDEX IF NOT EXISTS custom_scorers_project_created ON custom_scorers (project_id, created_at DESC, id DESC);

-- Every call an LLM judge made, answered or not (docs/judges.md): the generation spans of the
-- judged case's trace are written from these rows, and their tokens count toward the run's
-- judge budget. run_id is null for judges that score outside a run.
CREATE TABLE IF NOT EXISTS judge_calls (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    run_id uuid REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index integer,
    trial integer,
    trace_id text,
    scorer text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    attempt integer NOT NULL,
    status text NOT NULL CHECK (status IN ('ok', 'unusable', 'error')),
    error text,
    input jsonb,
    output jsonb,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cached_input_tokens bigint NOT NULL DEFAULT 0,
    -- Filled by the price table (issue 12's cost part) when it knows the model; null until then.
    cost_usd double precision,
    price_version text,
    started_at timestamptz NOT NULL,
    ended_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS judge_calls_by_trial ON judge_calls (run_id, case_index, trial);

-- A run's judge spend, added to in the transaction that records each call: the budget check
-- before every judge call reads one row however many calls the run made.
CREATE TABLE IF NOT EXISTS judge_run_usage (
    run_id uuid PRIMARY KEY REFERENCES eval_runs (id) ON DELETE CASCADE,
    calls integer NOT NULL DEFAULT 0,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd double precision NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);
