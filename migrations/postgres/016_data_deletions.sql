-- Deletions of data a client asked for (docs/api.md, "Deleting data"): one trace, or every trace of
-- an end user or a session (GDPR erasure). The request is recorded first, then carried out in the
-- background by the process that took it (core/deletion/data-deletion.ts); a row not finished
-- (`pending`, or `running` past its lease: the process died) is taken up again by any process, so
-- a deletion, once acknowledged, always completes. Both halves (ClickHouse mutations, PostgreSQL
-- deletes) can run again without harm.
CREATE TABLE IF NOT EXISTS data_deletions (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('trace', 'user', 'session')),
    target text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed')),
    requested_by jsonb NOT NULL,
    lease_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    traces_deleted integer,
    rows_deleted jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz
);

CREATE INDEX IF NOT EXISTS data_deletions_project_created ON data_deletions (project_id, created_at DESC);
CREATE INDEX IF NOT EXISTS data_deletions_open ON data_deletions (status, lease_until) WHERE status <> 'completed';
