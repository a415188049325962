import { decodeKeysetCursor, encodeKeysetCursor } from './keyset-cursor.js';

/**
 * Bounds of the trace view (GET /api/traces/{id}): its spans come in pages ordered by
 * (start_time, span_id), and each span's input and output are capped. docs/api.md states them.
 */

/** Spans per page when the client does not say. */
export const DEFAULT_SPANS_PAGE = 1000;
/** Most spans one page may ask for, the same bound as spans per ingest request. */
export const MAX_SPANS_PAGE = 10_000;
/**
 * Characters (Unicode code points) of `input` and `output` a span shows in the trace view.
 * Counted in code points so a cut never splits a character; GET /api/spans/{id} shows them whole.
 */
export const SPAN_TEXT_CAP = 16_384;

/** The position of a span in the trace's order: the page after it starts with the next span. */
export interface SpanKey {
  /** start_time in milliseconds since the epoch. */
  startMs: number;
  spanId: string;
}

export interface SpanPageQuery {
  limit: number;
  /** The last span of the previous page; absent for the first page. */
  after?: SpanKey;
}

/** The cursor of a page's last span (core/model/keyset-cursor.ts). */
export function encodeSpanCursor(key: SpanKey): string {
  return encodeKeysetCursor({ startMs: key.startMs, id: key.spanId });
}

/** The key a cursor stands for, or undefined when it is not one `encodeSpanCursor` made. */
export function decodeSpanCursor(cursor: string): SpanKey | undefined {
  const p = decodeKeysetCursor(cursor);
  return p && { startMs: p.startMs, spanId: p.id };
}
