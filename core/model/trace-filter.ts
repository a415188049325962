import { z } from 'zod';
import { Timestamp } from './ingest-body.js';
import { COMPONENT_TYPES } from './span.js';
import { MAX_SESSION_ID_CHARS } from './trace-session-ids.js';
import { TRACE_SOURCES, type TraceListQuery } from './trace.js';

/**
 * The filters of the trace list (GET /api/traces' query parameters, docs/api.md), in one schema
 * for every place that selects traces by them: the list itself and a batch of traces added to a
 * suite (POST /api/suites/{id}/cases/from-traces `filter`). Query strings carry text; a JSON
 * body may give numbers and booleans as they are.
 */

/** Longest `min_duration_ms`: the longest trace duration ingest accepts (ten years). */
const MAX_DURATION_MS = 315_360_000_000;

/** `true` / `false` (also `1` / `0`), as text or a JSON boolean. */
const FilterBoolean = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

export const TraceFilterFields = {
  status: z.enum(['ok', 'error']).optional(),
  name: z.string().min(1).max(1024).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  model: z.string().min(1).max(256).optional(),
  component_type: z.enum(COMPONENT_TYPES).optional(),
  min_duration_ms: z.coerce.number().int().min(0).max(MAX_DURATION_MS).optional(),
  has_errors: FilterBoolean.optional(),
  score_name: z.string().min(1).max(256).optional(),
  score_below: z.coerce.number().min(0).max(1).optional(),
  search: z.string().trim().min(1).max(256).optional(),
  session_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
  user_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
  environment: z.string().min(1).max(256).optional(),
  tag: z.string().trim().min(1).max(256).optional(),
  source: z.enum(TRACE_SOURCES).optional(),
};

type FilterValues = z.output<z.ZodObject<typeof TraceFilterFields>>;

/** A threshold needs the score it applies to, and the other way round. */
export function scoreFilterProblems(q: Pick<FilterValues, 'score_name' | 'score_below'>, ctx: z.RefinementCtx): void {
  if (q.score_name !== undefined && q.score_below === undefined)
    ctx.addIssue({ code: 'custom', path: ['score_below'], message: 'is required with score_name' });
  if (q.score_below !== undefined && q.score_name === undefined)
    ctx.addIssue({ code: 'custom', path: ['score_name'], message: 'is required with score_below' });
}

/** The filters alone, as a JSON body gives them (unknown keys refused: a misspelt filter must not select every trace). */
export const TraceFilterSchema = z.strictObject(TraceFilterFields).superRefine(scoreFilterProblems);
export type TraceFilter = z.output<typeof TraceFilterSchema>;

const time = (t: string | number | undefined): Date | undefined => (t === undefined ? undefined : new Date(t));

/** The store's list query of a filter (without its page: limit, offset and cursor). */
export function traceFilterQuery(q: FilterValues): Omit<TraceListQuery, 'limit' | 'offset' | 'cursor' | 'sort'> {
  return {
    status: q.status,
    name: q.name,
    startTime: time(q.start_time),
    endTime: time(q.end_time),
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
    source: q.source,
  };
}
