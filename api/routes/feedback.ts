import Router from '@koa/router';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import {
  AnswerComparisonSchema,
  bodyProblems,
  ComparisonListQuerySchema,
  FeedbackListQuerySchema,
  parseComparison,
  parseFeedback,
} from '../../core/model/feedback.js';
import { feedbackScores } from '../../core/feedback/annotation-scores.js';
import { traceIO, writeAnnotationScores } from '../../core/feedback/trace-io.js';
import { pgSafeText } from '../../core/model/pg-json.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { readWriteGuards } from '../middleware/permission.js';
import { actorFor, personOf } from '../actor.js';
import { orNotFound } from './or-not-found.js';

function feedbackNotFound(): NotFoundError {
  return new NotFoundError('Feedback not found', 'FEEDBACK_NOT_FOUND');
}

function comparisonNotFound(): NotFoundError {
  return new NotFoundError('Comparison not found', 'COMPARISON_NOT_FOUND');
}

/** /api/feedback: preference, correction and rating feedback, and pairwise comparisons (docs/feedback.md). */
export function feedbackRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/feedback' });
  const store = deps.metadata.feedback;
  const { read, write } = readWriteGuards('feedback');

  router.post('/comparisons', operation('submit feedback', 'metadata'), write, async (ctx) => {
    const input = parseComparison(ctx.request.body);
    const outputs: Record<'a' | 'b', string> = { a: input.output_a ?? '', b: input.output_b ?? '' };
    for (const side of ['a', 'b'] as const) {
      const traceId = input[`trace_${side}`];
      if (input[`output_${side}`] != null || !traceId) continue;
      const io = await traceIO(deps.analytics, ctx.state.projectId, traceId);
      if (!io) throw new ValidationError([{ field: `trace_${side}`, message: 'no trace with this id in the project' }]);
      outputs[side] = pgSafeText(io.output);
    }
    ctx.body = await store.createComparison(ctx.state.projectId, { ...input, output_a: outputs.a, output_b: outputs.b });
    ctx.status = 201;
  });

  router.get('/comparisons', operation('fetch feedback', 'metadata'), read, async (ctx) => {
    ctx.body = await store.listComparisons(ctx.state.projectId, validate(ComparisonListQuerySchema, ctx.query));
  });

  router.get('/comparisons/:id', operation('fetch feedback', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await store.getComparison(ctx.state.projectId, ctx.params.id), comparisonNotFound);
  });

  router.post('/comparisons/:id/answer', operation('submit feedback', 'metadata'), write, async (ctx) => {
    bodyProblems(ctx.request.body);
    const answer = validate(AnswerComparisonSchema, ctx.request.body ?? {});
    // The preference feedback and its scores are stored together or not at all (as POST /api/feedback's).
    const projectId = ctx.state.projectId;
    const result = await store.answerComparison(projectId, ctx.params.id, answer, actorFor(ctx, answer.user_id, 'user_id'), (feedback) =>
      writeAnnotationScores(deps.analytics, projectId, feedbackScores(feedback)),
    );
    if (!result) throw comparisonNotFound();
    ctx.status = result.created ? 201 : 200;
    ctx.body = { comparison: result.comparison, feedback: result.feedback };
  });

  router.post('/', operation('submit feedback', 'metadata'), write, async (ctx) => {
    const parsed = parseFeedback(ctx.request.body);
    // A signed-in person's feedback is theirs, by id and name; a key or token names any user_id (an app's end users).
    const person = personOf(ctx) && actorFor(ctx, parsed.user_id, 'user_id');
    const input = person ? { ...parsed, user_id: person.id, user_name: person.name } : parsed;
    // The row and its scores are stored together or not at all: the scores are written inside
    // the transaction that stores the row, which a refused score write rolls back (503, nothing stored).
    const projectId = ctx.state.projectId;
    ctx.body = await store.create(projectId, input, (feedback) => writeAnnotationScores(deps.analytics, projectId, feedbackScores(feedback)));
    ctx.status = 201;
  });

  router.get('/', operation('fetch feedback', 'metadata'), read, async (ctx) => {
    const q = validate(FeedbackListQuerySchema, ctx.query);
    if (q.cursor && !isUuid(q.cursor.id)) throw new ValidationError([{ field: 'cursor', message: 'must be a next_cursor of this endpoint' }]);
    ctx.body = await store.list(ctx.state.projectId, q);
  });

  router.get('/:id', operation('fetch feedback', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await store.get(ctx.state.projectId, ctx.params.id), feedbackNotFound);
  });

  return router;
}
