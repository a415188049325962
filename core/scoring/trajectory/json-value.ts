import { deepEqual, isPlainObject, show } from '../rules/support.js';

/**
 * Tool arguments as JSON: parsed once, compared exactly or as a subset, keyed canonically (for
 * the `loops` scorer's "identical call"). Values nested deeper than {@link MAX_ARGUMENT_DEPTH}
 * are read as text, so no walk here recurses without bound, whatever an agent sent.
 */

/** Arguments nested deeper than this are compared as text. */
export const MAX_ARGUMENT_DEPTH = 64;

export type ParsedArguments =
  /** JSON: `value` (an empty input is `{}`, no arguments). */
  | { kind: 'json'; value: unknown }
  /** Not JSON (or nested too deep): compared as the text sent; `why` says which. */
  | { kind: 'text'; why: string };

/**
 * A tool call's arguments from the text sent: JSON when it parses (JSON text that holds an object
 * or array as a string, as some SDKs double-encode, is read once more); `{}` when empty.
 */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { kind: 'json', value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'text', why: 'not JSON' };
  }
  if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
    try {
      value = JSON.parse(value);
    } catch {
      // A string that merely starts like JSON: it stays the string.
    }
  }
  if (deeperThan(value, MAX_ARGUMENT_DEPTH)) return { kind: 'text', why: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return { kind: 'json', value };
}

/** Whether `value` nests objects or arrays more than `limit` levels deep. Iterative. */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON text with object keys sorted at every level: equal values, equal text. `value` is at most MAX_ARGUMENT_DEPTH deep. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value) ?? 'null';
}

/** A key equal for calls with the same arguments: canonical JSON, or the text as sent. */
export function argumentsKey(parsed: ParsedArguments, text: string): string {
  return parsed.kind === 'json' ? `j${canonicalJson(parsed.value)}` : `t${text}`;
}

/** `path` extended by an object key or an array index, as reasons show it (`city`, `legs[0].from`). */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const plain = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? plain : /^[A-Za-z_$]/.test(plain) ? `${path}.${plain}` : `${path}[${plain}]`;
}

/** How a reason names a place in the arguments. */
export function argumentLabel(path: string): string {
  return path === '' ? 'the arguments' : `argument ${path}`;
}

/**
 * The first difference between the expected and the actual arguments, in words, or null when they
 * match. `exact`: equal JSON values (key order aside). `subset`: every key the expected object
 * holds is in the actual one with a matching value, arrays by index (extra items allowed), an
 * empty object or array matches any object or array; extra keys are fine.
 */
export function jsonMismatch(expected: unknown, actual: unknown, mode: 'exact' | 'subset', path = ''): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${argumentLabel(path)}: expected a list, got ${show(actual)}`;
    if (mode === 'exact' && actual.length !== expected.length) {
      return `${argumentLabel(path)}: expected ${expected.length} items, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      if (i >= actual.length) return `${argumentLabel(childPath(path, i))}: missing (expected ${show(expected[i])})`;
      const why = jsonMismatch(expected[i], actual[i], mode, childPath(path, i));
      if (why) return why;
    }
    return null;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return `${argumentLabel(path)}: expected an object, got ${show(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (value === undefined) continue;
      const here = childPath(path, key);
      if (!Object.hasOwn(actual, key) || actual[key] === undefined) return `${argumentLabel(here)}: missing (expected ${show(value)})`;
      const why = jsonMismatch(value, actual[key], mode, here);
      if (why) return why;
    }
    if (mode === 'exact') {
      const extra = Object.keys(actual).find((key) => actual[key] !== undefined && (!Object.hasOwn(expected, key) || expected[key] === undefined));
      if (extra !== undefined) return `${argumentLabel(childPath(path, extra))}: not expected (got ${show(actual[extra])})`;
    }
    return null;
  }
  return deepEqual(expected, actual) ? null : `${argumentLabel(path)}: expected ${show(expected)}, got ${show(actual)}`;
}

/**
 * The value at `path` in `value`: an own key named `path` whole first, else `path` split on `.`
 * (a segment of digits indexes a list). `found` false when it is not there.
 */
export function valueAt(value: unknown, path: string): { found: boolean; value?: unknown } {
  if (isPlainObject(value) && Object.hasOwn(value, path)) return { found: value[path] !== undefined, value: value[path] };
  let at: unknown = value;
  for (const segment of path.split('.')) {
    if (Array.isArray(at) && /^\d+$/.test(segment)) {
      const i = Number(segment);
      if (i >= at.length) return { found: false };
      at = at[i];
    } else if (isPlainObject(at) && Object.hasOwn(at, segment)) {
      at = at[segment];
    } else {
      return { found: false };
    }
    if (at === undefined) return { found: false };
  }
  return { found: true, value: at };
}
