import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import { mergeOnlineRule, parseOnlineRule } from '../../../core/model/online-rule.js';
import { isSampled, sampleFraction } from '../../../core/online/sampling.js';
import { judgeTraceId, onlineScoreId } from '../../../core/online/judge-trace.js';
import { retryDelayMs } from '../../../core/online/evaluator.js';
import { validationIssues } from '../../helpers/thrown.js';

const RULE = '6f1c2b9e-3d4a-4c5b-8e7f-0a1b2c3d4e5f';
const traceIds = (n: number) => Array.from({ length: n }, (_, i) => `trace-${i.toString(16).padStart(8, '0')}`);

describe('deterministic sampling', () => {
  it('gives a trace the same decision every time, in [0, 1)', () => {
    for (const id of traceIds(100)) {
      const u = sampleFraction(RULE, id);
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      expect(sampleFraction(RULE, id)).toBe(u);
    }
  });

  it('takes every trace at rate 1 and none at rate 0', () => {
    const ids = traceIds(1000);
    expect(ids.filter((id) => isSampled(RULE, id, 1))).toHaveLength(1000);
    expect(ids.filter((id) => isSampled(RULE, id, 0))).toHaveLength(0);
  });

  it('samples at the configured rate, within the binomial expectation', () => {
    const n = 20_000;
    const ids = traceIds(n);
    for (const rate of [0.01, 0.1, 0.5, 0.9]) {
      const k = ids.filter((id) => isSampled(RULE, id, rate)).length;
      const sd = Math.sqrt(n * rate * (1 - rate));
      expect(Math.abs(k - n * rate), `rate ${rate}: ${k} of ${n}`).toBeLessThan(4 * sd);
    }
  });

  it('is monotone in the rate: raising it only adds traces', () => {
    const ids = traceIds(2000);
    const low = new Set(ids.filter((id) => isSampled(RULE, id, 0.2)));
    const high = ids.filter((id) => isSampled(RULE, id, 0.6));
    for (const id of low) expect(high).toContain(id);
  });

  it('samples independently per rule', () => {
    const ids = traceIds(10_000);
    const other = '0e9d8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
    const both = ids.filter((id) => isSampled(RULE, id, 0.5) && isSampled(other, id, 0.5)).length;
    // Independent halves overlap on about a quarter (sd = sqrt(n p (1-p)) with p = 0.25).
    expect(Math.abs(both - 2500)).toBeLessThan(4 * Math.sqrt(10_000 * 0.25 * 0.75));
  });
});

describe('online rule bodies', () => {
  it('fills defaults and keeps scorers in object form', () => {
    const { definition, since } = parseOnlineRule({ name: ' quality ', scorers: ['contains'] });
    expect(definition).toEqual({
      name: 'quality',
      target: 'trace',
      filter: {},
      sample_rate: 1,
      scorers: [{ name: 'contains', config: {} }],
      expected: {},
      delay_seconds: 60,
      enabled: true,
    });
    expect(since).toBeUndefined();
  });

  it('reads since as a time', () => {
    expect(parseOnlineRule({ name: 'r', scorers: ['contains'], since: '2026-01-02T03:04:05.678Z' }).since).toBe(Date.parse('2026-01-02T03:04:05.678Z'));
  });

  it('refuses bad fields with a 422 naming each', () => {
    const issues = (body: unknown) =>
      validationIssues(() => parseOnlineRule(body))
        .map((i) => i.field)
        .sort();
    expect(issues({ scorers: ['contains'] })).toEqual(['name']);
    expect(issues({ name: 'r', scorers: [] })).toEqual(['scorers']);
    expect(issues({ name: 'r', scorers: ['contains'], sample_rate: 1.5, delay_seconds: -1 })).toEqual(['delay_seconds', 'sample_rate']);
    expect(issues({ name: 'r', scorers: ['contains'], filter: { component_type: 'nope', colour: 'red' } })).toEqual(['filter', 'filter.component_type']);
    expect(issues({ name: 'r', scorers: ['contains', 'contains'] })).toEqual(['scorers[1]']);
    expect(issues({ name: 'r\u0000', scorers: ['contains'] })).toEqual(['name']);
  });

  it('merges a PUT body into the stored settings; null returns a field to its default', () => {
    const { definition } = parseOnlineRule({ name: 'r', scorers: ['contains'], sample_rate: 0.2, filter: { status: 'error' }, delay_seconds: 5 });
    const merged = mergeOnlineRule(definition, { enabled: false, filter: null, id: 'ignored', stats: {} });
    expect(merged).toEqual({ ...definition, enabled: false, filter: {} });
    expect(() => mergeOnlineRule(definition, { sample_rate: 'half' })).toThrow(ValidationError);
    expect(() => mergeOnlineRule(definition, { since: '2026-01-01' })).not.toThrow();
  });
});

describe('ids of an online evaluation', () => {
  it('derive from (rule, trace, scorer): a retry writes the same score and judge trace', () => {
    expect(onlineScoreId(RULE, 't1', 'contains')).toBe(onlineScoreId(RULE, 't1', 'contains'));
    expect(onlineScoreId(RULE, 't1', 'contains')).not.toBe(onlineScoreId(RULE, 't1', 'regex'));
    expect(onlineScoreId(RULE, 't1', 'contains')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(judgeTraceId(RULE, 't1', 'safety_judge')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('retries after 2 s, 4 s, 8 s... at most a minute (SPEC: score trace)', () => {
    expect([1, 2, 3, 4, 7].map(retryDelayMs)).toEqual([2000, 4000, 8000, 16_000, 60_000]);
  });
});
