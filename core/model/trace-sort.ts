import { z } from 'zod';
import { cursorParam, decodeCursorTuple, decodeKeysetCursor, encodeCursorTuple, encodeKeysetCursor } from './keyset-cursor.js';
import { TRACE_SORTS, type TraceSortKey } from './trace.js';

/**
 * How GET /api/traces orders its list (`sort`, `order`, `sort_score`; docs/api.md) and the keyset
 * cursor of each order. Time keeps the list's original cursor (`[start_ms, trace_id]`); every other
 * key pages by `[sort, key, trace_id]`, so a cursor of one order is refused under another.
 */
export { TRACE_SORTS, type TraceSortKey } from './trace.js';

export interface TraceSort {
  by: TraceSortKey;
  order: 'asc' | 'desc';
  /** With `by: 'score'`: the score name whose latest value orders the list. */
  score?: string;
}

/** The list's position after a page: a start time (time order) or a sort key, then the trace id. */
export type TraceListCursor = { startMs: number; traceId: string } | { key: number; traceId: string };

/**
 * The value a trace without the key (no priced span, no score of that name) sorts by: after every
 * real value in either order. Every key is a number at or above 0.
 */
export const MISSING_KEY = { desc: -1, asc: 1e300 } as const;

/** The query fields of the sort. */
export const TraceSortFields = {
  sort: z.enum(TRACE_SORTS).default('time'),
  order: z.enum(['asc', 'desc']).default('desc'),
  sort_score: z.string().min(1).max(256).optional(),
};

/** A cursor query parameter of the list: either kind, checked against the sort by {@link traceSortProblems}. */
export const traceCursorParam = () => cursorParam(1024, decodeTraceCursor, 'must be a next_cursor of this endpoint');

type Decoded = { sort: TraceSortKey; cursor: TraceListCursor };

function decodeTraceCursor(text: string): Decoded | undefined {
  const time = decodeKeysetCursor(text);
  if (time) return { sort: 'time', cursor: { startMs: time.startMs, traceId: time.id } };
  const tuple = decodeCursorTuple(text, 3);
  if (!tuple) return undefined;
  const [sort, key, id] = tuple;
  if (!(TRACE_SORTS as readonly unknown[]).includes(sort) || sort === 'time') return undefined;
  if (typeof key !== 'number' || !Number.isFinite(key) || typeof id !== 'string' || id === '') return undefined;
  return { sort: sort as TraceSortKey, cursor: { key, traceId: id } };
}

/** `sort=score` needs the score's name (and `sort_score` means nothing else); a cursor must be of the same sort. */
export function traceSortProblems(q: { sort: TraceSortKey; sort_score?: string; cursor?: Decoded }, ctx: z.RefinementCtx): void {
  if (q.sort === 'score' && q.sort_score === undefined) ctx.addIssue({ code: 'custom', path: ['sort_score'], message: 'is required with sort=score' });
  if (q.sort !== 'score' && q.sort_score !== undefined) ctx.addIssue({ code: 'custom', path: ['sort_score'], message: 'is only taken with sort=score' });
  if (q.cursor && q.cursor.sort !== q.sort)
    ctx.addIssue({ code: 'custom', path: ['cursor'], message: `is a cursor of sort=${q.cursor.sort}, not of sort=${q.sort}` });
}

/** The store's sort of validated query fields. */
export function traceSortQuery(q: { sort: TraceSortKey; order: 'asc' | 'desc'; sort_score?: string }): TraceSort {
  return { by: q.sort, order: q.order, ...(q.sort_score !== undefined ? { score: q.sort_score } : {}) };
}

/** The opaque `next_cursor` after a page's last trace. */
export function encodeTraceCursor(sort: TraceSortKey, last: { startMs: number; key: number; traceId: string }): string {
  return sort === 'time' ? encodeKeysetCursor({ startMs: last.startMs, id: last.traceId }) : encodeCursorTuple([sort, last.key, last.traceId]);
}
