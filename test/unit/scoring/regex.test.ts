import { ExpectedSchema } from '../../../core/model/eval-case.js';
import { describe, expect, it } from 'vitest';
import { REGEX_MAX_TEXT, regexScorer } from '../../../core/scoring/rules/regex.js';
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
    expect(regexScorer.configSchema.parse({})).toEqual({ flags: '', timeoutMs: 100 });
  });

  it('refuses an invalid pattern when the case or config is checked, and throws clearly if one reaches it anyway', async () => {
    expect(ExpectedSchema.safeParse({ regex: ['(unclosed'] }).error?.issues[0]).toMatchObject({ path: ['regex', 0], message: expect.stringMatching(/not a valid regular expression/) as string });
    expect(regexScorer.configSchema.safeParse({ pattern: '(unclosed' }).error?.issues[0]).toMatchObject({ path: ['pattern'] });
    // A case stored before the check existed: the scorer still explains itself.
    const stored = { input: 'q', output: 'x', expected: { regex: ['(unclosed'] }, toolCalls: [], latencyMs: 1, config: { flags: '', timeoutMs: 100 } };
    await expect(Promise.resolve().then(() => regexScorer.evaluate(stored))).rejects.toThrow(/invalid regular expression \/\(unclosed\//);
  });

  it('throws without any pattern', async () => {
    await expect(score(regexScorer, 'x', {})).rejects.toThrow('regex needs expected.regex or config.pattern');
  });

  it('stops a catastrophic backtracking pattern and scores it 0', async () => {
    const started = performance.now();
    const d = await score(regexScorer, `${'a'.repeat(40)}!`, { regex: ['(a+)+$', '^a+'] }, { timeoutMs: 50 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain('pattern timed out');
    expect(d.reason).toContain('/(a+)+$/');
  });

  it('searches only the first 1 MiB of a huge output', async () => {
    const text = `${'x'.repeat(REGEX_MAX_TEXT)}needle`;
    const d = await score(regexScorer, text, { regex: ['needle'] });
    expect(d.score).toBe(0);
    expect(d.reason).toContain(`only the first ${REGEX_MAX_TEXT} characters`);
  });

  it('matches JSON outputs as text', async () => {
    expect((await score(regexScorer, { status: 'ok' }, { regex: ['"status":"ok"'] })).score).toBe(1);
  });
});
