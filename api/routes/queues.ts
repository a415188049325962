import Router from '@koa/router';
import type { Context } from 'koa';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { bodyProblems, type Feedback } from '../../core/model/feedback.js';
import { contentHash } from '../../core/ids/derived-ids.js';
import { feedbackScores, itemScores } from '../../core/feedback/annotation-scores.js';
import { tracesMatching } from '../../core/feedback/queue-filter.js';
import { reviewedCase } from '../../core/feedback/reviewed-case.js';
import { traceIO, writeAnnotationScores } from '../../core/feedback/trace-io.js';
import {
  AddItemsSchema,
  checkScores,
  CompleteSchema,
  ItemListQuerySchema,
  NextSchema,
  parseCreateQueue,
  SkipSchema,
  ToSuiteSchema,
  type QueueItem,
  type ReviewQueue,
} from '../../core/model/queue.js';
import { appendCases } from '../../core/datasets/suite-append.js';
import { suiteAppendDeps } from './suite-cases.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { readWriteGuards, requirePermission } from '../middleware/permission.js';
import { pageQuery } from './page-query.js';
import { actorFor } from '../actor.js';
import type { Actor } from '../../core/principal.js';
import { orNotFound } from './or-not-found.js';

/** Largest page of GET /api/queues. */
export const MAX_QUEUE_PAGE = 1000;
export const ListQuerySchema = pageQuery(MAX_QUEUE_PAGE);

function queueNotFound(): NotFoundError {
  return new NotFoundError('Queue not found', 'QUEUE_NOT_FOUND');
}

function itemNotFound(): NotFoundError {
  return new NotFoundError('Queue item not found', 'QUEUE_ITEM_NOT_FOUND');
}

/** Who reviews: the signed-in person, else the `reviewer` the client names, else the caller's principal id. */
function reviewerOf(ctx: Context, named: string | undefined): Actor {
  return actorFor(ctx, named, 'reviewer');
}

/** /api/queues: review queues of traces (docs/feedback.md). */
export function queuesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/queues' });
  const queues = deps.metadata.queues;
  const { read, write } = readWriteGuards('feedback');

  async function queueOf(ctx: Context, id: string): Promise<ReviewQueue> {
    const queue = await queues.get(ctx.state.projectId, id);
    if (!queue) throw queueNotFound();
    return queue;
  }

  router.post('/', operation('create queue', 'metadata'), write, async (ctx) => {
    const def = parseCreateQueue(ctx.request.body);
    const picked = def.filter
      ? await tracesMatching(deps.analytics, ctx.state.projectId, def.filter, def.max_items)
      : { traceIds: def.trace_ids ?? [], truncated: false };
    const queue = await queues.create(ctx.state.projectId, def, picked.traceIds);
    ctx.body = { ...queue, truncated: picked.truncated };
    ctx.status = 201;
  });

  router.get('/', operation('fetch queue', 'metadata'), read, async (ctx) => {
    ctx.body = await queues.list(ctx.state.projectId, validate(ListQuerySchema, ctx.query));
  });

  router.get('/:id', operation('fetch queue', 'metadata'), read, async (ctx) => {
    ctx.body = await queueOf(ctx, ctx.params.id);
  });

  router.post('/:id/items', operation('update queue', 'metadata'), write, async (ctx) => {
    bodyProblems(ctx.request.body);
    const body = validate(AddItemsSchema, ctx.request.body ?? {});
    await queueOf(ctx, ctx.params.id);
    const picked = body.filter
      ? await tracesMatching(deps.analytics, ctx.state.projectId, body.filter, body.max_items)
      : { traceIds: body.trace_ids ?? [], truncated: false };
    const result = await queues.addItems(ctx.state.projectId, ctx.params.id, picked.traceIds);
    if (!result) throw queueNotFound();
    ctx.body = { ...result, truncated: picked.truncated };
  });

  router.get('/:id/items', operation('fetch queue', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await queues.items(ctx.state.projectId, ctx.params.id, validate(ItemListQuerySchema, ctx.query)), queueNotFound);
  });

  router.get('/:id/items/:itemId', operation('fetch queue', 'metadata'), read, async (ctx) => {
    ctx.body = orNotFound(await queues.item(ctx.state.projectId, ctx.params.id, ctx.params.itemId), itemNotFound);
  });

  // `next` changes state (it takes a lock), so it needs the write permission even as a GET.
  const next = async (ctx: Context, id: string, input: unknown) => {
    bodyProblems(input);
    const q = validate(NextSchema, input ?? {});
    const queue = await queueOf(ctx, id);
    const lockSeconds = q.lock_seconds ?? queue.lock_seconds;
    const item = await queues.next(ctx.state.projectId, queue.id, reviewerOf(ctx, q.reviewer), lockSeconds);
    ctx.body = { item, lock_seconds: lockSeconds };
  };
  router.get('/:id/next', operation('update queue', 'metadata'), write, (ctx) => {
    // The project may come as a query parameter too; it is not one of next's own.
    const query = Object.fromEntries(Object.entries(ctx.query).filter(([k]) => k !== 'project_id' && k !== 'workspace_id'));
    return next(ctx, ctx.params.id, query);
  });
  router.post('/:id/next', operation('update queue', 'metadata'), write, (ctx) => next(ctx, ctx.params.id, ctx.request.body));

  router.post('/:id/items/:itemId/complete', operation('update queue', 'metadata'), write, async (ctx) => {
    bodyProblems(ctx.request.body);
    const completion = validate(CompleteSchema, ctx.request.body ?? {});
    const queue = await queueOf(ctx, ctx.params.id);
    checkScores(queue.score_names, completion.scores);
    const reviewer = reviewerOf(ctx, completion.reviewer);
    const hash = contentHash({ scores: completion.scores, correction: completion.correction ?? null, comment: completion.comment ?? null });
    // The completion, its correction feedback and their scores are stored together or not at all.
    const projectId = ctx.state.projectId;
    const scoresOf = (item: QueueItem, feedback: Feedback | null) => [...itemScores(queue, item), ...(feedback ? feedbackScores(feedback) : [])];
    const result = await queues.complete(projectId, queue.id, ctx.params.itemId, reviewer, completion, hash, (item, feedback) =>
      writeAnnotationScores(deps.analytics, projectId, scoresOf(item, feedback)),
    );
    if (!result) throw itemNotFound();
    const scores = scoresOf(result.item, result.feedback);
    if (!result.created) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { item: result.item, feedback: result.feedback, score_ids: scores.map((s) => s.id) };
  });

  router.post('/:id/items/:itemId/skip', operation('update queue', 'metadata'), write, async (ctx) => {
    bodyProblems(ctx.request.body);
    const body = validate(SkipSchema, ctx.request.body ?? {});
    const queue = await queueOf(ctx, ctx.params.id);
    ctx.body = orNotFound(await queues.skip(ctx.state.projectId, queue.id, ctx.params.itemId, reviewerOf(ctx, body.reviewer).id), itemNotFound);
  });

  router.post('/:id/items/:itemId/to-suite', operation('update suite', 'metadata'), write, requirePermission('evals:write'), async (ctx) => {
    bodyProblems(ctx.request.body);
    const body = validate(ToSuiteSchema, ctx.request.body ?? {});
    const projectId = ctx.state.projectId;
    const queue = await queueOf(ctx, ctx.params.id);
    const item = await queues.item(projectId, queue.id, ctx.params.itemId);
    if (!item) throw itemNotFound();
    if (!item.correction) throw new ConflictError('Queue item has no corrected output: complete it with a correction first', 'NO_CORRECTION');
    const found = body.suite_id ? await deps.metadata.suites.get(projectId, body.suite_id) : await deps.metadata.suites.getByName(projectId, body.suite_name!);
    if (!found) throw new NotFoundError('Suite not found', 'SUITE_NOT_FOUND');
    if (item.suite_case?.suite_id === found.id) {
      // Sent again (a retry): the case is in the suite already.
      ctx.set('Idempotent-Replayed', 'true');
      ctx.body = { suite_case: item.suite_case, item };
      return;
    }
    const io = await traceIO(deps.analytics, projectId, item.trace_id);
    if (!io) throw new NotFoundError(`Trace with ID '${item.trace_id}' not found`, 'TRACE_NOT_FOUND');

    const result = await appendCases(await suiteAppendDeps(deps, projectId), projectId, found.id, (def) => [
      reviewedCase(def, {
        queueName: queue.name,
        traceId: item.trace_id,
        traceInput: io.input,
        corrected: item.correction!.corrected,
        caseName: body.case_name,
        scorers: body.scorers,
      }),
    ]);
    const summary = result.summary!;
    const suiteCase = result.cases[0];
    const ref = { suite_id: summary.id, suite_name: summary.name, version: summary.version, case_name: suiteCase.name };
    const updated = await queues.recordSuiteCase(projectId, queue.id, item.id, ref);
    ctx.status = 201;
    ctx.body = { suite_case: ref, suite: summary, case: suiteCase, item: updated };
  });

  return router;
}
