import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { cut, listOf, ruleScorer } from './support.js';

const Config = z.strictObject({
  ordered: z.boolean().default(false),
  allowExtra: z.boolean().default(true),
});

/**
 * The expected tools (`expected.toolCalls`, names or `{name}`) against the tools the agent
 * called. Matching counts names as a multiset (`search` expected twice needs two calls); with
 * `ordered`, the matched count is the longest common subsequence, so a call order that differs
 * from the expected order loses credit.
 */
export const toolSelectionScorer: Scorer = ruleScorer({
  name: 'toolSelection',
  description:
    'Recall of the expected tool calls (expected.toolCalls) among the calls made; F1 of precision and recall when config.allowExtra is false; order-sensitive (longest common subsequence) when config.ordered.',
  config: Config,
  evaluate(input, config) {
    const expectedCalls = input.expected.toolCalls;
    if (expectedCalls === undefined) throw new Error('toolSelection needs expected.toolCalls');
    const expected = expectedCalls.map((call) => (typeof call === 'string' ? call : call.name));
    const actual = input.toolCalls.map((call) => call.name);
    const evidence = [cut(actual.length ? `tool calls: ${actual.join(' -> ')}` : 'no tool calls')];

    const { missing, extra } = multisetDifference(expected, actual);
    const matched = config.ordered ? lcsLength(expected, actual) : expected.length - missing.length;
    const recall = expected.length ? matched / expected.length : 1;
    let score = recall;
    if (!config.allowExtra) {
      const precision = actual.length ? matched / actual.length : expected.length ? 0 : 1;
      score = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
    }

    const parts = [`${matched} of ${expected.length} expected tool calls matched${config.ordered ? ' in order' : ''}`];
    if (missing.length) parts.push(`missing: ${listOf(missing)}`);
    if (extra.length) parts.push(`extra: ${listOf(extra)}${config.allowExtra ? ' (allowed)' : ''}`);
    if (config.ordered && !missing.length && matched < expected.length) parts.push(`called in another order than expected (${listOf(expected)})`);
    if (!config.allowExtra) parts.push(`F1 of precision and recall`);
    return { score, reason: parts.join('; '), evidence };
  },
});

/** Names expected but not called, and called but not expected, counting repeats. */
function multisetDifference(expected: string[], actual: string[]): { missing: string[]; extra: string[] } {
  const left = new Map<string, number>();
  for (const name of actual) left.set(name, (left.get(name) ?? 0) + 1);
  const missing: string[] = [];
  for (const name of expected) {
    const n = left.get(name) ?? 0;
    if (n > 0) left.set(name, n - 1);
    else missing.push(name);
  }
  const extra = actual.filter((name) => {
    const n = left.get(name) ?? 0;
    if (n === 0) return false;
    left.set(name, n - 1);
    return true;
  });
  return { missing, extra };
}

/** Length of the longest common subsequence, O(|a|·|b|) time and O(|b|) memory. */
function lcsLength(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  let row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    for (let j = 1; j <= b.length; j++) row[j] = x === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    [prev, row] = [row, prev];
  }
  return prev[b.length];
}
