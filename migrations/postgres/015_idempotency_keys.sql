-- Idempotency-Key of the creating POSTs (docs/api.md, "Retries: Idempotency-Key"): one row per
-- (project, route, key). A request claims its row (`owner`, a random token, and a lease,
-- `locked_until`) before it runs; its 2xx answer is then stored whole (status and body as sent)
-- and a retry with the same key and the same request (`request_hash`) gets it back. A row whose
-- answer was not 2xx is deleted (the retry runs again). Rows live until `expires_at` (24 h after
-- the first request); expired rows count as absent and are deleted by the API processes.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    project_id text NOT NULL,
    route text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    owner uuid NOT NULL,
    locked_until timestamptz NOT NULL,
    response_status integer,
    response_body text,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, route, key)
);

CREATE INDEX IF NOT EXISTS idempotency_keys_expires ON idempotency_keys (expires_at);
