import { z } from 'zod';
import { flagsProblem, MAX_SCAN_CHARS, patternProblem, searchPatterns } from '../../safe-regex.js';
import type { Scorer } from '../scorer.js';
import { cut, listOf, outputText, regexFlags, ruleScorer, show, snippet } from './support.js';

/** At most this much of the output is searched (characters), whatever the pattern. */
export const REGEX_MAX_TEXT = MAX_SCAN_CHARS;

const Config = z
  .strictObject({
    pattern: z.string().min(1).optional(),
    flags: regexFlags(''),
    /** Accepted and ignored: patterns run in linear time now, so there is nothing to time out (kept so older suites still load). */
    timeoutMs: z.number().int().min(1).max(10_000).optional(),
  })
  .superRefine((config, ctx) => {
    // A pattern RE2 cannot run is refused when the suite or run is created, not per case.
    if (config.pattern === undefined || flagsProblem(config.flags)) return;
    const problem = patternProblem(config.pattern, config.flags);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });

/** The fraction of patterns (`expected.regex`, else `config.pattern`) that match the output. */
export const regexScorer: Scorer = ruleScorer({
  name: 'regex',
  description: `Fraction of the patterns (expected.regex, else config.pattern; flags from config.flags) that match the output; patterns run on RE2, in linear time, off the event loop.`,
  config: Config,
  async evaluate(input, config, signal) {
    const patterns = input.expected.regex ?? (config.pattern !== undefined ? [config.pattern] : []);
    if (patterns.length === 0) throw new Error('regex needs expected.regex or config.pattern');
    const text = outputText(input.output);
    // Searched on the regex pool, off the event loop, within the case's and the run's budgets (core/safe-regex/pool.ts).
    const found = await searchPatterns({ patterns, flags: config.flags, text }, { runId: input.runId, signal });
    signal?.throwIfAborted();
    // A pattern RE2 cannot run (stored before the check existed) fails the whole scorer.
    if (found.kind === 'invalid') throw new Error(`invalid regular expression /${cut(patterns[found.index], 80)}/${config.flags}: ${found.message}`);
    if (found.kind === 'over-budget') throw new Error(found.reason);
    const matched: string[] = [];
    const unmatched: string[] = [];
    const partly: string[] = [];
    const evidence: string[] = [];
    found.results.forEach(({ match, scanned }, i) => {
      const label = `/${cut(patterns[i], 60)}/`;
      if (match) {
        matched.push(label);
        evidence.push(snippet(text, match.index, match.length, 30));
      } else {
        unmatched.push(label);
        if (scanned < text.length) partly.push(`${label} (the first ${scanned})`);
      }
    });

    const parts = [`${matched.length} of ${patterns.length} patterns matched`];
    if (matched.length) parts.push(`matched: ${listOf(matched)}`);
    if (unmatched.length) parts.push(`no match: ${listOf(unmatched)}`);
    if (partly.length) parts.push(`the output has ${text.length} characters, of which these searched only part: ${listOf(partly)}`);
    if (config.flags) parts.push(`flags ${show(config.flags)}`);
    return { score: matched.length / patterns.length, reason: parts.join('; '), evidence };
  },
});
