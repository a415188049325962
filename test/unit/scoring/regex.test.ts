import { ExpectedSchema } from '../../../core/model/eval-case.js';
import { describe, expect, it } from 'vitest';
import { REGEX_MAX_TEXT, regexScorer } from '../../../core/scoring/rules/regex.js';
import { compileSafeRegex, createRegexPool, setRegexPool } from '../../../core/safe-regex.js';
import { createScorerRegistry, RULE_SCORERS, runScorers } from '../../../core/scoring/index.js';
import { score } from './score-input.js';

describe('regex', () => {
  it('scores the fraction of expected patterns that match, quoting the matches', async () => {
    const d = await score(regexScorer, 'Order #12345 shipped on 2024-05-01', { regex: ['#\\d{5}', '\\d{4}-\\d{2}-\\d{2}', 'refund'] });
    expect(d.score).toBeCloseTo(2 / 3);
    expect(d.reason).toContain('2 of 3 patterns matched');
    expect(d.reason).toContain('no match: /refund/');
    expect(d.evidence.join(' ')).toContain('#12345');
    expect(d.evidence.join(' ')).toContain('2024-05-01');
  });

  it('takes a single pattern from expected.regex as a string', async () => {
    expect((await score(regexScorer, 'hello world', { regex: '^hello' })).score).toBe(1);
  });

  it('uses config.pattern and config.flags when the case has no patterns', async () => {
    expect((await score(regexScorer, 'HELLO', {}, { pattern: '^hello$' })).score).toBe(0);
    expect((await score(regexScorer, 'HELLO', {}, { pattern: '^hello$', flags: 'i' })).score).toBe(1);
  });

  it('prefers expected.regex over config.pattern', async () => {
    expect((await score(regexScorer, 'abc', { regex: ['abc'] }, { pattern: 'zzz' })).score).toBe(1);
  });

  it('refuses stateful or unknown flags in the config', () => {
    expect(regexScorer.configSchema.safeParse({ flags: 'g' }).success).toBe(false);
    expect(regexScorer.configSchema.safeParse({ flags: 'q' }).success).toBe(false);
    expect(regexScorer.configSchema.safeParse({ flags: 'v' }).error?.issues[0].message).toMatch(/^flag v \(Unicode sets\) is not supported/);
    expect(regexScorer.configSchema.parse({})).toEqual({ flags: '' });
    // Accepted and ignored, so suites written when it meant something still load.
    expect(regexScorer.configSchema.parse({ timeoutMs: 50 })).toEqual({ flags: '', timeoutMs: 50 });
  });

  it('refuses, naming the construct, a pattern RE2 cannot run: in expected.regex and in config.pattern', () => {
    expect(ExpectedSchema.safeParse({ regex: ['ok', '(?<=\\$)\\d+'] }).error?.issues[0]).toMatchObject({
      path: ['regex', 1],
      message: 'lookbehind is not supported (patterns run on RE2: docs/scorers.md)',
    });
    expect(regexScorer.configSchema.safeParse({ pattern: '(a)\\1' }).error?.issues[0]).toMatchObject({
      path: ['pattern'],
      message: expect.stringMatching(/^a backreference/) as string,
    });
    expect(regexScorer.configSchema.safeParse({ pattern: 'x'.repeat(1001) }).error?.issues[0]).toMatchObject({
      path: ['pattern'],
      message: 'is longer than 1000 characters',
    });
  });

  it('refuses an invalid pattern when the case or config is checked, and throws clearly if one reaches it anyway', async () => {
    expect(ExpectedSchema.safeParse({ regex: ['(unclosed'] }).error?.issues[0]).toMatchObject({
      path: ['regex', 0],
      message: expect.stringMatching(/not a valid regular expression/) as string,
    });
    expect(regexScorer.configSchema.safeParse({ pattern: '(unclosed' }).error?.issues[0]).toMatchObject({ path: ['pattern'] });
    // A case stored before the check existed: the scorer still explains itself.
    const stored = { input: 'q', output: 'x', expected: { regex: ['(unclosed'] }, toolCalls: [], latencyMs: 1, config: { flags: '' } };
    await expect(Promise.resolve().then(() => regexScorer.evaluate(stored))).rejects.toThrow(/invalid regular expression \/\(unclosed\//);
  });

  it('throws without any pattern', async () => {
    await expect(score(regexScorer, 'x', {})).rejects.toThrow('regex needs expected.regex or config.pattern');
  });

  it('answers a pattern that backtracking engines take exponential time on, in linear time', async () => {
    const hostile = Array.from({ length: 30 }, () => '(a+)+b');
    const d = await score(regexScorer, `${'a'.repeat(100_000)}c`, { regex: [...hostile, '(a+)+c'] });
    expect(d.score).toBeCloseTo(1 / 31);
    expect(d.reason).toContain('1 of 31 patterns matched');
    expect(d.reason).toContain('no match: /(a+)+b/');
  });

  it('searches each pattern over at most its scan limit of a huge output, and says so', async () => {
    const limit = compileSafeRegex('needle').scanLimit;
    expect(limit).toBeLessThanOrEqual(REGEX_MAX_TEXT);
    const text = `${'x'.repeat(limit)}needle`;
    const d = await score(regexScorer, text, { regex: ['needle', 'x'] });
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain(`the output has ${text.length} characters, of which these searched only part: /needle/ (the first ${limit})`);
    expect((await score(regexScorer, text.slice(-100), { regex: ['needle'] })).score).toBe(1);
  });

  it('stops between patterns when the run is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const input = { input: 'q', output: 'abc', expected: ExpectedSchema.parse({ regex: ['a', 'b'] }), toolCalls: [], latencyMs: 1, config: { flags: '' } };
    await expect(Promise.resolve().then(() => regexScorer.evaluate(input, controller.signal))).rejects.toThrow('cancelled');
  });

  it("scores 0, saying why, when the case's search budget runs out; the case's other scorers go on", async () => {
    // The process's pool, with a case budget of 1 ms instead of 5 s (real workers, real searches).
    const small = createRegexPool({ caseBudgetMs: 1 });
    const previous = setRegexPool(small);
    try {
      const hostile = Array.from({ length: 100 }, () => '(a|aa)+$');
      const details = await runScorers(
        createScorerRegistry(RULE_SCORERS),
        [
          { name: 'regex', config: {} },
          { name: 'contains', config: {} },
        ],
        {
          input: 'q',
          output: `${'a'.repeat(100_000)}!`,
          expected: ExpectedSchema.parse({ regex: hostile, outputContains: ['a!'] }),
          toolCalls: [],
          latencyMs: 1,
          runId: 'run-x',
        },
      );
      expect(details.regex.score).toBe(0);
      expect(details.regex.reason).toMatch(
        /^scorer error: regex budget exhausted: a case's patterns may search for 1 ms in all \(docs\/scorers\.md\); \d+ of its 100 patterns were searched$/,
      );
      expect(details.contains.score).toBe(1);
    } finally {
      setRegexPool(previous ?? createRegexPool());
      await small.close();
    }
  });

  it('matches JSON outputs as text', async () => {
    expect((await score(regexScorer, { status: 'ok' }, { regex: ['"status":"ok"'] })).score).toBe(1);
  });
});
