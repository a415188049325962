import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { cut, deepEqual, isPlainObject, listOf, ruleScorer, show } from './support.js';

const Config = z.strictObject({
  exact: z.boolean().default(false),
});

/** At most this many mismatching paths are quoted as evidence. */
const MAX_EVIDENCE = 20;

/**
 * `expected.json` against the output (parsed when it is a string). Partial mode scores the
 * fraction of the expected leaves found with equal values; exact mode is deep equality.
 */
export const jsonMatchScorer: Scorer = ruleScorer({
  name: 'jsonMatchScorer',
  description:
    'expected.json against the output parsed as JSON: the fraction of expected leaf paths present with equal values, or deep equality (1 or 0) when config.exact.',
  config: Config,
  evaluate(input, config) {
    const expected = input.expected.json;
    if (expected === undefined) throw new Error('jsonMatchScorer needs expected.json');
    const actual = parseOutput(input.output);
    if (actual === NOT_JSON)
      return { score: 0, reason: 'output is not JSON', evidence: typeof input.output === 'string' && input.output ? [cut(input.output)] : [] };

    const leaves: Mismatch[] = [];
    const total = compareLeaves(expected, actual, '$', leaves);
    if (config.exact) {
      collectExtra(expected, actual, '$', leaves);
      const equal = deepEqual(expected, actual);
      return {
        score: equal ? 1 : 0,
        reason: equal
          ? 'output equals the expected JSON'
          : `output differs from the expected JSON at ${leaves.length} path(s): ${listOf(
              leaves.map((m) => m.path),
              5,
            )}`,
        evidence: leaves.slice(0, MAX_EVIDENCE).map(describe),
      };
    }
    const matched = total - leaves.length;
    const reason =
      leaves.length === 0
        ? `all ${total} expected JSON paths match`
        : `${matched} of ${total} expected JSON paths match; mismatching: ${listOf(
            leaves.map((m) => m.path),
            5,
          )}`;
    return { score: total ? matched / total : 1, reason, evidence: leaves.slice(0, MAX_EVIDENCE).map(describe) };
  },
});

const NOT_JSON = Symbol('not JSON');

/** The output as a JSON value: strings are parsed, also when wrapped in one Markdown code fence. */
function parseOutput(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  const fenced = /^\s*```[A-Za-z0-9_-]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(output);
  try {
    return JSON.parse(fenced ? fenced[1] : output) as unknown;
  } catch {
    return NOT_JSON;
  }
}

interface Mismatch {
  path: string;
  kind: 'missing' | 'different' | 'unexpected';
  expected?: unknown;
  actual?: unknown;
}

function describe(m: Mismatch): string {
  if (m.kind === 'missing') return cut(`${m.path}: missing (expected ${show(m.expected)})`);
  if (m.kind === 'unexpected') return cut(`${m.path}: not expected (got ${show(m.actual)})`);
  return cut(`${m.path}: expected ${show(m.expected)}, got ${show(m.actual)}`);
}

/**
 * Walks the leaves of `expected` (objects by key, arrays by index; scalars, and empty objects or
 * arrays, are leaves), records each that `actual` lacks or holds differently, and returns how many
 * leaves there are. An empty object or array matches any object or array.
 */
function compareLeaves(expected: unknown, actual: unknown, path: string, out: Mismatch[]): number {
  const entries = childEntries(expected);
  if (!entries || entries.length === 0) {
    const equal = entries ? sameContainerKind(expected, actual) : deepEqual(expected, actual);
    if (!equal) out.push({ path, kind: actual === undefined ? 'missing' : 'different', expected, actual });
    return 1;
  }
  const container = sameContainerKind(expected, actual) ? (actual as Record<string, unknown>) : undefined;
  let total = 0;
  for (const [key, value] of entries) {
    const child = container && Object.hasOwn(container, key) ? container[key] : undefined;
    total += compareLeaves(value, child, childPath(path, key, Array.isArray(expected)), out);
  }
  return total;
}

/** Paths present in `actual` but absent from `expected` (exact mode only). */
function collectExtra(expected: unknown, actual: unknown, path: string, out: Mismatch[]): void {
  const actualEntries = childEntries(actual);
  if (!actualEntries || !sameContainerKind(expected, actual)) return;
  const exp = expected as Record<string, unknown>;
  for (const [key, value] of actualEntries) {
    const child = childPath(path, key, Array.isArray(actual));
    if (value === undefined) continue;
    if (!Object.hasOwn(exp, key) || exp[key] === undefined) out.push({ path: child, kind: 'unexpected', actual: value });
    else collectExtra(exp[key], value, child, out);
  }
}

function childEntries(value: unknown): [string, unknown][] | undefined {
  if (Array.isArray(value)) return value.map((item, i) => [String(i), item as unknown]);
  if (isPlainObject(value)) return Object.entries(value).filter(([, v]) => v !== undefined);
  return undefined;
}

function sameContainerKind(a: unknown, b: unknown): boolean {
  return Array.isArray(a) ? Array.isArray(b) : isPlainObject(a) && isPlainObject(b);
}

function childPath(path: string, key: string, index: boolean): string {
  if (index) return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
