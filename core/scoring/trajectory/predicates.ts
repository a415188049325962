import { z } from 'zod';
import { flagsProblem, MAX_PATTERN_LENGTH, patternProblem } from '../../safe-regex.js';
import { cut, deepEqual, show } from '../rules/support.js';
import type { RegexOracle } from './regex-batch.js';

/**
 * One test of one value: a tool call's argument (a JSON value) or a span's attribute, name, model,
 * input or output (text). The trajectory scorers' configs share it (docs/scorers.md, "Predicates").
 * A scalar is short for `{equals: scalar}`; an object holds exactly one test:
 *
 *   {exists: true | false}          the value is there (or not)
 *   {equals: value}                 equal (texts compared as text, numbers as numbers, JSON deeply)
 *   {regex: '^Ky', flags: 'i'}      RE2 pattern (core/safe-regex.ts) found in the value's text
 *   {near: 3, tolerance: 0.5}       a number within `tolerance` of `near` (numeric text counts)
 *   {gt, gte, lt, lte}              a number within these bounds (any of them, at least one)
 */

const TESTS = ['exists', 'equals', 'regex', 'near', 'range'] as const;
type TestKind = (typeof TESTS)[number];
const RANGE_KEYS = ['gt', 'gte', 'lt', 'lte'] as const;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

const PredicateObject = z
  .strictObject({
    exists: z.boolean().optional(),
    equals: z.unknown().optional(),
    regex: z.string().min(1).max(MAX_PATTERN_LENGTH).optional(),
    flags: z.string().optional(),
    near: finite.optional(),
    tolerance: finite.min(0).optional(),
    gt: finite.optional(),
    gte: finite.optional(),
    lt: finite.optional(),
    lte: finite.optional(),
  })
  .superRefine((p, ctx) => {
    const kinds = kindsOf(p);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `must hold exactly one test: exists, equals, regex, near (with tolerance) or a range (gt, gte, lt, lte)${kinds.length ? `; got ${kinds.join(' and ')}` : ''}`,
      });
      return;
    }
    if (p.flags !== undefined && p.regex === undefined) ctx.addIssue({ code: 'custom', path: ['flags'], message: 'goes with regex only' });
    if (p.tolerance !== undefined && p.near === undefined) ctx.addIssue({ code: 'custom', path: ['tolerance'], message: 'goes with near only' });
    if (p.regex !== undefined) {
      // A pattern RE2 cannot run is refused when the suite or run is created, not per case.
      const flagIssue = flagsProblem(p.flags ?? '');
      if (flagIssue) ctx.addIssue({ code: 'custom', path: ['flags'], message: flagIssue });
      else {
        const problem = patternProblem(p.regex, p.flags ?? '');
        if (problem) ctx.addIssue({ code: 'custom', path: ['regex'], message: problem });
      }
    }
  });

function kindsOf(p: Record<string, unknown>): TestKind[] {
  return TESTS.filter((kind) =>
    kind === 'range' ? RANGE_KEYS.some((k) => p[k] !== undefined) : Object.hasOwn(p, kind) && (kind === 'equals' || p[kind] !== undefined),
  );
}

const isScalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A predicate as configs write it: a scalar (equals) or an object of one test. */
export const PredicateSchema = z.preprocess((v) => (isScalar(v) ? { equals: v } : v), PredicateObject);
export type Predicate = z.output<typeof PredicateSchema>;

/** The value a predicate tests: absent, or a JSON value (attributes and span fields are text). */
export interface Subject {
  found: boolean;
  value?: unknown;
}

/** A number from a number, or from text that is one (`"3"`, `" 2.5e3 "`); NaN otherwise. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : Number.NaN;
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) return Number(value);
  return Number.NaN;
}

/** The text a regex reads: a string as it is, anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

function equalsValue(expected: unknown, value: unknown): boolean {
  if (typeof expected === 'string') return textOf(value) === expected;
  if (typeof expected === 'number') return toNumber(value) === expected;
  if (typeof expected === 'boolean') return value === expected || value === String(expected);
  if (expected === null) return value === null || value === 'null';
  if (deepEqual(expected, value)) return true;
  if (typeof value !== 'string') return false;
  try {
    return deepEqual(expected, JSON.parse(value));
  } catch {
    return false;
  }
}

/** Why `subject` fails `p` (a short phrase, without the value's name), or null when it passes. */
export function predicateMismatch(p: Predicate, subject: Subject, oracle: RegexOracle): string | null {
  if (p.exists !== undefined) {
    if (subject.found === p.exists) return null;
    return p.exists ? 'missing' : `present (${show(subject.value)}), expected absent`;
  }
  if (!subject.found) return `missing (expected ${describePredicate(p)})`;
  const value = subject.value;
  if (Object.hasOwn(p, 'equals')) return equalsValue(p.equals, value) ? null : `expected ${show(p.equals)}, got ${show(value)}`;
  if (p.regex !== undefined) {
    return oracle(p.regex, p.flags ?? '', textOf(value)) ? null : `${describePredicate(p)} did not match ${show(value)}`;
  }
  const n = toNumber(value);
  if (Number.isNaN(n)) return `expected a number ${describePredicate(p)}, got ${show(value)}`;
  if (p.near !== undefined) {
    const tolerance = p.tolerance ?? 0;
    // Decimal noise (0.1 + 0.2 within 0 of 0.3) is not a miss.
    const ok = Math.abs(n - p.near) <= tolerance + 1e-9 * Math.max(1, Math.abs(p.near));
    return ok ? null : `${n} is not within ${tolerance} of ${p.near}`;
  }
  const ok = (p.gt === undefined || n > p.gt) && (p.gte === undefined || n >= p.gte) && (p.lt === undefined || n < p.lt) && (p.lte === undefined || n <= p.lte);
  return ok ? null : `${n} is not ${describePredicate(p)}`;
}

/** A predicate in a few characters, for reasons: `/^Ky/i`, `= "metric"`, `within 0.5 of 3`, `> 2 and <= 5`, `present`. */
export function describePredicate(p: Predicate): string {
  if (p.exists !== undefined) return p.exists ? 'present' : 'absent';
  if (Object.hasOwn(p, 'equals')) return `= ${show(p.equals, 40)}`;
  if (p.regex !== undefined) return `/${cut(p.regex, 60)}/${p.flags ?? ''}`;
  if (p.near !== undefined) return `within ${p.tolerance ?? 0} of ${p.near}`;
  const bounds: string[] = [];
  if (p.gt !== undefined) bounds.push(`> ${p.gt}`);
  if (p.gte !== undefined) bounds.push(`>= ${p.gte}`);
  if (p.lt !== undefined) bounds.push(`< ${p.lt}`);
  if (p.lte !== undefined) bounds.push(`<= ${p.lte}`);
  return bounds.join(' and ');
}

/** Whether the predicate searches with a regex (so its test needs the regex pool). */
export const usesRegex = (p: Predicate): boolean => p.regex !== undefined;
