-- Project governance, the audit log and failed-authentication throttling (issue 26;
-- docs/security.md "Server admins and project governance", "Audit log", "Failed authentication").

-- A project's life: archived (read-only: reads work, writes are refused), then, once archived, its
-- deletion requested (deleted_at: every credential of it stops, its data is being removed), then
-- purged (purged_at: nothing of it is left but this row). The row stays as a tombstone so its id
-- is never given to another project: a token minted for the deleted project must not reach a new
-- one that reused the id.
ALTER TABLE projects ADD COLUMN IF NOT EXISTS archived_at timestamptz;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS deleted_at timestamptz;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS purged_at timestamptz;

-- A server-admin key governs the server (creates, lists, archives and deletes projects, reads the
-- whole audit log, creates further server-admin keys) besides its role in its own project. The
-- bootstrap key written to credentials.json at first start is one: an existing install's too.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS server_admin boolean NOT NULL DEFAULT false;
UPDATE api_keys SET server_admin = true WHERE created_by = 'bootstrap' AND NOT server_admin;

-- Security-relevant actions: who (actor), what (action, target, details), when (at), from where
-- (client address, user agent), in which project (null: the server's own, e.g. a sign-in).
-- `at` is kept to the millisecond: the list's cursor carries milliseconds. Never holds a secret.
CREATE TABLE IF NOT EXISTS audit_log (
    id uuid PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    actor_kind text NOT NULL,
    actor_id text NOT NULL,
    actor_name text,
    action text NOT NULL,
    project_id text,
    target text,
    details jsonb NOT NULL DEFAULT '{}',
    client_address text,
    user_agent text
);

CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX IF NOT EXISTS audit_log_project_at ON audit_log (project_id, at DESC, id DESC);

-- Failed authentications per client address and per key prefix, in fixed one-minute windows,
-- shared by every process like rate_limit_windows: each process adds its counts once a second.
CREATE TABLE IF NOT EXISTS auth_failure_windows (
    kind text NOT NULL CHECK (kind IN ('address', 'prefix')),
    subject text NOT NULL,
    window_start timestamptz NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (kind, subject, window_start)
);
