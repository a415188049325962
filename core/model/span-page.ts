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

/** Latest start a stored span can have (DateTime64's range ends in 2299). */
const MAX_START_MS = Date.UTC(2300, 0, 1);

/** base64url of the JSON `[start_ms, span_id]`: opaque to clients, and a span id may hold any character. */
export function encodeSpanCursor(key: SpanKey): string {
  return Buffer.from(JSON.stringify([key.startMs, key.spanId])).toString('base64url');
}

/** The key a cursor stands for, or undefined when it is not one `encodeSpanCursor` made. */
export function decodeSpanCursor(cursor: string): SpanKey | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [startMs, spanId] = parsed as unknown[];
  if (!Number.isSafeInteger(startMs) || (startMs as number) < 0 || (startMs as number) > MAX_START_MS) return undefined;
  if (typeof spanId !== 'string' || spanId === '') return undefined;
  return { startMs: startMs as number, spanId };
}
