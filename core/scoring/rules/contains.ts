import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { cut, listOf, outputText, ruleScorer, show, snippet } from './support.js';

const Config = z.strictObject({
  caseSensitive: z.boolean().default(false),
});

/** The fraction of `expected.outputContains` found in the output. */
export const containsScorer: Scorer = ruleScorer({
  name: 'contains',
  description: 'Fraction of the expected strings (expected.outputContains) found in the output; case-insensitive unless config.caseSensitive.',
  config: Config,
  evaluate(input, config) {
    const wanted = input.expected.outputContains ?? [];
    if (wanted.length === 0) throw new Error('contains needs expected.outputContains');
    const text = outputText(input.output);
    const fold = (s: string) => (config.caseSensitive ? s : s.toLowerCase());
    const haystack = fold(text);
    // Lower-casing can change lengths (e.g. 'İ'); quote from the folded text then, so indexes stay right.
    const quoteFrom = haystack.length === text.length ? text : haystack;
    const found: string[] = [];
    const missing: string[] = [];
    const evidence: string[] = [];
    for (const needle of wanted) {
      const at = haystack.indexOf(fold(needle));
      if (at < 0) {
        missing.push(show(needle));
        continue;
      }
      found.push(show(needle));
      evidence.push(snippet(quoteFrom, at, needle.length));
    }
    const score = found.length / wanted.length;
    const parts = [`found ${found.length} of ${wanted.length} expected strings`];
    if (found.length) parts.push(`found: ${listOf(found)}`);
    if (missing.length) parts.push(`missing: ${listOf(missing)}`);
    if (!config.caseSensitive) parts.push('(case-insensitive)');
    return { score, reason: parts.join('; '), evidence: evidence.map((e) => cut(e)) };
  },
});
