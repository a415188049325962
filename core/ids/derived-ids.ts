import { createHash } from 'node:crypto';

/**
 * Ids derived from what they name: the same text always gives the same id, so a write retried
 * after a crash (an activity, an online evaluation, a feedback or queue completion sent twice)
 * stores the same rows again, which read back once. Every encoding here is kept bit for bit:
 * rows already stored carry these ids, and a retry must find them.
 */

/** SHA-256 of the text, as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The first `length` hex digits of the text's SHA-256: W3C trace ids (32) and span ids (16). */
export function hexId(text: string, length: number): string {
  return sha256Hex(text).slice(0, length);
}

/** The first 8 bytes of the text's SHA-256 (deterministic sampling draws from them). */
export function digestBytes(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, 8);
}

/**
 * A UUID-shaped id from the text's hash with version nibble 5 and RFC 4122 variant bits: ids of
 * feedback, comparisons' answers, queue items' corrections and annotation scores.
 */
export function derivedUuid(text: string): string {
  const h = sha256Hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A UUID-shaped id from the text's hash with a fixed `4` version nibble and `a` variant nibble:
 * the ids of scores an evaluation run's trial or an online rule writes.
 */
export function scoreUuid(text: string): string {
  const h = sha256Hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** JSON with object keys sorted: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** The hash of a value's content, whatever the order of its keys: what an idempotent request is compared by. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
