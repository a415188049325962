import Router from '@koa/router';
import { CalibrationListQuerySchema, JudgeCalibrationQuerySchema } from '../../core/model/calibration.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/**
 * GET /api/judges/calibration and /api/judges/{name}/calibration: how well judges agree with
 * people on the same traces (docs/judges.md "Calibration"), computed in the analytical store.
 * They read scores, so they need what GET /api/scores needs.
 */
export function judgeCalibrationRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/judges' });
  const reads = deps.analytics.calibration;

  router.get('/calibration', operation('fetch judge calibration'), requirePermission('traces:read'), async (ctx) => {
    ctx.body = await reads.list(ctx.state.projectId, validate(CalibrationListQuerySchema, ctx.query));
  });

  router.get('/:name/calibration', operation('fetch judge calibration'), requirePermission('traces:read'), async (ctx) => {
    ctx.body = await reads.judge(ctx.state.projectId, ctx.params.name, validate(JudgeCalibrationQuerySchema, ctx.query));
  });

  return router;
}
