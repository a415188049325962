import Router from '@koa/router';
import {
  ComponentHealthQuerySchema,
  CorrelationQuerySchema,
  MetricSeriesQuerySchema,
  ScoreTrendsQuerySchema,
  ToolAnalyticsQuerySchema,
} from '../../core/model/analytics.js';
import { validate } from '../../core/validate.js';
import { CostBreakdownQuerySchema } from '../../core/model/cost-analytics.js';
import { isUuid } from '../../core/model/id-rules.js';
import type { ApiDeps } from '../deps.js';
import { correlationErrorCodes } from '../middleware/correlation-errors.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/**
 * GET /api/analytics/*: aggregates over the project's traces, spans and scores for the
 * dashboard's analytics page, computed in the analytical store (docs/api.md, "Analytics").
 * They read what GET /api/traces reads, so they need the same permission.
 */
export function analyticsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/analytics' });
  const reads = deps.analytics.aggregates;
  const read = requirePermission('traces:read');

  router.get('/scores', operation('fetch score trends'), read, async (ctx) => {
    ctx.body = await reads.scoreTrends(ctx.state.projectId, validate(ScoreTrendsQuerySchema, ctx.query));
  });

  router.get('/components', operation('fetch component health'), read, async (ctx) => {
    ctx.body = await reads.componentHealth(ctx.state.projectId, validate(ComponentHealthQuerySchema, ctx.query));
  });

  router.get('/timeseries', operation('fetch metric series'), read, async (ctx) => {
    ctx.body = await reads.metricSeries(ctx.state.projectId, validate(MetricSeriesQuerySchema, ctx.query));
  });

  router.get('/correlation', operation('fetch score correlation'), read, correlationErrorCodes, async (ctx) => {
    ctx.body = await reads.correlation(ctx.state.projectId, validate(CorrelationQuerySchema, ctx.query));
  });

  router.get('/tools', operation('fetch tool analytics'), read, async (ctx) => {
    ctx.body = await reads.tools(ctx.state.projectId, validate(ToolAnalyticsQuerySchema, ctx.query));
  });

  router.get('/costs', operation('fetch cost analytics'), read, async (ctx) => {
    const projectId = ctx.state.projectId;
    const costs = await reads.costs(projectId, validate(CostBreakdownQuerySchema, ctx.query));
    if (costs.group_by === 'suite') {
      // A suite group is an evaluation run (its traces name the run): named by the run's suite.
      for (const g of costs.groups) {
        if (g.key === '' || g.key === 'other') continue;
        const run = isUuid(g.key) ? await deps.metadata.runs.get(projectId, g.key) : null;
        g.label = run?.suite_name ?? run?.name ?? null;
      }
    }
    ctx.body = costs;
  });

  return router;
}
