import type { Authenticator } from '../../core/auth/authenticator.js';
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
 * (`x-api-key`, `authorization: Bearer`, `x-project-id`), or throws 401 / 403 / 429.
 */
export type ExportGate = (headers: HeaderBag, query: QueryBag) => Promise<ExportCaller>;

/**
 * The receivers' gate: the API's authentication (a key is bound to its project; `AUTH_MODE=none`
 * puts exports that name no project in `defaultProjectId`), the `traces:write` permission, and the
 * project's ingestion rate limit, where one export counts as one request whatever its size.
 */
export function exportGate(auth: Authenticator, limiter: RateLimiter, defaultProjectId: string): ExportGate {
  return async (headers, query) => {
    const caller = await auth.authenticate(headers, query, defaultProjectId);
    if (!caller.permissions.has('traces:write')) throw new ForbiddenError('missing permission traces:write');
    return { projectId: caller.projectId, headers: rateLimitHeaders(await limiter.take(caller.projectId, 'ingest')) };
  };
}
