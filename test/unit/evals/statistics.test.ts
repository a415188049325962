import { describe, expect, it } from 'vitest';
import { bootstrapMeanCI, minPairsForAlpha, mulberry32, pairedPermutationTest } from '../../../core/evals/statistics.js';

describe('mulberry32', () => {
  it('is reproducible for a seed and uniform-ish in [0, 1)', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
    expect(mulberry32(8)()).not.toBe(mulberry32(7)());
  });
});

describe('pairedPermutationTest', () => {
  const p = (deltas: number[]) => pairedPermutationTest(deltas).p_value;

  it('enumerates all 2^n sign patterns for small n', () => {
    // Five equal positive deltas: only "all +" and "all -" are as extreme, 2 of 32.
    expect(pairedPermutationTest([1, 1, 1, 1, 1])).toEqual({ method: 'paired sign-flip permutation test (two-sided)', n: 5, p_value: 0.0625, exact: true });
    expect(p([1, 2, 3, 4, 5, 6])).toBe(2 / 64);
  });

  it('gives p = 1 for symmetric deltas', () => {
    expect(p([1, -1, 2, -2])).toBe(1);
    expect(p([0.3, -0.3])).toBe(1);
  });

  it('matches reference values', () => {
    // Reference values by brute force in Python 3.11 with exact rational arithmetic
    // (fractions.Fraction over itertools.product([1, -1], repeat=n), counting |sum| >= |observed|);
    // scipy is not installed here.
    expect(p([0.3, -0.1, 0.2, 0.4, 0.1, 0.25, -0.05])).toBe(12 / 128);
    expect(p([3, -1, 2, 5, -4, 1, 2, 0, 6, -2])).toBe(148 / 512);
    expect(p([0.5, 0.2, -0.1, 0.3, 0.05, 0.15, -0.2, 0.4, 0.1, 0.25, 0.35, -0.05])).toBe(122 / 4096);
  });

  it('drops zero deltas (they have no sign) and reports how many are left', () => {
    expect(pairedPermutationTest([1, 0, 1, 0, 1, 1, 1])).toMatchObject({ n: 5, p_value: 0.0625 });
    expect(pairedPermutationTest([0, 0, 0])).toMatchObject({ n: 0, p_value: 1 });
    expect(pairedPermutationTest([])).toMatchObject({ n: 0, p_value: null });
  });

  it('counts sums that differ only by rounding as ties', () => {
    // 0.1 + 0.2 and 0.3 are different doubles; the flip [+0.1, +0.2, -0.3] ties the observed 0.
    expect(p([0.1, 0.2, -0.3])).toBe(1);
  });

  it('uses seeded Monte Carlo above 20 non-zero deltas, with p = (hits + 1) / (resamples + 1)', () => {
    const ones = pairedPermutationTest(Array.from({ length: 25 }, () => 1));
    expect(ones).toMatchObject({ n: 25, exact: false, p_value: 1 / 20_001 });

    const random = mulberry32(3);
    const deltas = Array.from({ length: 22 }, () => random() - 0.45);
    const exact = pairedPermutationTest(deltas, { exactMaxN: 22 });
    const estimate = pairedPermutationTest(deltas, { seed: 11 });
    expect(exact.exact).toBe(true);
    expect(estimate.exact).toBe(false);
    expect(Math.abs(estimate.p_value! - exact.p_value!)).toBeLessThan(0.015);
    expect(pairedPermutationTest(deltas, { seed: 11 })).toEqual(estimate);
  });
});

describe('minPairsForAlpha', () => {
  it('is the smallest n with 2 / 2^n <= alpha', () => {
    expect(minPairsForAlpha(0.05)).toBe(6);
    expect(minPairsForAlpha(0.0625)).toBe(5);
    expect(minPairsForAlpha(0.01)).toBe(8);
    expect(minPairsForAlpha(0.5)).toBe(2);
  });
});

describe('bootstrapMeanCI', () => {
  it('gives [c, c] for a constant vector and null for none', () => {
    expect(bootstrapMeanCI([0.1, 0.1, 0.1])).toEqual([0.1, 0.1]);
    expect(bootstrapMeanCI([-0.3])).toEqual([-0.3, -0.3]);
    expect(bootstrapMeanCI([])).toBeNull();
  });

  it('contains the mean and is reproducible for a seed', () => {
    const deltas = [0.2, -0.1, 0.05, 0.3, -0.2, 0.1, 0.0, 0.15];
    const mean = deltas.reduce((s, x) => s + x, 0) / deltas.length;
    const [lo, hi] = bootstrapMeanCI(deltas, { seed: 1 })!;
    expect(lo).toBeLessThan(mean);
    expect(hi).toBeGreaterThan(mean);
    expect(bootstrapMeanCI(deltas, { seed: 1 })).toEqual([lo, hi]);
    expect(bootstrapMeanCI(deltas, { seed: 2 })).not.toEqual([lo, hi]);
  });

  it('agrees with the normal approximation for a large sample, and narrows with the level', () => {
    // 0, 0.01, ..., 0.99: mean 0.495, sample sd 0.29011; normal 95% half-width 1.96 * 0.29011 / 10 = 0.0569.
    const deltas = Array.from({ length: 100 }, (_, i) => i / 100);
    const [lo, hi] = bootstrapMeanCI(deltas)!;
    expect(lo).toBeCloseTo(0.495 - 0.0569, 2);
    expect(hi).toBeCloseTo(0.495 + 0.0569, 2);
    const [lo50, hi50] = bootstrapMeanCI(deltas, { level: 0.5 })!;
    expect(hi50 - lo50).toBeLessThan(hi - lo);
  });

  it('refuses a level outside (0, 1)', () => {
    expect(() => bootstrapMeanCI([1, 2], { level: 95 })).toThrow('level must be between 0 and 1');
  });
});
