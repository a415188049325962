import { createHash } from 'node:crypto';
import type { AgentEvalClient } from '../sdk/client.js';
import { ServiceApiError } from '../sdk/errors.js';

/** Whether `--agent` names an HTTP endpoint rather than a registered agent's name or id. */
export function isEndpoint(agent: string): boolean {
  return /^https?:\/\//i.test(agent);
}

/** A stable agent name for an endpoint: its host and path, plus a hash so two URLs never share one. */
export function agentNameFor(endpoint: string): string {
  const url = new URL(endpoint);
  const readable = `${url.host}${url.pathname}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
  return `${readable || 'agent'}-${createHash('sha256').update(endpoint).digest('hex').slice(0, 8)}`;
}

/** The id of the project's agent with this endpoint, or undefined. */
export async function findAgentByEndpoint(client: AgentEvalClient, endpoint: string): Promise<string | undefined> {
  for (let offset = 0; ; offset += 1000) {
    const page = await client.agents.list({ limit: 1000, offset });
    const hit = page.agents.find((a) => a.endpoint === endpoint);
    if (hit) return hit.id;
    if (page.agents.length === 0 || offset + page.agents.length >= page.total) return undefined;
  }
}

/**
 * The id of the agent registered for `endpoint`: the project's agent with that endpoint, else
 * one registered now under {@link agentNameFor} (so `run --agent http://...` needs no setup).
 */
export async function agentForEndpoint(client: AgentEvalClient, endpoint: string): Promise<string> {
  const registered = await findAgentByEndpoint(client, endpoint);
  if (registered) return registered;
  const name = agentNameFor(endpoint);
  try {
    return (await client.agents.create({ name, endpoint, description: 'registered by agent-eval run --agent' })).id;
  } catch (err) {
    // Registered by a concurrent run a moment ago.
    if (err instanceof ServiceApiError && err.status === 409) return (await client.agents.get(name)).id;
    throw err;
  }
}
