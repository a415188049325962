import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { ApiDeps } from './deps.js';
import { authenticate } from './middleware/auth.js';
import { operation } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { requirePermission } from './middleware/permission.js';
import { requestText } from './middleware/request-text.js';

/**
 * The JSON write routes, `POST /api/traces/ingest` and `POST /api/spans`, on a short router of
 * their own, mounted before every other (issue 33: most SDK and `curl` users send many small
 * requests, and each paid for walking the dashboard's middleware, the open and OTLP routers and
 * the project API's two dozen routers to reach its handler). The same checks as every /api
 * route, in the same order: authentication, project status and rate limit, the request-text
 * rule, admission (a full write path refuses before the body is read, as the OTLP receivers
 * do), the body's limits, the permission. They take no Idempotency-Key (a re-sent span replaces
 * itself) and bring no pattern to check.
 */
/**
 * The parsed body, taken from the context: the context lives until the answer is sent, after the
 * insert, and would keep every waiting request's body alive through young-generation collections
 * (issue 33). Nothing reads it after the route.
 */
function takeBody(ctx: Context): unknown {
  const body: unknown = ctx.request.body;
  ctx.request.body = undefined;
  return body;
}

export function ingestRouter(deps: ApiDeps): Router {
  const router = new Router();
  const checks: Middleware[] = [
    authenticate(deps.auth, deps.limiter, deps.sessions, deps.projectStates),
    requestText(),
    async (_ctx, next) => {
      deps.collector.admit();
      await next();
    },
    jsonBody(deps.config.maxBodyBytes),
  ];

  router.post('/api/traces/ingest', ...checks, operation('ingest trace'), requirePermission('traces:write'), async (ctx: Context) => {
    ctx.body = await deps.collector.ingestTrace(ctx.state.projectId, takeBody(ctx));
    ctx.status = 201;
  });

  /** Adds spans to a trace: `{trace_id, spans: [...]}`, or one span object with its `trace_id`. */
  router.post('/api/spans', ...checks, operation('insert span'), requirePermission('traces:write'), async (ctx: Context) => {
    ctx.body = await deps.collector.ingestSpans(ctx.state.projectId, takeBody(ctx));
    ctx.status = 201;
  });

  return router;
}
