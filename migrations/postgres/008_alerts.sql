-- Alert rules and the events their evaluations produce (docs/alerts.md). project_id is free
-- text like the other project-scoped tables; every query filters by it.

-- A rule measures one metric over a sliding window and compares it with a threshold. The
-- evaluator claims due rules (enabled AND next_eval_at <= now()) with FOR UPDATE SKIP LOCKED and
-- moves next_eval_at forward in the same statement, so with several workers each rule is
-- evaluated once per interval. claim_seq grows with every claim and every edit: an evaluation
-- records its outcome only while the rule still carries the claim_seq it was claimed with.
CREATE TABLE IF NOT EXISTS alert_rules (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    metric text NOT NULL CHECK (metric IN ('avg_score', 'error_rate', 'latency_p50', 'latency_p95', 'tokens_per_trace', 'run_pass_rate', 'trace_count', 'drift')),
    filter jsonb NOT NULL DEFAULT '{}',
    window_seconds integer NOT NULL CHECK (window_seconds > 0),
    eval_interval_seconds integer NOT NULL CHECK (eval_interval_seconds > 0),
    operator text NOT NULL CHECK (operator IN ('gt', 'gte', 'lt', 'lte', 'eq')),
    threshold double precision NOT NULL,
    severity text NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),
    webhook_url text,
    no_data text NOT NULL DEFAULT 'ok' CHECK (no_data IN ('ok', 'alert', 'keep')),
    min_samples integer NOT NULL DEFAULT 1 CHECK (min_samples > 0),
    enabled boolean NOT NULL DEFAULT true,
    -- Drift only (null for other metrics): the test, what is compared, how many preceding
    -- windows make the baseline, and the number of PSI bins.
    drift_test text CHECK (drift_test IN ('psi', 'ks')),
    drift_source text CHECK (drift_source IN ('score', 'latency')),
    baseline_windows integer CHECK (baseline_windows > 0),
    psi_bins integer CHECK (psi_bins > 1),
    state text NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'firing', 'no_data')),
    state_since timestamptz NOT NULL DEFAULT now(),
    next_eval_at timestamptz NOT NULL DEFAULT now(),
    claim_seq bigint NOT NULL DEFAULT 0,
    last_evaluated_at timestamptz,
    last_value double precision,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- GET /api/alerts/rules lists a project's rules newest first.
CREATE INDEX IF NOT EXISTS alert_rules_project_created ON alert_rules (project_id, created_at DESC, id DESC);

-- The evaluator's claim: due enabled rules, oldest due first.
CREATE INDEX IF NOT EXISTS alert_rules_due ON alert_rules (next_eval_at) WHERE enabled;

-- One row per state change of a rule. Deleting a rule deletes its events. A notification is
-- delivered from here: delivery_status 'pending' or 'retrying' rows whose next_attempt_at has
-- come are claimed by one worker (SKIP LOCKED) with next_attempt_at moved past the attempt's
-- time-out, so a worker that dies mid-attempt leaves the event to be retried by another.
CREATE TABLE IF NOT EXISTS alert_events (
    id uuid PRIMARY KEY,
    rule_id uuid NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    project_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('fired', 'resolved', 'no_data')),
    value double precision,
    threshold double precision NOT NULL,
    at timestamptz NOT NULL,
    payload jsonb NOT NULL,
    webhook_url text,
    delivery_status text NOT NULL CHECK (delivery_status IN ('none', 'pending', 'retrying', 'delivered', 'failed')),
    delivery_attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_attempt_at timestamptz,
    delivery_error text,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- GET /api/alerts/events: a project's events newest first, optionally of one rule.
CREATE INDEX IF NOT EXISTS alert_events_project_at ON alert_events (project_id, at DESC, id DESC);
CREATE INDEX IF NOT EXISTS alert_events_rule_at ON alert_events (rule_id, at DESC, id DESC);

-- The delivery claim: notifications still to send, by when they are due.
CREATE INDEX IF NOT EXISTS alert_events_due ON alert_events (next_attempt_at) WHERE delivery_status IN ('pending', 'retrying');
