import { z } from 'zod';
import { asId } from './ids.js';
import { pgText } from './pg-json.js';
import { HttpUrlSchema } from './http-url.js';
import { isUuid } from './id-rules.js';

/**
 * An agent: an HTTP endpoint the eval worker calls with each case's input.
 *
 * `headers` are sent with every call and usually hold the agent's credentials
 * (`Authorization: Bearer ...`, `x-api-key`), so they are write-only: the API accepts them and
 * never returns their values; the view ({@link Agent}) lists only `header_names`. The worker
 * reads the full record ({@link AgentRecord}) through the store (`agents.resolveForCall`).
 */

export const MAX_AGENT_HEADERS = 50;
export const MAX_HEADER_VALUE = 8192;

export { isUuid };

/** RFC 9110 `token`: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: what every HTTP client sends unchanged (no CR, LF or NUL). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Headers the HTTP client sets itself for each call; a stored value would break the request. */
const MANAGED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

/** Request headers sent with every call (agents, HTTP custom scorers): write-only, values never shown. */
export const HeadersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > MAX_AGENT_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_AGENT_HEADERS} headers` });
  const seen = new Set<string>();
  for (const name of names.slice(0, MAX_AGENT_HEADERS + 1)) {
    const lower = name.toLowerCase();
    if (name.length > 256 || !HEADER_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: "header names are 1-256 letters, digits and !#$%&'*+-.^_`|~" });
    } else if (MANAGED_HEADERS.has(lower)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `${lower} is set by the HTTP client for each call` });
    } else if (seen.has(lower)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'header names are case-insensitive: this one is given twice' });
    }
    seen.add(lower);
    const value = headers[name];
    if (value.length > MAX_HEADER_VALUE) ctx.addIssue({ code: 'custom', path: [name], message: `at most ${MAX_HEADER_VALUE} characters` });
    else if (!HEADER_VALUE.test(value)) ctx.addIssue({ code: 'custom', path: [name], message: 'header values hold visible ASCII, spaces and tabs only' });
  }
});

/** An agent's name: also how `agentId` finds it, so it must not look like an id. */
const AgentName = asId(z.string().max(256).trim().min(1)).refine((name) => !isUuid(name), 'must not be a UUID (it would be taken for an agent id)');

/** POST /api/agents. */
export const CreateAgentSchema = z.strictObject({
  name: AgentName,
  endpoint: HttpUrlSchema,
  description: pgText(4096).nullish(),
  headers: HeadersSchema.optional(),
});
export type CreateAgent = z.output<typeof CreateAgentSchema>;

/**
 * PUT /api/agents/{id} replaces the agent's fields: `name` and `endpoint` are required, an
 * omitted `description` becomes null. `headers` is the exception: omitted, the stored headers are
 * kept while the endpoint stays the same (a client cannot read them back to send them again) and
 * dropped when it changes, so credentials never follow the agent to an address their owner did
 * not give them to; `{}` removes them.
 */
export const UpdateAgentSchema = CreateAgentSchema;
export type UpdateAgent = z.output<typeof UpdateAgentSchema>;

/** What the API returns for an agent: never the header values. */
export interface Agent {
  id: string;
  name: string;
  endpoint: string;
  description: string | null;
  /** Names of the headers sent with each call, sorted; their values are write-only. */
  header_names: string[];
  created_at: string;
  updated_at: string;
}

/** The whole agent, for the worker that calls it: the view plus the header values. */
export interface AgentRecord extends Agent {
  headers: Record<string, string>;
}

/** The one converter from the full record to the API view. */
export function toAgentView(record: AgentRecord): Agent {
  const { id, name, endpoint, description, header_names, created_at, updated_at } = record;
  return { id, name, endpoint, description, header_names, created_at, updated_at };
}

export interface AgentList {
  agents: Agent[];
  total: number;
  limit: number;
  offset: number;
}
