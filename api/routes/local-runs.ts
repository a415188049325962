import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { BadRequestError } from '../../core/errors.js';
import { CompleteLocalRunSchema, CreateLocalRunSchema, LocalResultsSchema } from '../../core/model/eval-run.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { createLocalRunService } from '../local-run-service.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { assertStorable } from '../run-service.js';

const missing = (v: unknown) => v === undefined || v === null || v === '';
const isLocal = (body: unknown) => typeof body === 'object' && body !== null && (body as { execution?: unknown }).execution === 'local';

/** The SPEC's 400 texts of `POST /api/runs`, as for a managed run (scorers may instead be given per item). */
function requireLocalRunFields(raw: Record<string, unknown>): void {
  if (missing(raw.agentId)) throw new BadRequestError('agentId is required', 'AGENT_ID_REQUIRED');
  const items = (raw.dataset as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items) || items.length === 0) throw new BadRequestError('dataset.items is required and must not be empty', 'DATASET_REQUIRED');
  const everyItemHasScorers = items.every((item) => Array.isArray((item as { scorers?: unknown } | null)?.scorers) && ((item as { scorers: unknown[] }).scorers.length > 0));
  if (!everyItemHasScorers && (!Array.isArray(raw.scorers) || raw.scorers.length === 0)) throw new BadRequestError('scorers is required and must not be empty', 'SCORERS_REQUIRED');
}

/**
 * Runs executed outside the service (docs/evals.md, "Runs executed outside the service"):
 * `POST /api/runs` with `execution: "local"` (any other body goes on to the managed runs'
 * route), `POST /api/runs/{id}/results`, `POST /api/runs/{id}/complete`. Mounted before the
 * runs router; every read of these runs is that router's.
 */
export function localRunsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api' });
  const service = createLocalRunService(deps);
  const canRun = requirePermission('evals:run');

  router.post('/runs', async (ctx: Context, next: Next) => {
    if (!isLocal(ctx.request.body)) {
      await next();
      return;
    }
    await operation('create eval run', 'metadata')(ctx, () =>
      canRun(ctx, async () => {
        requireLocalRunFields(ctx.request.body as Record<string, unknown>);
        assertStorable(ctx.request.body);
        ctx.status = 201;
        ctx.body = await service.create(ctx.state.projectId, validate(CreateLocalRunSchema, ctx.request.body));
      }),
    );
  });

  router.post('/runs/:id/results', operation('create eval run', 'metadata'), canRun, async (ctx) => {
    assertStorable(ctx.request.body);
    const { results } = validate(LocalResultsSchema, ctx.request.body);
    ctx.body = await service.addResults(ctx.state.projectId, ctx.params.id, results);
  });

  router.post('/runs/:id/complete', operation('control eval run', 'metadata'), canRun, async (ctx) => {
    const body = validate(CompleteLocalRunSchema, ctx.request.body ?? {});
    ctx.body = await service.complete(ctx.state.projectId, ctx.params.id, body);
  });

  return router;
}
