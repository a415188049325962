import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { IngestTraceSchema, Timestamp } from '../../core/model/ingest-body.js';
import { decodeIngestBody } from '../../collector/json/ingest-body.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { validate } from '../validate.js';

/** Largest page of GET /api/traces (the SPEC leaves it open). */
export const MAX_TRACE_PAGE = 1000;

const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_TRACE_PAGE).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(['ok', 'error']).optional(),
  name: z.string().min(1).max(1024).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
});

export function tracesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/traces' });

  router.post('/ingest', operation('ingest trace'), async (ctx) => {
    deps.ingest.admit?.();
    const body = validate(IngestTraceSchema, ctx.request.body);
    const { spans, header } = decodeIngestBody(body);
    const outcome = await deps.ingest(ctx.state.projectId, spans, [header]);
    ctx.status = 201;
    const accepted = { trace_id: body.trace_id, ingested: true, spans_accepted: outcome.accepted };
    ctx.body = accepted;
    if (outcome.kind === 'partial') {
      ctx.body = { ...accepted, rejected_spans: outcome.rejected.map((r) => ({ field: `spans[${r.index}]`, span_id: r.spanId, message: r.reason })) };
    }
  });

  router.get('/', operation('fetch traces'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await deps.analytics.listTraces(ctx.state.projectId, {
      limit: q.limit,
      offset: q.offset,
      status: q.status,
      name: q.name,
      startTime: q.start_time === undefined ? undefined : new Date(q.start_time),
      endTime: q.end_time === undefined ? undefined : new Date(q.end_time),
    });
  });

  router.get('/:traceId', operation('fetch trace'), async (ctx) => {
    const traceId = ctx.params.traceId;
    const trace = await deps.analytics.getTrace(ctx.state.projectId, traceId);
    if (!trace) throw new NotFoundError(`Trace with ID '${traceId}' not found`, 'TRACE_NOT_FOUND');
    ctx.body = trace;
  });

  return router;
}
