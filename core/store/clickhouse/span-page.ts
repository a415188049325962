import { encodeSpanCursor, SPAN_TEXT_CAP, type SpanPageQuery } from '../../model/span-page.js';
import type { TraceSpanView } from '../../model/trace.js';
import { traceSpanView, type TraceSpanRow } from './rows.js';
import { fromClickHouseTime, toClickHouseTime } from './time.js';
import { spanPageSql } from './span-page-sql.js';

/** How the store runs a read: bound parameters, JSONEachRow rows back. */
export type RunQuery = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

export interface SpanPage {
  spans: TraceSpanView[];
  /** Cursor of the page after this one; null when this is the last. */
  nextCursor: string | null;
}

/**
 * One page of a trace's spans in (start_time, span_id) order, newest row per span. `spanCount`,
 * the trace's span count by its summary when known, lets a first page that holds them all be read
 * in one pass (span-page-sql.ts).
 */
export async function readSpanPage(rows: RunQuery, projectId: string, traceId: string, page: SpanPageQuery, spanCount?: number): Promise<SpanPage> {
  const params: Record<string, unknown> = { project: projectId, trace: traceId, cap: SPAN_TEXT_CAP, limit: page.limit + 1 };
  if (page.after) {
    params.afterTime = toClickHouseTime(page.after.startMs);
    params.afterSpan = page.after.spanId;
  }
  // One row beyond the page says whether another page follows, without counting the trace's spans.
  const read = page.after ? 'after' : spanCount !== undefined && spanCount <= page.limit ? 'whole' : 'first';
  const found = await rows<TraceSpanRow>(spanPageSql(read), params);
  const shown = found.slice(0, page.limit);
  const last = shown.at(-1);
  const nextCursor =
    found.length > page.limit && last ? encodeSpanCursor({ startMs: Date.parse(fromClickHouseTime(last.start_time)), spanId: last.span_id }) : null;
  return { spans: shown.map(traceSpanView), nextCursor };
}
