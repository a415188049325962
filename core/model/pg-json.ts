import { z } from 'zod';
import type { FieldIssue } from '../errors.js';
import { fieldName } from '../validate.js';
import { refusing } from './refusing.js';

/**
 * What PostgreSQL `text` and `jsonb` can hold, checked before a value reaches the metadata store
 * so that odd input is a 422 naming the field and never a 500 from the database:
 * - U+0000: `text` cannot hold it and `jsonb` refuses the `\u0000` escape;
 * - a lone UTF-16 surrogate: JSON.stringify writes it as `\udXXX`, which `jsonb` refuses;
 * - a non-finite number (`1e400` in JSON, `.inf` / `.nan` in YAML): JSON.stringify would
 *   silently store `null`;
 * - nesting deeper than {@link MAX_JSON_DEPTH}: serializing and storing it recurses.
 */

/** Deepest nesting of objects and arrays accepted in a stored JSON value. */
export const MAX_JSON_DEPTH = 64;

/** Most problems reported for one value: a 10,000-case suite must not answer with a megabyte of errors. */
export const MAX_REPORTED_ISSUES = 100;

const NOT_WELL_FORMED = 'must be well-formed Unicode (no unpaired surrogates)';
const HAS_NUL = 'must not contain the NUL character (U+0000)';

/** Why Postgres cannot store `text` as is, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return NOT_WELL_FORMED;
  if (text.includes('\0')) return HAS_NUL;
  return undefined;
}

/** A string Postgres `text` can hold, at most `max` UTF-16 units. */
export function pgText(max: number) {
  return refusing(z.string().max(max), textProblem);
}

/**
 * Every reason `value` (parsed JSON or YAML) cannot be stored as `jsonb`, each with its field
 * path below `root`. Iterative, so hostile nesting cannot overflow the stack.
 */
export function jsonProblems(value: unknown, root: ReadonlyArray<PropertyKey> = []): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const stack: Array<{ value: unknown; path: ReadonlyArray<PropertyKey>; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_REPORTED_ISSUES) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) issues.push({ field: fieldName(path), message: problem });
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) issues.push({ field: fieldName(path), message: 'must be a finite number' });
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) {
        issues.push({ field: fieldName(path), message: `is nested more than ${MAX_JSON_DEPTH} levels deep` });
        continue;
      }
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i], depth: depth + 1 });
      } else {
        const entries = Object.entries(v as Record<string, unknown>);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, child] = entries[i];
          const keyProblem = textProblem(key);
          if (keyProblem) issues.push({ field: fieldName([...path, key]), message: `key ${keyProblem}` });
          else stack.push({ value: child, path: [...path, key], depth: depth + 1 });
        }
      }
    }
  }
  return issues;
}

/** `text` as PostgreSQL can store it: lone surrogates and U+0000 become U+FFFD. */
export function pgSafeText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', '\uFFFD') : wellFormed;
}

/**
 * JSON text of `value` that a `jsonb` column accepts, for values we must store as they came
 * (an agent's answer): strings and keys made storable by {@link pgSafeText}, non-finite numbers
 * null (as JSON.stringify does).
 */
export function pgSafeJson(value: unknown): string {
  return JSON.stringify(value ?? null, function (this: unknown, key: string, v: unknown) {
    if (typeof v === 'string') return pgSafeText(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.some(([k]) => pgSafeText(k) !== k)) return Object.fromEntries(entries.map(([k, x]) => [pgSafeText(k), x]));
    }
    return v;
  });
}
