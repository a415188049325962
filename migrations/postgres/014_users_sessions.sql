-- People in the dashboard (docs/security.md, "Signing in"): users signed in with OpenID Connect,
-- their roles per project, and the server-side sessions behind the dashboard's cookie.

-- A person, as the OpenID provider names them: (issuer, subject) is who they are; name and email
-- are the provider's claims at the last sign-in. server_admin comes from OIDC_ADMIN_EMAILS (a
-- verified email), decided again at every sign-in.
CREATE TABLE IF NOT EXISTS users (
    id uuid PRIMARY KEY,
    issuer text NOT NULL,
    subject text NOT NULL,
    name text NOT NULL,
    email text,
    server_admin boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (issuer, subject)
);

CREATE INDEX IF NOT EXISTS users_email ON users (lower(email));

-- A user's role in a project, granted by a project admin (granted_by: who, a user or key id).
CREATE TABLE IF NOT EXISTS project_members (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
    granted_by text,
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id)
);

CREATE INDEX IF NOT EXISTS project_members_user ON project_members (user_id);

-- A signed-in browser. The cookie holds a random token; only its SHA-256 is stored, so a copy of
-- this table signs nobody in. A session is a user's (OIDC) or an API key's (the key itself is
-- never stored here, only which key: revoking the key ends its sessions). It ends at expires_at
-- (absolute), after SESSION_IDLE_MINUTES without a request (last_seen_at), or at sign-out.
CREATE TABLE IF NOT EXISTS sessions (
    token_hash bytea PRIMARY KEY,
    user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE,
    csrf_token text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    CHECK ((user_id IS NULL) <> (api_key_id IS NULL))
);

CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;

-- Who did it, by name: a signed-in person's display name beside the id already recorded.
ALTER TABLE feedback ADD COLUMN IF NOT EXISTS user_name text;
ALTER TABLE feedback_comparisons ADD COLUMN IF NOT EXISTS answered_by_name text;
ALTER TABLE review_queue_items ADD COLUMN IF NOT EXISTS locked_by_name text;
ALTER TABLE review_queue_items ADD COLUMN IF NOT EXISTS completed_by_name text;
