import Router from '@koa/router';
import { CreateEvalRunSchema } from '../../core/model/eval-run.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { assertStorable, type RunService } from '../run-service.js';
import { sharedRunRoutes } from './run-params.js';

/** The first run family (SPEC "Eval runs, first family"): runs of stored suites by name. */
export function evalRunsRouter(_deps: ApiDeps, service: RunService): Router {
  const router = new Router({ prefix: '/api/evals' });

  router.post('/runs', operation('create eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    assertStorable(ctx.request.body);
    const run = await service.createFromSuite(ctx.state.projectId, validate(CreateEvalRunSchema, ctx.request.body));
    ctx.status = 202;
    ctx.body = run;
  });

  router.get('/runs/:id', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    ctx.body = await service.get(ctx.state.projectId, ctx.params.id);
  });

  sharedRunRoutes(router, service);

  return router;
}
