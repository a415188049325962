import Router from '@koa/router';
import { z } from 'zod';
import { BadRequestError, ConflictError } from '../../core/errors.js';
import { caseShapeProblem } from '../../core/model/case-schema.js';
import {
  CompleteLocalRunSchema,
  CONTROL_ACTIONS,
  CreateLocalRunSchema,
  CreateRunSchema,
  FINAL_RUN_STATUSES,
  LocalResultsSchema,
  RUN_STATUSES,
  type ControlAction,
} from '../../core/model/eval-run.js';
import { auditFrom } from '../audit-context.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { assertStorable, type RunService } from '../run-service.js';
import { sharedRunRoutes } from './run-params.js';
import { pageQuery } from './page-query.js';

export const ListQuery = pageQuery(500).extend({
  status: z.enum(RUN_STATUSES).optional(),
  suite_name: z.string().min(1).max(512).optional(),
  suite_id: z.uuid().optional(),
  agent_id: z.string().min(1).max(512).optional(),
  agent_version: z.string().min(1).max(512).optional(),
});

export const CaseIndex = z.coerce.number().int().min(0).max(1_000_000);
export const ApprovalBody = z.object({
  approved: z.boolean(),
  trial: z.number().int().min(0).max(1000).default(0),
  comment: z.string().max(4096).optional(),
});

const missing = (v: unknown) => v === undefined || v === null || v === '';
const isLocal = (body: unknown) => typeof body === 'object' && body !== null && (body as { execution?: unknown }).execution === 'local';

/**
 * The SPEC's 400 texts for the second family's required fields, before the schema's 422s. A run
 * its client executes may give scorers per item instead of for the run.
 */
function requireRunFields(raw: unknown, local: boolean): void {
  const body = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  if (missing(body.agentId)) throw new BadRequestError('agentId is required', 'AGENT_ID_REQUIRED');
  const items = (body.dataset as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items) || items.length === 0) throw new BadRequestError('dataset.items is required and must not be empty', 'DATASET_REQUIRED');
  // A case is one call, a scripted conversation or a simulated user: never two of them (docs/evals.md, "Conversations").
  for (const [i, item] of items.entries()) {
    const problem = caseShapeProblem(item);
    if (problem) throw new BadRequestError(`dataset.items[${i}]: ${problem}`, 'CASE_SHAPE');
  }
  const everyItemHasScorers =
    local && items.every((item) => Array.isArray((item as { scorers?: unknown } | null)?.scorers) && (item as { scorers: unknown[] }).scorers.length > 0);
  if (!everyItemHasScorers && (!Array.isArray(body.scorers) || body.scorers.length === 0))
    throw new BadRequestError('scorers is required and must not be empty', 'SCORERS_REQUIRED');
}

/**
 * The second run family (SPEC "Eval runs, second family"): inline datasets, control, comparison;
 * and the uploads of runs executed outside the service (docs/evals.md, "Runs executed outside the
 * service": `POST /api/runs` with `execution: "local"`, `/results`, `/complete`).
 */
export function runsRouter(deps: ApiDeps, service: RunService): Router {
  const router = new Router({ prefix: '/api' });

  // One handler for both executions: a managed run is accepted (202) and started on the workflow
  // engine; a local one is created running (201) for its client to upload results to.
  router.post('/runs', operation('create eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    const local = isLocal(ctx.request.body);
    requireRunFields(ctx.request.body, local);
    assertStorable(ctx.request.body);
    const body = local ? validate(CreateLocalRunSchema, ctx.request.body) : validate(CreateRunSchema, ctx.request.body);
    const run = await service.createFromDataset(ctx.state.projectId, body);
    ctx.status = local ? 201 : 202;
    ctx.body = run;
  });

  router.post('/runs/:id/results', operation('create eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    assertStorable(ctx.request.body);
    const { results } = validate(LocalResultsSchema, ctx.request.body);
    ctx.body = await service.addResults(ctx.state.projectId, ctx.params.id, results);
  });

  router.post('/runs/:id/complete', operation('control eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    const body = validate(CompleteLocalRunSchema, ctx.request.body ?? {});
    ctx.body = await service.complete(ctx.state.projectId, ctx.params.id, body);
  });

  router.get('/runs', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const q = validate(ListQuery, ctx.query);
    const { runs, total } = await deps.metadata.runs.list(ctx.state.projectId, q);
    ctx.body = { runs, total, limit: q.limit, offset: q.offset };
  });

  router.get('/runs/:id', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    ctx.body = await service.get(ctx.state.projectId, ctx.params.id);
  });

  // Deleting a finished run (docs/evals.md, "Deleting a run"): its cases, results and judge calls go with it.
  router.delete('/runs/:id', operation('delete eval run', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const run = await service.get(ctx.state.projectId, ctx.params.id);
    if (!FINAL_RUN_STATUSES.has(run.status)) {
      throw new ConflictError(
        `Eval run ${run.run_id} is ${run.status}: cancel it first (POST /api/runs/${run.run_id}/control {"action": "cancel"})`,
        'RUN_NOT_FINISHED',
      );
    }
    await deps.metadata.runs.discard(run.run_id);
    await deps.audit.record({ ...auditFrom(ctx), action: 'data.deleted', projectId: ctx.state.projectId, target: run.run_id, details: { kind: 'run' } });
    ctx.status = 204;
  });

  router.get('/runs/:id/status', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    ctx.body = await service.status(ctx.state.projectId, ctx.params.id);
  });

  router.get('/runs/:id/approvals', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    ctx.body = await service.approvals(ctx.state.projectId, ctx.params.id);
  });

  router.post('/runs/:id/control', operation('control eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    const action = (ctx.request.body as { action?: unknown } | undefined)?.action;
    if (typeof action !== 'string' || !(CONTROL_ACTIONS as readonly string[]).includes(action)) {
      throw new BadRequestError('Invalid action (must be one of pause, resume, cancel)', 'INVALID_ACTION');
    }
    ctx.status = 202;
    ctx.body = await service.control(ctx.state.projectId, ctx.params.id, action as ControlAction);
  });

  router.post('/runs/:id/cases/:index/cancel', operation('control eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    const index = validate(CaseIndex, ctx.params.index);
    ctx.status = 202;
    ctx.body = await service.cancelCase(ctx.state.projectId, ctx.params.id, index);
  });

  router.post('/runs/:id/cases/:index/approval', operation('control eval run', 'metadata'), requirePermission('evals:run'), async (ctx) => {
    const index = validate(CaseIndex, ctx.params.index);
    assertStorable(ctx.request.body);
    const body = validate(ApprovalBody, ctx.request.body);
    ctx.status = 202;
    ctx.body = await service.approve(ctx.state.projectId, ctx.params.id, {
      case_index: index,
      trial: body.trial,
      approved: body.approved,
      comment: body.comment,
      by: ctx.state.principal.id,
    });
  });

  sharedRunRoutes(router, service);

  return router;
}
