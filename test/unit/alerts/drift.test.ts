import { describe, expect, it } from 'vitest';
import { binShares, ksStatistic, populationStabilityIndex, PSI_EPSILON, quantileEdges } from '../../../core/alerts/drift.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('ksStatistic (two-sample Kolmogorov-Smirnov D)', () => {
  it('is 0 for identical samples, in any order', () => {
    expect(ksStatistic([0.3, 0.1, 0.2], [0.1, 0.2, 0.3])).toBe(0);
    expect(ksStatistic(range(1, 50), range(1, 50))).toBe(0);
  });

  it('is 0 for the same values in the same proportions at different sample sizes', () => {
    expect(ksStatistic([1, 2], [1, 1, 2, 2])).toBe(0);
  });

  it('is 1 for samples that do not overlap, either way round', () => {
    expect(ksStatistic([1, 2, 3], [4, 5])).toBe(1);
    expect(ksStatistic([4, 5], [1, 2, 3])).toBe(1);
  });

  it('is the largest CDF gap: [1,2,3,4] vs [3,4,5,6] gives 0.5', () => {
    expect(ksStatistic([1, 2, 3, 4], [3, 4, 5, 6])).toBe(0.5);
  });

  it('advances both CDFs past a tied value before measuring: [1,1,2] vs [1,2,2] gives 1/3', () => {
    expect(ksStatistic([1, 1, 2], [1, 2, 2])).toBeCloseTo(1 / 3, 12);
  });

  it('is symmetric', () => {
    const a = [0.1, 0.5, 0.5, 0.9, 0.3];
    const b = [0.2, 0.5, 0.7];
    expect(ksStatistic(a, b)).toBe(ksStatistic(b, a));
  });

  it('ignores non-finite values and is null for an empty sample', () => {
    expect(ksStatistic([1, Number.NaN, 2], [1, 2, Number.POSITIVE_INFINITY])).toBe(0);
    expect(ksStatistic([], [1])).toBeNull();
    expect(ksStatistic([1], [Number.NaN])).toBeNull();
  });
});

describe('quantileEdges and binShares', () => {
  it('cuts a baseline at its quantiles (linear interpolation)', () => {
    expect(quantileEdges(range(1, 10), 2)).toEqual([5.5]);
    expect(quantileEdges(range(1, 5), 4)).toEqual([2, 3, 4]);
  });

  it('merges equal edges: a constant baseline has one edge', () => {
    expect(quantileEdges([0.5, 0.5, 0.5, 0.5], 10)).toEqual([0.5]);
  });

  it('puts a value equal to an edge in the lower bin', () => {
    expect(binShares([1, 2, 3, 4], [2, 3])).toEqual([0.5, 0.25, 0.25]);
  });

  it('refuses fewer than 2 bins', () => {
    expect(() => quantileEdges([1, 2], 1)).toThrow(RangeError);
  });
});

describe('populationStabilityIndex', () => {
  it('is 0 for identical samples', () => {
    expect(populationStabilityIndex(range(1, 100), range(1, 100))).toBe(0);
    expect(populationStabilityIndex([0.5, 0.5, 0.5], [0.5, 0.5])).toBe(0);
  });

  it('matches a hand-computed case: shares (0.8, 0.2) against (0.5, 0.5)', () => {
    // Baseline 1..10, two bins split at the median 5.5: q = (0.5, 0.5). Current: 8 values at
    // most 5.5, 2 above: p = (0.8, 0.2).
    // PSI = (0.8 - 0.5) ln(0.8 / 0.5) + (0.2 - 0.5) ln(0.2 / 0.5) = 0.3 ln 1.6 + 0.3 ln 2.5 = 0.415888...
    const current = [1, 2, 3, 4, 5, 1, 2, 3, 9, 10];
    expect(populationStabilityIndex(range(1, 10), current, 2)).toBeCloseTo(0.41588831, 7);
    expect(0.3 * Math.log(1.6) + 0.3 * Math.log(2.5)).toBeCloseTo(0.41588831, 7);
  });

  it('floors an empty bin at PSI_EPSILON instead of dividing by zero', () => {
    // Everything in the lower bin: p = (1, 0 -> 1e-4), q = (0.5, 0.5).
    const expected = (1 - 0.5) * Math.log(1 / 0.5) + (PSI_EPSILON - 0.5) * Math.log(PSI_EPSILON / 0.5);
    expect(populationStabilityIndex(range(1, 10), [1, 1, 1, 1], 2)).toBeCloseTo(expected, 10);
  });

  it('is large for a shifted distribution and small for a resample of the same one', () => {
    const baseline = range(0, 99).map((i) => 0.6 + (0.4 * i) / 99);
    const shifted = baseline.map((v) => v - 0.5);
    expect(populationStabilityIndex(baseline, shifted)!).toBeGreaterThan(0.25);
    const everyOther = baseline.filter((_, i) => i % 2 === 0);
    expect(populationStabilityIndex(baseline, everyOther)!).toBeLessThan(0.1);
  });

  it('is null when either sample is empty', () => {
    expect(populationStabilityIndex([], [1])).toBeNull();
    expect(populationStabilityIndex([1], [])).toBeNull();
  });
});
