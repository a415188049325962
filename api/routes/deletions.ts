import Router from '@koa/router';
import type { Context } from 'koa';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { DataErasureBodySchema, type DataDeletionView } from '../../core/model/data-deletion.js';
import { idProblem } from '../../core/model/ids.js';
import { actorOf } from '../../core/principal.js';
import { validate } from '../../core/validate.js';
import { auditFrom } from '../audit-context.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/** How long DELETE /api/traces/{id} waits for its deletion before answering 202 with it instead of 204. */
const TRACE_DELETION_WAIT_MS = 10_000;

/**
 * Deleting data (docs/api.md, "Deleting data"), `projects:admin` only: it cannot be undone.
 * - `DELETE /api/traces/{id}`: the trace's spans, summary and scores, and the feedback, review
 *   items and online evaluations about it; 204 once gone (202 with the deletion to poll when it
 *   takes longer than 10 s), 404 when the project has no such trace.
 * - `POST /api/deletions {user_id | session_id}`: every trace with a span naming that end user or
 *   session (GDPR erasure), and for a user the feedback they gave; 202 with the deletion.
 * - `GET /api/deletions/{id}`: its status and what it removed.
 * Each request is in the audit log (`data.deleted`), and again when the data is gone.
 */
export function deletionsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api' });
  const admin = requirePermission('projects:admin');

  async function requested(ctx: Context, d: DataDeletionView): Promise<void> {
    await deps.audit.record({ ...auditFrom(ctx), action: 'data.deleted', projectId: d.project_id, target: d.id, details: { kind: d.kind, requested: true } });
  }

  router.delete('/traces/:traceId', operation('delete trace'), admin, async (ctx) => {
    const traceId = ctx.params.traceId;
    const problem = idProblem(traceId);
    if (problem) throw new BadRequestError(`trace id ${problem}`, 'INVALID_ID');
    if (!(await deps.analytics.getTrace(ctx.state.projectId, traceId, { limit: 1 }))) {
      throw new NotFoundError(`Trace with ID '${traceId}' not found`, 'TRACE_NOT_FOUND');
    }
    const d = await deps.dataDeletion.request({ projectId: ctx.state.projectId, kind: 'trace', target: traceId, requestedBy: actorOf(ctx.state.principal) });
    await requested(ctx, d);
    if (await deps.dataDeletion.settled(d.id, TRACE_DELETION_WAIT_MS)) {
      ctx.status = 204;
      return;
    }
    ctx.status = 202;
    ctx.set('Location', `/api/deletions/${d.id}`);
    ctx.body = d;
  });

  router.post('/deletions', operation('request deletion', 'metadata'), admin, async (ctx) => {
    const body = validate(DataErasureBodySchema, ctx.request.body);
    const [kind, target] = body.user_id !== undefined ? (['user', body.user_id] as const) : (['session', body.session_id!] as const);
    const d = await deps.dataDeletion.request({ projectId: ctx.state.projectId, kind, target, requestedBy: actorOf(ctx.state.principal) });
    await requested(ctx, d);
    ctx.status = 202;
    ctx.set('Location', `/api/deletions/${d.id}`);
    ctx.body = d;
  });

  router.get('/deletions/:id', operation('fetch deletion', 'metadata'), admin, async (ctx) => {
    const id = ctx.params.id;
    const d = /^[0-9a-f-]{36}$/i.test(id) ? await deps.dataDeletion.get(ctx.state.projectId, id) : null;
    if (!d) throw new NotFoundError('Deletion not found', 'DELETION_NOT_FOUND');
    ctx.body = d;
  });

  return router;
}
