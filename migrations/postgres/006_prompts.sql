-- Prompts (docs/prompts.md): a prompt is a name and a pointer to its latest version; every
-- version is an immutable row of prompt_versions; labels name one version each and move.
-- project_id is free text (the x-project-id header), as for agents and suites.

-- `name` and `type` never change after creation: clients and traces refer to a prompt by name.
CREATE TABLE IF NOT EXISTS prompts (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    type text NOT NULL CHECK (type IN ('text', 'chat')),
    latest_version integer NOT NULL CHECK (latest_version >= 1),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- `:id` takes a prompt's id or its name, so a name is unique in a project.
CREATE UNIQUE INDEX IF NOT EXISTS prompts_project_name ON prompts (project_id, name);

-- GET /api/prompts lists a project's prompts newest first.
CREATE INDEX IF NOT EXISTS prompts_project_created ON prompts (project_id, created_at DESC, id DESC);

-- Every PUT writes a new version (latest + 1, under the prompt's row lock); rows are never
-- updated. A text version has a template, a chat version its messages, never both.
CREATE TABLE IF NOT EXISTS prompt_versions (
    prompt_id uuid NOT NULL REFERENCES prompts (id),
    version integer NOT NULL CHECK (version >= 1),
    template text,
    messages jsonb,
    config jsonb,
    description text,
    commit_message text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (prompt_id, version),
    CHECK ((template IS NULL) <> (messages IS NULL))
);

-- One row per label: the primary key makes a label point at exactly one version, and moving it
-- is one upsert of that row. The foreign key keeps it on a version that exists.
CREATE TABLE IF NOT EXISTS prompt_labels (
    prompt_id uuid NOT NULL REFERENCES prompts (id),
    label text NOT NULL,
    version integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (prompt_id, label),
    FOREIGN KEY (prompt_id, version) REFERENCES prompt_versions (prompt_id, version)
);

-- The labels of one version (GET /api/prompts/{id}?version=N lists them).
CREATE INDEX IF NOT EXISTS prompt_labels_version ON prompt_labels (prompt_id, version);
