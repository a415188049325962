-- API keys: shown once at creation, stored as a SHA-256 hash. A key is found by its prefix
-- (`ae_<env>_` and the first 8 characters of its random part, not secret), then its hash is
-- compared in constant time. Keys belong to one project and carry one role.
CREATE TABLE IF NOT EXISTS api_keys (
    id uuid PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name text NOT NULL,
    role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
    prefix text NOT NULL UNIQUE,
    key_hash bytea NOT NULL,
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at timestamptz
);

CREATE INDEX IF NOT EXISTS api_keys_project ON api_keys (project_id, created_at);

-- Rate limit counters, shared by every API process: one row per project, endpoint group and
-- fixed one-minute window, incremented with one upsert per request.
CREATE TABLE IF NOT EXISTS rate_limit_windows (
    project_id text NOT NULL,
    bucket text NOT NULL,
    window_start timestamptz NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (project_id, bucket, window_start)
);

-- Per-project limits that differ from the defaults (requests per minute per endpoint group).
CREATE TABLE IF NOT EXISTS project_rate_limits (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    bucket text NOT NULL,
    per_minute integer NOT NULL CHECK (per_minute > 0),
    PRIMARY KEY (project_id, bucket)
);
