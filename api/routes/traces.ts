import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { Timestamp } from '../../core/model/ingest-body.js';
import { COMPONENT_TYPES } from '../../core/model/span.js';
import { MAX_SESSION_ID_CHARS } from '../../core/model/trace-session-ids.js';
import { keysetCursorParam } from '../../core/model/keyset-cursor.js';
import { DEFAULT_SPANS_PAGE, MAX_SPANS_PAGE, SPAN_TEXT_CAP } from '../../core/model/span-page.js';
import { withLlm } from '../../core/messages/index.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { validate } from '../../core/validate.js';
import { pageQuery, timeBound } from './page-query.js';
import { QueryBoolean } from './query-boolean.js';

/** Largest page of GET /api/traces (the SPEC leaves it open). */
export const MAX_TRACE_PAGE = 1000;

/** Longest `min_duration_ms`: the longest trace duration ingest accepts (ten years). */
const MAX_DURATION_MS = 315_360_000_000;

export const ListQuerySchema = pageQuery(MAX_TRACE_PAGE)
  .extend({
    status: z.enum(['ok', 'error']).optional(),
    name: z.string().min(1).max(1024).optional(),
    start_time: Timestamp.optional(),
    end_time: Timestamp.optional(),
    model: z.string().min(1).max(256).optional(),
    component_type: z.enum(COMPONENT_TYPES).optional(),
    min_duration_ms: z.coerce.number().int().min(0).max(MAX_DURATION_MS).optional(),
    has_errors: QueryBoolean.optional(),
    score_name: z.string().min(1).max(256).optional(),
    score_below: z.coerce.number().min(0).max(1).optional(),
    search: z.string().trim().min(1).max(256).optional(),
    session_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
    user_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
    environment: z.string().min(1).max(256).optional(),
    tag: z.string().trim().min(1).max(256).optional(),
    /** Keyset paging: the `next_cursor` of the previous page. */
    cursor: keysetCursorParam('next_cursor'),
  })
  .superRefine((q, ctx) => {
    // A threshold needs the score it applies to, and the other way round.
    if (q.score_name !== undefined && q.score_below === undefined)
      ctx.addIssue({ code: 'custom', path: ['score_below'], message: 'is required with score_name' });
    if (q.score_below !== undefined && q.score_name === undefined)
      ctx.addIssue({ code: 'custom', path: ['score_name'], message: 'is required with score_below' });
  });

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
      status: q.status,
      name: q.name,
      startTime: timeBound(q.start_time),
      endTime: timeBound(q.end_time),
      model: q.model,
      componentType: q.component_type,
      minDurationMs: q.min_duration_ms,
      hasErrors: q.has_errors,
      scoreBelow: q.score_name !== undefined && q.score_below !== undefined ? { name: q.score_name, value: q.score_below } : undefined,
      search: q.search,
      sessionId: q.session_id,
      userId: q.user_id,
      environment: q.environment,
      tag: q.tag,
      cursor: q.cursor && { startMs: q.cursor.startMs, traceId: q.cursor.id },
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
