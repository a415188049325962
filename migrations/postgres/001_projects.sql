-- Projects scope every trace, span and score. Auth (API keys, members) will reference this table.
CREATE TABLE IF NOT EXISTS projects (
    id text PRIMARY KEY,
    name text NOT NULL,
    is_default boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- At most one default project: the one `npm start` writes to credentials.json.
CREATE UNIQUE INDEX IF NOT EXISTS projects_one_default ON projects (is_default) WHERE is_default;
