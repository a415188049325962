import Router from '@koa/router';
import { loadPriceTable } from '../../core/cost/price-table.js';
import { RecomputeCostsSchema } from '../../core/model/cost.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/**
 * POST /api/admin/recompute-costs {from, to}: reprices the project's generation spans that
 * started in [from, to) with this process's price table and says what changed (docs/costs.md
 * "Recompute"). For a price change, or spans stored before costs existed.
 */
export function adminCostsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/admin' });
  const prices = deps.prices ?? loadPriceTable();

  router.post('/recompute-costs', operation('recompute costs'), requirePermission('projects:admin'), async (ctx) => {
    const body = validate(RecomputeCostsSchema, ctx.request.body ?? {});
    ctx.body = await deps.analytics.costs.recompute(ctx.state.projectId, new Date(body.from), new Date(body.to), prices);
  });

  /** The table in force: its version and every model's prices, so a recompute can be checked before it runs. */
  router.get('/prices', operation('fetch prices'), requirePermission('traces:read'), (ctx) => {
    ctx.body = { version: prices.version, currency: 'USD', unit: 'per million tokens', models: prices.entries() };
  });

  return router;
}
