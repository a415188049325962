import Router from '@koa/router';
import { NotFoundError } from '../../core/errors.js';
import { withLlm } from '../../core/messages/index.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

export function spansRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/spans' });

  // POST /api/spans (adds spans to a trace): api/ingest-routes.ts.

  router.get('/:spanId', operation('get span details'), requirePermission('traces:read'), async (ctx) => {
    const span = await deps.analytics.getSpan(ctx.state.projectId, ctx.params.spanId);
    if (!span) throw new NotFoundError('Span not found', 'SPAN_NOT_FOUND');
    ctx.body = withLlm(span);
  });

  return router;
}
