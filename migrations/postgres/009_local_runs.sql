-- Runs executed outside the service (the SDK's evaluate(), the CLI's --local): the client runs
-- the agent and uploads each case's result; no workflow drives them (docs/evals.md, "Runs
-- executed outside the service"). Their agent is a function in the client, so it may name no
-- registered agent: agent_id is null then and agent_name holds the client's label.
ALTER TABLE eval_runs ADD COLUMN IF NOT EXISTS execution text NOT NULL DEFAULT 'managed' CHECK (execution IN ('managed', 'local'));
ALTER TABLE eval_runs ALTER COLUMN agent_id DROP NOT NULL;
