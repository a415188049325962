import type { Context, Next } from 'koa';
import type { Authenticator } from '../../core/auth/authenticator.js';
import type { Sessions } from '../../core/auth/sessions.js';
import type { ProjectAccess, ProjectStates } from '../../core/auth/project-states.js';
import { RateLimitedError, rateLimitHeaders, type RateBucket, type RateLimiter } from '../../core/limits/rate-limiter.js';
import { sessionCaller } from './session-auth.js';

/** The routes of the `ingest` and `evalRuns` groups; every other /api call is a `query` (SPEC Limits). */
const INGEST_ROUTES = new Set(['POST /api/traces/ingest', 'POST /api/spans']);
const EVAL_RUN_ROUTES = new Set(['POST /api/runs', 'POST /api/evals/runs']);

export function rateBucketOf(method: string, path: string): RateBucket {
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  if (INGEST_ROUTES.has(route)) return 'ingest';
  if (EVAL_RUN_ROUTES.has(route)) return 'evalRuns';
  return 'query';
}

/** POSTs that change nothing: they read like a GET, so an archived project answers them. */
// POST /mcp itself: each tool's API call is judged on its own (api/mcp/route.ts).
const READING_POSTS = [/^\/api\/(evals\/)?compare$/, /^\/api\/prompts\/[^/]+\/render$/, /^\/mcp$/];
/**
 * Routes that govern rather than touch the caller's project's data, never refused by its status:
 * a server admin's routes (creating projects, /api/admin/projects...) act on the server, and
 * revoking a key must stay possible whatever state its project is in.
 */
const GOVERNING = [/^POST \/api\/projects$/, /^[A-Z]+ \/api\/admin\/projects(\/|$)/, /^DELETE \/api\/projects\/[^/]+\/keys\/[^/]+$/];

/** What a call does to its project's data, as an archived project judges it (docs/security.md, "Archiving"); null: governance. */
export function projectAccessOf(method: string, path: string): ProjectAccess | null {
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  if (GOVERNING.some((r) => r.test(route))) return null;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'read';
  if (method === 'POST' && READING_POSTS.some((r) => r.test(path.replace(/\/+$/, '')))) return 'read';
  return 'write';
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Every /api/* call behind it: who is calling (401 without valid credentials), for which project
 * (403 for a project the credential cannot reach), then the project's rate limit for the route's
 * group (429 past it). Fills the typed request state the routes read; every answer carries the
 * X-RateLimit-* headers. Between the two, the project's status (`states`): an archived project
 * refuses writes, a deleted one everything (403). A request with the dashboard's session cookie
 * and no key or token is the session's (`sessions`, absent with AUTH_MODE=none), checked against
 * CSRF first.
 */
export function authenticate(auth: Authenticator, limiter: RateLimiter, sessions: Sessions | undefined, states: ProjectStates) {
  return async (ctx: Context, next: Next) => {
    const peer = ctx.req.socket.remoteAddress;
    // JSON ingest rides out an outage of PostgreSQL on keys verified before it (docs/security.md, "Key checks").
    const use = rateBucketOf(ctx.method, ctx.path) === 'ingest' ? 'ingest' : undefined;
    const caller = (sessions && (await sessionCaller(ctx, sessions))) ?? (await auth.authenticate(ctx.headers, ctx.query, undefined, peer, use));
    ctx.state.principal = caller.principal;
    ctx.state.projectId = caller.projectId;
    ctx.state.permissions = caller.permissions;
    ctx.state.reach = caller.reach;
    ctx.state.clientAddress = caller.clientAddress ?? auth.clientAddress(ctx.headers, peer);
    const access = projectAccessOf(ctx.method, ctx.path);
    if (access) {
      await states.check(caller.projectId, access);
      // /api/projects/{id}/... acts on the path's project, which a multi-project credential may
      // name apart from the call's; one it cannot reach stays the route's 404, telling nothing.
      const segment = /^\/api\/projects\/([^/]+)\//.exec(ctx.path)?.[1];
      const named = segment === undefined ? undefined : safeDecode(segment);
      if (named !== undefined && named !== caller.projectId && (caller.reach === null || caller.reach.includes(named))) await states.check(named, access);
    }
    try {
      ctx.set(rateLimitHeaders(await limiter.take(caller.projectId, rateBucketOf(ctx.method, ctx.path))));
    } catch (err) {
      if (err instanceof RateLimitedError) ctx.set(rateLimitHeaders(err.verdict));
      throw err;
    }
    await next();
  };
}
