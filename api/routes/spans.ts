import Router from '@koa/router';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import { MAX_SPANS_PER_REQUEST, SpanInputSchema } from '../../core/model/ingest-body.js';
import { spanInputToRaw } from '../../collector/json/ingest-body.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { validate } from '../validate.js';

const Id = z.string().min(1).max(128);
const ManySpans = z.object({ trace_id: Id, spans: z.array(SpanInputSchema).min(1).max(MAX_SPANS_PER_REQUEST) });
const OneSpan = SpanInputSchema.extend({ trace_id: Id });

function oneSpan(span: z.output<typeof OneSpan>) {
  return { trace_id: span.trace_id, spans: [span] };
}

export function spansRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/spans' });

  /** Adds spans to a trace: `{trace_id, spans: [...]}`, or one span object with its `trace_id`. */
  router.post('/', operation('insert span'), async (ctx) => {
    deps.ingest.admit?.();
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const many = body !== null && typeof body === 'object' && 'spans' in body;
    const { trace_id: traceId, spans } = many ? validate(ManySpans, body) : oneSpan(validate(OneSpan, body));
    const outcome = await deps.ingest(ctx.state.projectId, spans.map((s) => spanInputToRaw(traceId, s)));
    ctx.status = 201;
    const accepted = { trace_id: traceId, span_ids: spans.map((s) => s.span_id), ingested: true };
    ctx.body = accepted;
    if (outcome.kind === 'partial') {
      ctx.body = { ...accepted, rejected_spans: outcome.rejected.map((r) => ({ field: `spans[${r.index}]`, span_id: r.spanId, message: r.reason })) };
    }
  });

  router.get('/:spanId', operation('get span details'), async (ctx) => {
    const span = await deps.analytics.getSpan(ctx.state.projectId, ctx.params.spanId);
    if (!span) throw new NotFoundError('Span not found', 'SPAN_NOT_FOUND');
    ctx.body = span;
  });

  return router;
}
