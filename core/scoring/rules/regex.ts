import vm from 'node:vm';
import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { cut, listOf, messageOf, outputText, show, snippet } from './support.js';

/** Only this much of the output is searched (characters), so one huge answer cannot stall a worker. */
export const REGEX_MAX_TEXT = 1_048_576;

const Config = z.strictObject({
  pattern: z.string().min(1).max(10_000).optional(),
  flags: z
    .string()
    .regex(/^[imsuv]*$/, 'may hold only the flags i, m, s, u, v')
    .default(''),
  timeoutMs: z.number().int().min(1).max(10_000).default(100),
}).superRefine((config, ctx) => {
  // A pattern that does not compile is refused when the suite or run is created, not per case.
  if (config.pattern === undefined) return;
  try {
    new RegExp(config.pattern, config.flags);
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: ['pattern'], message: `is not a valid regular expression: ${messageOf(err)}` });
  }
});

// Runs inside a fresh vm context: the `timeout` option stops a catastrophic backtracking pattern
// (V8 checks for termination while it backtracks), which a plain RegExp in this thread cannot.
const MATCH = new vm.Script('new RegExp(pattern, flags).exec(text)');

/** The fraction of patterns (`expected.regex`, else `config.pattern`) that match the output. */
export const regexScorer: Scorer = {
  name: 'regex',
  kind: 'rule',
  description: `Fraction of the patterns (expected.regex, else config.pattern; flags from config.flags) that match the output; each match runs with a time limit (config.timeoutMs).`,
  configSchema: Config,
  evaluate(input) {
    const config = Config.parse(input.config);
    const patterns = input.expected.regex ?? (config.pattern !== undefined ? [config.pattern] : []);
    if (patterns.length === 0) throw new Error('regex needs expected.regex or config.pattern');
    for (const pattern of patterns) {
      try {
        new RegExp(pattern, config.flags);
      } catch (err) {
        throw new Error(`invalid regular expression /${cut(pattern, 80)}/${config.flags}: ${messageOf(err)}`, { cause: err });
      }
    }

    const full = outputText(input.output);
    const text = full.length > REGEX_MAX_TEXT ? full.slice(0, REGEX_MAX_TEXT) : full;
    const matched: string[] = [];
    const unmatched: string[] = [];
    const timedOut: string[] = [];
    const evidence: string[] = [];
    let context = vm.createContext({});
    for (const pattern of patterns) {
      const label = `/${cut(pattern, 60)}/`;
      const outcome = runMatch(context, pattern, config.flags, text, config.timeoutMs);
      if (outcome === 'timeout') {
        timedOut.push(label);
        // A terminated script may leave the context half-used; the next pattern gets a clean one.
        context = vm.createContext({});
      } else if (outcome) {
        matched.push(label);
        evidence.push(snippet(text, outcome.index, outcome.length, 30));
      } else {
        unmatched.push(label);
      }
    }

    const parts = [`${matched.length} of ${patterns.length} patterns matched`];
    if (matched.length) parts.push(`matched: ${listOf(matched)}`);
    if (unmatched.length) parts.push(`no match: ${listOf(unmatched)}`);
    if (timedOut.length) parts.push(`pattern timed out after ${config.timeoutMs} ms: ${listOf(timedOut)}`);
    if (text.length < full.length) parts.push(`only the first ${REGEX_MAX_TEXT} characters of ${full.length} were searched`);
    if (config.flags) parts.push(`flags ${show(config.flags)}`);
    return { score: matched.length / patterns.length, reason: parts.join('; '), evidence };
  },
};

function runMatch(
  context: vm.Context,
  pattern: string,
  flags: string,
  text: string,
  timeoutMs: number,
): { index: number; length: number } | null | 'timeout' {
  context.pattern = pattern;
  context.flags = flags;
  context.text = text;
  try {
    const m = MATCH.runInContext(context, { timeout: timeoutMs }) as { index: number; 0: string } | null;
    return m ? { index: m.index, length: m[0].length } : null;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw err;
  } finally {
    context.text = undefined;
  }
}
