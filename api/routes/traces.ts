import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { scoreFilterProblems, TraceFilterFields, traceFilterQuery } from '../../core/model/trace-filter.js';
import { keysetCursorParam } from '../../core/model/keyset-cursor.js';
import { traceCursorParam, TraceSortFields, traceSortProblems, traceSortQuery } from '../../core/model/trace-sort.js';
import { DEFAULT_SPANS_PAGE, MAX_SPANS_PAGE, SPAN_TEXT_CAP } from '../../core/model/span-page.js';
import { withLlm } from '../../core/messages/index.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { validate } from '../../core/validate.js';
import { pageQuery } from './page-query.js';

/** Largest page of GET /api/traces (the SPEC leaves it open). */
export const MAX_TRACE_PAGE = 1000;

export const ListQuerySchema = pageQuery(MAX_TRACE_PAGE)
  .extend({
    ...TraceFilterFields,
    ...TraceSortFields,
    /** Keyset paging: the `next_cursor` of the previous page (of the same sort). */
    cursor: traceCursorParam(),
  })
  .superRefine(scoreFilterProblems)
  .superRefine(traceSortProblems);

/** GET /api/traces/{id}: a page of the trace's spans, after the span a cursor names. */
export const TraceQuerySchema = z.object({
  spans_limit: z.coerce.number().int().min(1).max(MAX_SPANS_PAGE).default(DEFAULT_SPANS_PAGE),
  spans_cursor: keysetCursorParam('spans_next_cursor'),
});

export function tracesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/traces' });

  // POST /api/traces/ingest: api/ingest-routes.ts.

  router.get('/', operation('fetch traces'), requirePermission('traces:read'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await deps.analytics.listTraces(ctx.state.projectId, {
      limit: q.limit,
      offset: q.offset,
      previews: true,
      ...traceFilterQuery(q),
      sort: traceSortQuery(q),
      cursor: q.cursor?.cursor,
    });
  });

  router.get('/:traceId', operation('fetch trace'), requirePermission('traces:read'), async (ctx) => {
    const traceId = ctx.params.traceId;
    const q = validate(TraceQuerySchema, ctx.query);
    const trace = await deps.analytics.getTrace(ctx.state.projectId, traceId, {
      limit: q.spans_limit,
      after: q.spans_cursor && { startMs: q.spans_cursor.startMs, spanId: q.spans_cursor.id },
    });
    if (!trace) throw new NotFoundError(`Trace with ID '${traceId}' not found`, 'TRACE_NOT_FOUND');
    // Each generation's conversation, its texts cut as the view cuts input and output.
    ctx.body = { ...trace, spans: trace.spans.map((s) => withLlm(s, SPAN_TEXT_CAP)) };
  });

  return router;
}
