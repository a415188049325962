import { describe, expect, it } from 'vitest';
import { verdictToDetail } from '../../../core/scoring/verdict.js';

/** The one reading of custom scorers' answers (SDK defineScorer and HTTP custom scorers). */
describe('verdictToDetail', () => {
  const numeric = { who: "scorer 'q'", dataType: 'numeric' as const };
  const boolean = { who: "scorer 'b'", dataType: 'boolean' as const };
  const categorical = { who: "scorer 'c'", dataType: 'categorical' as const, categories: { good: 1, meh: 0.5, bad: 0 } };

  it('reads bare numbers and booleans, and objects with value or score, reason and evidence', () => {
    expect(verdictToDetail(0.25, numeric)).toEqual({ score: 0.25, reason: '', evidence: [] });
    expect(verdictToDetail(true, boolean)).toEqual({ score: 1, reason: '', evidence: [] });
    expect(verdictToDetail({ value: 0.5, reason: 'half', evidence: ['x'] }, numeric)).toEqual({ score: 0.5, reason: 'half', evidence: ['x'] });
    expect(verdictToDetail({ score: 0.75 }, numeric).score).toBe(0.75);
    expect(verdictToDetail({ value: false }, boolean).score).toBe(0);
    expect(verdictToDetail({ value: 1 }, boolean).score).toBe(1);
    expect(verdictToDetail({ value: 'meh' }, categorical)).toEqual({ score: 0.5, reason: 'category meh', evidence: [] });
  });

  it('refuses what cannot be a score, saying why', () => {
    expect(() => verdictToDetail({ reason: 'forgot' }, numeric)).toThrow("scorer 'q' answered neither value nor score");
    expect(() => verdictToDetail({ value: 7 }, numeric)).toThrow("scorer 'q' is numeric and answered 7 (expected a number from 0 to 1)");
    expect(() => verdictToDetail({ value: -0.1 }, numeric)).toThrow('expected a number from 0 to 1');
    expect(() => verdictToDetail(Number.NaN, numeric)).toThrow("scorer 'q' answered an invalid body");
    expect(() => verdictToDetail({ value: 'high' }, numeric)).toThrow("scorer 'q' answered an invalid body: value must be a number or a boolean");
    expect(() => verdictToDetail({ value: 0.5 }, boolean)).toThrow("scorer 'b' is boolean and answered 0.5");
    expect(() => verdictToDetail({ value: 'awful' }, categorical)).toThrow("the category 'awful', which has no score (categories: good, meh, bad)");
    expect(() => verdictToDetail({ value: 0.3 }, categorical)).toThrow('is categorical and answered 0.3');
    expect(() => verdictToDetail('text', numeric)).toThrow("scorer 'q' answered an invalid body");
    expect(() => verdictToDetail(null, numeric)).toThrow("scorer 'q' answered an invalid body");
    expect(() => verdictToDetail({ value: 0.5, evidence: 'not a list' }, numeric)).toThrow('answered an invalid body: evidence');
  });
});
