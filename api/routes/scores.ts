import Router from '@koa/router';
import { personOf } from '../actor.js';
import { BadRequestError, ConflictError } from '../../core/errors.js';
import { CreateScoreSchema, sameScore } from '../../core/model/score.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { validate } from '../../core/validate.js';

function missing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

export function scoresRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/scores' });

  router.post('/', operation('create score'), requirePermission('traces:write'), async (ctx) => {
    const raw = ctx.request.body as Record<string, unknown> | undefined;
    // The SPEC names this one 400 text for the score's key field.
    if (!raw || typeof raw !== 'object' || missing(raw.trace_id)) throw new BadRequestError('trace_id is required', 'TRACE_ID_REQUIRED');
    const parsed = validate(CreateScoreSchema, raw);
    // A signed-in person's score (the dashboard's annotations) is recorded under their name, as feedback is.
    const person = personOf(ctx);
    const input = person ? { ...parsed, scorer_name: person.name ?? person.id } : parsed;
    // A client's id makes the POST safe to repeat: the first score with it is the answer.
    const first = input.id === undefined ? null : await deps.analytics.findScore(ctx.state.projectId, input.id);
    if (first && !sameScore(first, input)) throw new ConflictError('A different score with this id exists', 'SCORE_ID_TAKEN');
    if (first) ctx.set('Idempotent-Replayed', 'true');
    const score = first ?? (await deps.analytics.insertScore(ctx.state.projectId, input));
    ctx.status = 201;
    ctx.body = score;
  });

  router.get('/', operation('fetch scores'), requirePermission('traces:read'), async (ctx) => {
    const traceId = typeof ctx.query.trace_id === 'string' ? ctx.query.trace_id : '';
    if (!traceId) throw new BadRequestError('trace_id is required', 'TRACE_ID_REQUIRED');
    ctx.body = { scores: await deps.analytics.listScores(ctx.state.projectId, traceId) };
  });

  return router;
}
