-- Agents and test suites live in the metadata store. project_id is free text (the x-project-id
-- header) and has no foreign key to projects yet: any well-formed project id scopes data today.

-- An agent is an HTTP endpoint the eval worker calls. `headers` usually hold the agent's
-- credentials: the API accepts them but never returns their values (docs/suites.md).
CREATE TABLE IF NOT EXISTS agents (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    endpoint text NOT NULL,
    description text,
    headers jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Agents are looked up by id or by name (`agentId` accepts either), so a name is unique in a project.
CREATE UNIQUE INDEX IF NOT EXISTS agents_project_name ON agents (project_id, name);

-- GET /api/agents lists a project's agents newest first.
CREATE INDEX IF NOT EXISTS agents_project_created ON agents (project_id, created_at DESC, id DESC);

-- A suite is a name and a pointer to its latest version; its definitions live in suite_versions.
-- Deleting a suite only sets deleted_at: runs pin a suite version and must still read it.
CREATE TABLE IF NOT EXISTS suites (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    latest_version integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

-- A name is unique among a project's live suites only, so deleting a suite frees its name.
CREATE UNIQUE INDEX IF NOT EXISTS suites_project_live_name ON suites (project_id, name) WHERE deleted_at IS NULL;

-- GET /api/suites lists a project's live suites newest first.
CREATE INDEX IF NOT EXISTS suites_project_created ON suites (project_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Every PUT writes a new immutable version; rows are never updated. The list view reads
-- description, agent_id and case_count from these columns rather than from `definition`,
-- which can be megabytes (10,000 cases) and would be read whole for one field.
CREATE TABLE IF NOT EXISTS suite_versions (
    suite_id uuid NOT NULL REFERENCES suites (id),
    version integer NOT NULL,
    definition jsonb NOT NULL,
    name text NOT NULL,
    description text,
    agent_id uuid,
    case_count integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (suite_id, version)
);
