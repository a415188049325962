import type { Agent, AgentList, AgentRecord, CreateAgent, UpdateAgent } from '../model/agent.js';

/*
 * Agents (PostgreSQL, migration 002; store/postgres/agent-store.ts implements it).
 *
 * Promises:
 * - Isolation: every call names a project and touches only its agents.
 * - Names are unique per project: `create` (or a rename) with a taken name rejects with a
 *   ConflictError (409) and changes nothing, so a create retried after a lost answer never makes
 *   a second agent.
 * - Writes resolve once committed; reads see every committed write of any process.
 * - Header values (credentials) leave the store only through `resolveForCall`, for the worker;
 *   every other read returns views without them. What a caller gets is its own copy.
 */

/**
 * Agents (PostgreSQL). Every query filters by project. Lookups take an agent's id or its name
 * (`agentId` / `agent_id` accept either); an id wins over a name (names cannot be UUIDs anyway).
 */
export interface AgentStore {
  create(projectId: string, input: CreateAgent): Promise<Agent>;
  /** Newest first. */
  list(projectId: string, page: { limit: number; offset: number }): Promise<AgentList>;
  /** By id or name. */
  resolve(projectId: string, idOrName: string): Promise<Agent | null>;
  /**
   * Replaces the fields. `headers` undefined keeps the stored ones while the endpoint stays the
   * same, and drops them all when it changes: credentials never follow an agent to a new address
   * (docs/security.md, "Secrets follow the URL"). Null when there is no such agent.
   */
  update(projectId: string, idOrName: string, input: UpdateAgent): Promise<Agent | null>;
  /** True when an agent was deleted. */
  delete(projectId: string, idOrName: string): Promise<boolean>;
  /** The whole record with the header values, for the worker that calls the agent. Never returned by the API. */
  resolveForCall(projectId: string, idOrName: string): Promise<AgentRecord | null>;
}
