import { z } from 'zod';
import { flagsProblem } from '../../safe-regex.js';
import { refusing } from '../../model/refusing.js';
import type { ScoreDetail } from '../../model/eval-case.js';
import type { ScoreInput, Scorer } from '../scorer.js';

/**
 * Small helpers the rule-based scorers share: turning an agent's output into text, quoting
 * evidence, and comparing JSON values.
 */

/** Evidence strings and quoted values are cut to this many characters (SPEC: short quotes). */
export const MAX_QUOTE = 200;

/**
 * The agent output as text: strings as they are, `undefined` as `''`, anything else as JSON
 * (with a placeholder for values JSON cannot hold, such as a cycle).
 */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? unserializable(output);
  } catch {
    return unserializable(output);
  }
}

function unserializable(value: unknown): string {
  if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
  return typeof value === 'function' ? '[function]' : '[unserializable value]';
}

/** `text` cut to at most `max` characters, ending with '…' when cut (never splitting a surrogate pair). */
export function cut(text: string, max = MAX_QUOTE): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A value shown inside a reason: strings in double quotes, others as JSON; cut short. */
export function show(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : outputText(value);
  return cut(text, max);
}

/** `items` joined with ', ', at most `max` of them, then '… and N more'. */
export function listOf(items: readonly string[], max = 10): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')}, … and ${items.length - max} more`;
}

/** The text around `text[index, index + length)`, with '…' where it was cut; at most MAX_QUOTE characters. */
export function snippet(text: string, index: number, length: number, context = 40): string {
  const start = Math.max(0, index - context);
  const end = Math.min(text.length, index + length + context);
  const body = text.slice(start, Math.min(end, start + MAX_QUOTE));
  return cut(`${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep equality of JSON values: key order does not matter, arrays compare by index, a key whose
 * value is `undefined` counts as absent (as in JSON) and NaN equals NaN.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = definedKeys(a);
    const keysB = definedKeys(b);
    return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function definedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => value[key] !== undefined);
}

/**
 * 1 when `used` is within `bound`, else bound / used (twice the bound scores 0.5); the reason is
 * `within` or `over`, the latter with how many times the bound was used.
 */
export function againstBound(used: number, bound: number, reason: { within: string; over: string }, evidence: string[]): ScoreDetail {
  if (used <= bound) return { score: 1, reason: reason.within, evidence };
  return { score: bound / used, reason: `${reason.over} (${(used / bound).toFixed(2)}x)`, evidence };
}

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : outputText(err);
}

/**
 * A rule-based scorer: `evaluate` gets its config already parsed by `config` (defaults filled in),
 * the schema that also checks a suite's or run's ScorerRef when it is created.
 */
export function ruleScorer<C extends z.ZodType<Record<string, unknown>>>(def: {
  name: string;
  description: string;
  config: C;
  /** A conversation-level scorer (Scorer.readsConversation). */
  readsConversation?: true;
  evaluate(input: ScoreInput, config: z.output<C>, signal?: AbortSignal): ScoreDetail | Promise<ScoreDetail>;
}): Scorer {
  return {
    name: def.name,
    kind: 'rule',
    description: def.description,
    configSchema: def.config,
    ...(def.readsConversation ? { readsConversation: true } : {}),
    evaluate: (input, signal) => def.evaluate(input, def.config.parse(input.config), signal),
  };
}

/** A scorer config's regular-expression flags, `defaultFlags` when none are given; flags RE2 cannot run are refused. */
export function regexFlags(defaultFlags: string) {
  return refusing(z.string().default(defaultFlags), flagsProblem);
}
