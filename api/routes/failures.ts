import Router from '@koa/router';
import { createFailureAnalysis } from '../../core/failures/failure-analysis.js';
import { RunFailureQuerySchema, TraceFailureQuerySchema } from '../../core/model/failures.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/**
 * Failure analysis (docs/api.md, "Failure analysis"): a run's failed cases grouped by signature
 * (both run families), and production traces with errors in a window grouped the same way.
 */
export function failuresRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api' });
  const analysis = createFailureAnalysis({ runs: deps.metadata.runs, traces: deps.analytics, labels: deps.metadata.failureLabels, judges: deps.judges });

  for (const path of ['/runs/:id/failures', '/evals/runs/:id/failures']) {
    router.get(path, operation('analyze run failures', 'metadata'), requirePermission('evals:read'), async (ctx) => {
      const q = validate(RunFailureQuerySchema, ctx.query);
      ctx.body = await analysis.ofRun(ctx.state.projectId, ctx.params.id, q.label);
    });
  }

  router.get('/failures', operation('analyze trace failures'), requirePermission('traces:read'), async (ctx) => {
    const q = validate(TraceFailureQuerySchema, ctx.query);
    ctx.body = await analysis.ofTraces(ctx.state.projectId, q);
  });
  return router;
}
