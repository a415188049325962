import Router from '@koa/router';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { CreateCustomScorerSchema } from '../../core/model/custom-scorer.js';
import { validate } from '../../core/validate.js';
import { urlForAudit } from '../../core/audit/audit-log.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { assertEgressAllowed } from '../egress-check.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { pageQuery } from './page-query.js';

/** Largest page of GET /api/scorers. */
export const MAX_SCORER_PAGE = 1000;

const ListQuerySchema = pageQuery(MAX_SCORER_PAGE);

function scorerNotFound(): NotFoundError {
  return new NotFoundError('Scorer not found', 'SCORER_NOT_FOUND');
}

/**
 * /api/scorers: HTTP custom scorers, registered per project like agents (docs/scorers.md).
 * `:id` is a scorer's id or its name. A name the process's own scorers already use (a rule, a
 * judge, `llmJudge:…`) is refused: suites name scorers by name.
 */
export function scorersRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/scorers' });
  const scorers = deps.metadata.scorers;

  router.post('/', operation('create scorer', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const input = validate(CreateCustomScorerSchema, ctx.request.body);
    if (deps.scorers.get(input.name)) throw new ValidationError([{ field: 'name', message: `'${input.name}' is a built-in scorer's name` }]);
    await assertEgressAllowed(deps, [{ field: 'endpoint', url: input.endpoint }]);
    const scorer = await scorers.create(ctx.state.projectId, input);
    await deps.audit.record({
      ...auditFrom(ctx),
      action: 'scorer.created',
      projectId: ctx.state.projectId,
      target: scorer.id,
      details: { name: scorer.name, endpoint: urlForAudit(scorer.endpoint), header_names: scorer.header_names },
    });
    ctx.body = scorer;
    ctx.status = 201;
  });

  router.get('/', operation('fetch scorers', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await scorers.list(ctx.state.projectId, q);
  });

  router.get('/:id', operation('fetch scorer', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const scorer = await scorers.resolve(ctx.state.projectId, ctx.params.id);
    if (!scorer) throw scorerNotFound();
    ctx.body = scorer;
  });

  router.delete('/:id', operation('delete scorer', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const scorer = await scorers.resolve(ctx.state.projectId, ctx.params.id);
    if (!scorer || !(await scorers.delete(ctx.state.projectId, ctx.params.id))) throw scorerNotFound();
    await deps.audit.record({
      ...auditFrom(ctx),
      action: 'scorer.deleted',
      projectId: ctx.state.projectId,
      target: scorer.id,
      details: { name: scorer.name, endpoint: urlForAudit(scorer.endpoint) },
    });
    ctx.status = 204;
  });

  return router;
}
