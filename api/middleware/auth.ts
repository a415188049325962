import type { Context, Next } from 'koa';
import type { Authenticator } from '../../core/auth/authenticator.js';
import { RateLimitedError, rateLimitHeaders, type RateBucket, type RateLimiter } from '../../core/limits/rate-limiter.js';

/** The routes of the `ingest` and `evalRuns` groups; every other /api call is a `query` (SPEC Limits). */
const INGEST_ROUTES = new Set(['POST /api/traces/ingest', 'POST /api/spans']);
const EVAL_RUN_ROUTES = new Set(['POST /api/runs', 'POST /api/evals/runs']);

export function rateBucketOf(method: string, path: string): RateBucket {
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  if (INGEST_ROUTES.has(route)) return 'ingest';
  if (EVAL_RUN_ROUTES.has(route)) return 'evalRuns';
  return 'query';
}

/**
 * Every /api/* call behind it: who is calling (401 without valid credentials), for which project
 * (403 for a project the credential cannot reach), then the project's rate limit for the route's
 * group (429 past it). Fills the typed request state the routes read; every answer carries the
 * X-RateLimit-* headers.
 */
export function authenticate(auth: Authenticator, limiter: RateLimiter) {
  return async (ctx: Context, next: Next) => {
    const caller = await auth.authenticate(ctx.headers, ctx.query);
    ctx.state.principal = caller.principal;
    ctx.state.projectId = caller.projectId;
    ctx.state.permissions = caller.permissions;
    ctx.state.reach = caller.reach;
    try {
      ctx.set(rateLimitHeaders(await limiter.take(caller.projectId, rateBucketOf(ctx.method, ctx.path))));
    } catch (err) {
      if (err instanceof RateLimitedError) ctx.set(rateLimitHeaders(err.verdict));
      throw err;
    }
    await next();
  };
}
