import type { Authenticator } from '../../core/auth/authenticator.js';
import type { ProjectStates } from '../../core/auth/project-states.js';
import { ForbiddenError } from '../../core/errors.js';
import { rateLimitHeaders, type RateLimiter } from '../../core/limits/rate-limiter.js';
import type { HeaderBag, QueryBag } from '../../core/project-context.js';

/** An export let in: its project, and headers for the answer (X-RateLimit-*). */
export interface ExportCaller {
  projectId: string;
  headers: Record<string, string>;
}

/**
 * Who may export into which project: resolves the caller from HTTP headers or gRPC metadata
 * (`x-api-key`, `authorization: Bearer`, `x-project-id`), or throws 401 / 403 / 429. `peer`:
 * the connection's remote address (failed authentication is throttled per client address).
 */
export type ExportGate = (headers: HeaderBag, query: QueryBag, peer?: string) => Promise<ExportCaller>;

/**
 * The receivers' gate: the API's authentication (a key is bound to its project; `AUTH_MODE=none`
 * puts exports that name no project in `defaultProjectId`), the `traces:write` permission, the
 * project's status (an archived or deleted project takes no export: 403, PERMISSION_DENIED, which
 * exporters do not retry), and the project's ingestion rate limit, where one export counts as one
 * request whatever its size.
 */
export function exportGate(auth: Authenticator, limiter: RateLimiter, defaultProjectId: string, states: ProjectStates): ExportGate {
  return async (headers, query, peer) => {
    // Exports ride out an outage of PostgreSQL on keys verified before it (docs/security.md, "Key checks").
    const caller = await auth.authenticate(headers, query, defaultProjectId, peer, 'ingest');
    if (!caller.permissions.has('traces:write')) throw new ForbiddenError('missing permission traces:write');
    await states.check(caller.projectId, 'write');
    return { projectId: caller.projectId, headers: rateLimitHeaders(await limiter.take(caller.projectId, 'ingest')) };
  };
}
