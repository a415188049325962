import { z } from 'zod';
import { CURSOR_ALPHABET } from './id-rules.js';

/**
 * The opaque cursors of keyset paging (GET /api/traces `cursor`, GET /api/traces/{id}
 * `spans_cursor`): base64url of the JSON `[start_ms, id]` of the last item of a page. Opaque to
 * clients, and an id may hold any character.
 */
export interface KeysetPosition {
  /** start_time in milliseconds since the epoch. */
  startMs: number;
  id: string;
}

/** Latest start a stored item can have (DateTime64's range ends in 2299). */
const MAX_START_MS = Date.UTC(2300, 0, 1);

export function encodeKeysetCursor(p: KeysetPosition): string {
  return encodeCursorTuple([p.startMs, p.id]);
}

/** An opaque cursor of a tuple: base64url of its JSON. */
export function encodeCursorTuple(tuple: unknown[]): string {
  return Buffer.from(JSON.stringify(tuple)).toString('base64url');
}

/** The tuple of `length` values a cursor of {@link encodeCursorTuple} holds, or undefined when it holds none. */
export function decodeCursorTuple(cursor: string, length: number): unknown[] | undefined {
  if (!CURSOR_ALPHABET.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.length === length ? (parsed as unknown[]) : undefined;
}

/** The position a cursor stands for, or undefined when it is not one `encodeKeysetCursor` made. */
export function decodeKeysetCursor(cursor: string): KeysetPosition | undefined {
  const parsed = decodeCursorTuple(cursor, 2);
  if (!parsed) return undefined;
  const [startMs, id] = parsed;
  if (!Number.isSafeInteger(startMs) || (startMs as number) < 0 || (startMs as number) > MAX_START_MS) return undefined;
  if (typeof id !== 'string' || id === '') return undefined;
  return { startMs: startMs as number, id };
}

/**
 * An optional cursor query parameter of at most `maxLength` characters, as the position `decode`
 * reads from it: a 422 with `message` when it reads none.
 */
export function cursorParam<P>(maxLength: number, decode: (cursor: string) => P | undefined, message: string) {
  return z
    .string()
    .max(maxLength)
    .transform((v, ctx) => {
      const position = decode(v);
      if (!position) ctx.addIssue({ code: 'custom', message });
      return position;
    })
    .optional();
}

/** A cursor query parameter: a 422 naming it when it is not a `field` this endpoint issued. */
export const keysetCursorParam = (field: string) => cursorParam(1024, decodeKeysetCursor, `must be a ${field} of this endpoint`);
