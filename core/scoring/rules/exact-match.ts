import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { cut, deepEqual, outputText, ruleScorer, show } from './support.js';

const Config = z.strictObject({
  trim: z.boolean().default(true),
  caseSensitive: z.boolean().default(true),
});

/**
 * 1 when the output equals `expected.output`, else 0. A string expectation compares text (the
 * output stringified when it is not a string); any other expectation compares JSON values deeply,
 * parsing the output first when it is a string.
 */
export const exactMatchScorer: Scorer = ruleScorer({
  name: 'exactMatch',
  description: 'Output equals expected.output: strings after trimming (config.trim, config.caseSensitive), other values deep-equal regardless of key order.',
  config: Config,
  evaluate(input, config) {
    const expected = input.expected.output;
    if (expected === undefined) throw new Error('exactMatch needs expected.output');
    const text = outputText(input.output);
    const evidence = text ? [cut(text)] : [];

    if (typeof expected === 'string') {
      const norm = (s: string) => {
        const t = config.trim ? s.trim() : s;
        return config.caseSensitive ? t : t.toLowerCase();
      };
      const a = norm(text);
      const b = norm(expected);
      if (a === b) return { score: 1, reason: `output equals the expected text ${show(expected)}`, evidence };
      return { score: 0, reason: `output differs from the expected text ${show(expected)}: ${firstDifference(a, b)}`, evidence };
    }

    let actual = input.output;
    if (typeof actual === 'string') {
      try {
        actual = JSON.parse(actual) as unknown;
      } catch {
        return { score: 0, reason: `expected the JSON value ${show(expected)} but the output is text that is not JSON`, evidence };
      }
    }
    if (deepEqual(actual, expected)) return { score: 1, reason: `output equals the expected value ${show(expected)}`, evidence };
    return { score: 0, reason: `output ${show(actual)} differs from the expected value ${show(expected)}`, evidence };
  },
});

function firstDifference(actual: string, expected: string): string {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  if (i === actual.length) return `the output is a prefix of it (${actual.length} of ${expected.length} characters)`;
  if (i === expected.length) return `the output has ${actual.length - expected.length} extra characters after it`;
  return `first difference at character ${i} (got ${show(actual.slice(i, i + 20))})`;
}
