import { z } from 'zod';
import { compileSafeRegex, flagsProblem, MAX_SCAN_CHARS, patternProblem, type SafeRegex } from '../../safe-regex.js';
import type { Scorer } from '../scorer.js';
import { cut, listOf, messageOf, outputText, show, snippet } from './support.js';

/** At most this much of the output is searched (characters), whatever the pattern. */
export const REGEX_MAX_TEXT = MAX_SCAN_CHARS;

const Config = z
  .strictObject({
    pattern: z.string().min(1).optional(),
    flags: z
      .string()
      .default('')
      .superRefine((flags, ctx) => {
        const problem = flagsProblem(flags);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    /** Accepted and ignored: patterns run in linear time now, so there is nothing to time out (kept so older suites still load). */
    timeoutMs: z.number().int().min(1).max(10_000).optional(),
  })
  .superRefine((config, ctx) => {
    // A pattern RE2 cannot run is refused when the suite or run is created, not per case.
    if (config.pattern === undefined || flagsProblem(config.flags)) return;
    const problem = patternProblem(config.pattern, config.flags);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });

/**
 * The end of the queue of searches waiting for a turn, across every case this process scores.
 * Each turn starts in its own event-loop iteration (setImmediate), so however many cases are
 * scored at once, the API's requests (health included) wait at most one bounded search; without
 * the queue, N cases scored concurrently would each run one search per iteration.
 */
let lastTurn: Promise<void> = Promise.resolve();

/** Resolves when this search may run: after every search queued before it, in a later event-loop iteration. */
function searchTurn(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

function compile(pattern: string, flags: string): SafeRegex {
  try {
    return compileSafeRegex(pattern, flags);
  } catch (err) {
    throw new Error(`invalid regular expression /${cut(pattern, 80)}/${flags}: ${messageOf(err)}`, { cause: err });
  }
}

/** The fraction of patterns (`expected.regex`, else `config.pattern`) that match the output. */
export const regexScorer: Scorer = {
  name: 'regex',
  kind: 'rule',
  description: `Fraction of the patterns (expected.regex, else config.pattern; flags from config.flags) that match the output; patterns run on RE2, in linear time.`,
  configSchema: Config,
  async evaluate(input, signal) {
    const config = Config.parse(input.config);
    const patterns = input.expected.regex ?? (config.pattern !== undefined ? [config.pattern] : []);
    if (patterns.length === 0) throw new Error('regex needs expected.regex or config.pattern');
    const text = outputText(input.output);
    const matched: string[] = [];
    const unmatched: string[] = [];
    const partly: string[] = [];
    const evidence: string[] = [];
    for (const pattern of patterns) {
      // Each compile and search is bounded (core/safe-regex.ts); between two, other requests get their turn.
      await searchTurn();
      signal?.throwIfAborted();
      // A pattern RE2 cannot run (stored before the check existed) fails the whole scorer.
      const regex = compile(pattern, config.flags);
      const label = `/${cut(regex.source, 60)}/`;
      const { match, scanned } = regex.search(text);
      if (match) {
        matched.push(label);
        evidence.push(snippet(text, match.index, match.length, 30));
      } else {
        unmatched.push(label);
        if (scanned < text.length) partly.push(`${label} (the first ${scanned})`);
      }
    }

    const parts = [`${matched.length} of ${patterns.length} patterns matched`];
    if (matched.length) parts.push(`matched: ${listOf(matched)}`);
    if (unmatched.length) parts.push(`no match: ${listOf(unmatched)}`);
    if (partly.length) parts.push(`the output has ${text.length} characters, of which these searched only part: ${listOf(partly)}`);
    if (config.flags) parts.push(`flags ${show(config.flags)}`);
    return { score: matched.length / patterns.length, reason: parts.join('; '), evidence };
  },
};
