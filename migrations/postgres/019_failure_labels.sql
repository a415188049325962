-- Labels of failure groups (docs/api.md, "Failure analysis"): the sentence a judge model wrote for a
-- group's signature, kept per project by the signature's key so the same signature is labelled
-- once. The first label of a key stays (ON CONFLICT DO NOTHING). A project's rows go with the
-- project (project_id, like every table the purge empties).
CREATE TABLE IF NOT EXISTS failure_labels (
    project_id text NOT NULL,
    signature_key text NOT NULL,
    label text NOT NULL,
    provider text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, signature_key)
);
