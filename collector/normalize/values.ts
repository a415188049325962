import type { AttrValue, Attributes } from '../../core/model/raw-span.js';
import { isRecord, jsonish, parseJson } from '../../core/messages/json.js';

// The total readers of JSON-ish values live with the message readers (browser-safe); normalizers use the same ones.
export { isRecord, jsonish, parseJson };

/**
 * Total, never-throwing readers for attribute values. Attributes come off the wire, so every
 * reader accepts any shape and answers `null` for "not usable" instead of throwing.
 */

/** Own-property lookup, so keys such as `constructor` never resolve to Object.prototype. */
export function get(attrs: Attributes, key: string): AttrValue | undefined {
  return Object.prototype.hasOwnProperty.call(attrs, key) ? attrs[key] : undefined;
}

/** Stands in for a value JSON cannot express (nesting deep enough to overflow the stack). */
export const UNSERIALIZABLE = '[unserializable]';

const bigintAsString = (_k: string, x: unknown): unknown => (typeof x === 'bigint' ? x.toString() : x);

/**
 * JSON text of any value, or null when it cannot be serialized. BigInt (protobuf int64) becomes a
 * string. A replacer takes V8's JSON.stringify off its fast path, so it is used only for values
 * that need it (JSON.stringify throws on a BigInt).
 */
export function tryJson(v: unknown): string | null {
  try {
    return JSON.stringify(v) ?? null;
  } catch {
    try {
      return JSON.stringify(v, bigintAsString) ?? null;
    } catch {
      return null;
    }
  }
}

/** Always-valid JSON text of any value. */
export function safeJson(v: unknown): string {
  return tryJson(v) ?? JSON.stringify(UNSERIALIZABLE);
}

/** A value as stored text: strings as-is, scalars via String(), structures as JSON; null when absent. */
export function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return tryJson(v) ?? UNSERIALIZABLE;
}

/** The first value that is present and not an empty string, as text. */
export function firstText(...values: unknown[]): string | null {
  for (const v of values) {
    const t = text(v);
    if (t !== null && t !== '') return t;
  }
  return null;
}

/** A short identifier (model name): non-empty trimmed string or number; anything else is unknown. */
export function ident(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
}

export function firstIdent(...values: unknown[]): string | null {
  for (const v of values) {
    const id = ident(v);
    if (id !== null) return id;
  }
  return null;
}

const NUMERIC = /^\s*\d+(\.\d*)?\s*$/;

/**
 * A token count: a non-negative safe integer, or null when the value is absent or garbage.
 * Numeric strings are accepted because some SDKs stringify every attribute.
 */
export function tokenCount(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && NUMERIC.test(v)) n = Number(v);
  else return null;
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER);
}

/** The first key whose value is a usable token count. */
export function firstTokens(attrs: Attributes, keys: readonly string[]): number | null {
  for (const k of keys) {
    const n = tokenCount(get(attrs, k));
    if (n !== null) return n;
  }
  return null;
}

/**
 * Completes an input/output pair from a reported total: a lone total is all input (embeddings
 * report only that), and one missing side is the total minus the other.
 */
export function withTotal(input: number | null, output: number | null, total: number | null): { input: number | null; output: number | null } {
  if (total === null) return { input, output };
  if (input === null && output === null) return { input: total, output: null };
  if (input === null && output !== null) return { input: Math.max(0, total - output), output };
  if (output === null && input !== null) return { input, output: Math.max(0, total - input) };
  return { input, output };
}

/** Lower-cased string value, or null. */
export function lowerOf(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v.trim().toLowerCase() : null;
}
