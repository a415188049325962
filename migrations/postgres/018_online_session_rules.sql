-- Online session rules (docs/online-evals.md, "Session rules"): a rule may target sessions (the
-- traces naming one session id) instead of traces. Rules made before read as trace rules.
-- A session rule scans its project's sessions in the order of when the store last received a
-- write of them (the watermark columns, as store times, with the session id in watermark_trace),
-- and takes a session once it has been idle for idle_seconds.
ALTER TABLE online_rules ADD COLUMN IF NOT EXISTS target text NOT NULL DEFAULT 'trace';
ALTER TABLE online_rules ADD COLUMN IF NOT EXISTS idle_seconds integer;
ALTER TABLE online_rules ADD COLUMN IF NOT EXISTS on_resume text;
ALTER TABLE online_rules ADD CONSTRAINT online_rules_target CHECK (
    (target = 'trace' AND idle_seconds IS NULL AND on_resume IS NULL)
    OR (target = 'session' AND idle_seconds >= 1 AND on_resume IN ('reevaluate', 'ignore'))
);

-- One row per (rule, session, generation): generation 1 is the first idle period of the session
-- the rule took, and with on_resume 'reevaluate' each later idle period (the session was written
-- to after the last generation's idle_since) is the next generation. The row is inserted in the
-- statement that moves the rule's watermark, only while the scan's claim is current, and only when
-- the session's last write is after every earlier generation's (or, with 'ignore', when it has
-- none): the primary key and that condition make each generation once, however many workers scan.
-- Leasing and states are those of online_evaluations.
CREATE TABLE IF NOT EXISTS online_session_evaluations (
    rule_id uuid NOT NULL REFERENCES online_rules (id) ON DELETE CASCADE,
    session_id text NOT NULL,
    generation integer NOT NULL CHECK (generation >= 1),
    project_id text NOT NULL,
    -- When the store last received a write of the session, as the scan found it idle (store time, ms).
    session_stored_ms bigint NOT NULL,
    -- The end of its latest trace then.
    session_end_ms bigint NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease uuid,
    -- What was scored: the number of turns and the last turn's trace (the trace the scores name).
    turns integer,
    last_trace_id text,
    scores jsonb,
    error text,
    cost_usd double precision,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    PRIMARY KEY (rule_id, session_id, generation)
);

CREATE INDEX IF NOT EXISTS online_session_evaluations_due ON online_session_evaluations (next_attempt_at) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS online_session_evaluations_open ON online_session_evaluations (rule_id, session_stored_ms) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS online_session_evaluations_lease ON online_session_evaluations (lease) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS online_session_evaluations_rule_created ON online_session_evaluations (rule_id, created_at DESC, session_id, generation);
CREATE INDEX IF NOT EXISTS online_session_evaluations_finished ON online_session_evaluations (session_end_ms) WHERE status IN ('done', 'failed');
