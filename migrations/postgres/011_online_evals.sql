-- Online evaluation (docs/online-evals.md): rules that score production traces as they arrive.
-- A rule scans its project's traces in (end time, trace id) order from its watermark; every trace
-- it samples becomes one row of online_evaluations, inserted in the transaction that moves the
-- watermark, and the (rule_id, trace_id) primary key makes that claim once per trace and rule
-- however many workers scan, restart or see the trace again after a late span.
CREATE TABLE IF NOT EXISTS online_rules (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    filter jsonb NOT NULL DEFAULT '{}',
    sample_rate double precision NOT NULL CHECK (sample_rate >= 0 AND sample_rate <= 1),
    scorers jsonb NOT NULL,
    expected jsonb NOT NULL DEFAULT '{}',
    delay_seconds integer NOT NULL CHECK (delay_seconds >= 0),
    enabled boolean NOT NULL DEFAULT true,
    -- Times of the scan are milliseconds since the epoch, as the analytical store keeps trace ends.
    -- Traces that ended at or after since_ms are the rule's; the creation time unless the client gave one.
    since_ms bigint NOT NULL,
    -- The scan position: every trace at or before (watermark_end_ms, watermark_trace) was decided.
    -- A null watermark_trace means every trace ending at watermark_end_ms was.
    watermark_end_ms bigint NOT NULL,
    watermark_trace text,
    -- The end of the first trace the last scan left for the next one (its batch was full), else null.
    backlog_end_ms bigint,
    -- One scanner at a time: a claim moves next_scan_at on and bumps claim_seq; a scan commits only
    -- while claim_seq is still the one it claimed.
    claim_seq bigint NOT NULL DEFAULT 0,
    next_scan_at timestamptz NOT NULL DEFAULT now(),
    last_scan_at timestamptz,
    last_scan_error text,
    -- Counters, each added to in the transaction that records what it counts.
    scored bigint NOT NULL DEFAULT 0,
    skipped_by_sampling bigint NOT NULL DEFAULT 0,
    errors bigint NOT NULL DEFAULT 0,
    judge_tokens bigint NOT NULL DEFAULT 0,
    cost_usd double precision NOT NULL DEFAULT 0,
    last_scored_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS online_rules_project_created ON online_rules (project_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS online_rules_due ON online_rules (next_scan_at) WHERE enabled;

-- One row per (rule, sampled trace): the claim, then the evaluation's state. `pending` rows wait
-- for next_attempt_at; `running` rows are leased to one worker until next_attempt_at (then any
-- worker may take them again: the worker died); `done` and `failed` are final.
CREATE TABLE IF NOT EXISTS online_evaluations (
    rule_id uuid NOT NULL REFERENCES online_rules (id) ON DELETE CASCADE,
    trace_id text NOT NULL,
    project_id text NOT NULL,
    trace_end_ms bigint NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease uuid,
    -- Per scorer: {score_id, value, reason, judge_trace_id?}.
    scores jsonb,
    error text,
    cost_usd double precision,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    PRIMARY KEY (rule_id, trace_id)
);

CREATE INDEX IF NOT EXISTS online_evaluations_due ON online_evaluations (next_attempt_at) WHERE status IN ('pending', 'running');
-- A rule's open evaluations by trace end: its queue depth and the oldest trace waiting (lag).
CREATE INDEX IF NOT EXISTS online_evaluations_open ON online_evaluations (rule_id, trace_end_ms) WHERE status IN ('pending', 'running');
-- A worker's heartbeat renews its leases by lease id.
CREATE INDEX IF NOT EXISTS online_evaluations_lease ON online_evaluations (lease) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS online_evaluations_rule_created ON online_evaluations (rule_id, created_at DESC, trace_id);
CREATE INDEX IF NOT EXISTS online_evaluations_finished ON online_evaluations (trace_end_ms) WHERE status IN ('done', 'failed');
