/**
 * Paired statistics for comparing two eval runs case by case. Everything is deterministic for a
 * given seed, so a comparison shown twice gives the same numbers.
 */

/** The seed used when the caller gives none. */
export const DEFAULT_SEED = 0x5eed;

/** Mulberry32: a small, fast, seeded PRNG with uniform output in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const PERMUTATION_METHOD = 'paired sign-flip permutation test (two-sided)' as const;

export interface PermutationTestOptions {
  /** Exact enumeration up to this many non-zero deltas (2^n sign patterns); default 20. */
  exactMaxN?: number;
  /** Monte Carlo resamples above exactMaxN; default 20,000. */
  resamples?: number;
  seed?: number;
}

export interface PermutationTestResult {
  method: typeof PERMUTATION_METHOD;
  /** Number of non-zero deltas (zero deltas carry no sign and are dropped). */
  n: number;
  /** Null when there are no deltas at all; 1 when every delta is 0. */
  p_value: number | null;
  /** True for exact enumeration, false for Monte Carlo. */
  exact: boolean;
}

/**
 * Two-sided paired sign-flip permutation test of "the mean delta is 0". Under the null each
 * delta is as likely positive as negative, so the p-value is the share of the 2^n sign patterns
 * whose |sum| is at least the observed |sum|. Enumerated exactly for n <= 20 non-zero deltas,
 * else estimated from seeded random sign patterns as (hits + 1) / (resamples + 1), which never
 * reports 0. The smallest possible exact p-value is 2 / 2^n.
 */
export function pairedPermutationTest(deltas: readonly number[], opts: PermutationTestOptions = {}): PermutationTestResult {
  const exactMaxN = opts.exactMaxN ?? 20;
  const resamples = opts.resamples ?? 20_000;
  const d = finite(deltas).filter((x) => x !== 0);
  const n = d.length;
  if (n === 0) return { method: PERMUTATION_METHOD, n, p_value: deltas.length ? 1 : null, exact: true };

  const observed = Math.abs(sum(d));
  // Sums of the same numbers in another order differ by rounding; count those as ties.
  const bar = observed - 1e-9 * sum(d.map(Math.abs));

  if (n <= exactMaxN) {
    // Gray code: each step flips one sign, so the sum updates in O(1).
    const signs = new Int8Array(n).fill(1);
    let s = sum(d);
    let hits = Math.abs(s) >= bar ? 1 : 0;
    const patterns = 2 ** n;
    for (let i = 1; i < patterns; i++) {
      const j = 31 - Math.clz32(i & -i);
      s -= 2 * signs[j] * d[j];
      signs[j] = -signs[j];
      if (Math.abs(s) >= bar) hits++;
    }
    return { method: PERMUTATION_METHOD, n, p_value: hits / patterns, exact: true };
  }

  const random = mulberry32(opts.seed ?? DEFAULT_SEED);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (const x of d) s += random() < 0.5 ? x : -x;
    if (Math.abs(s) >= bar) hits++;
  }
  return { method: PERMUTATION_METHOD, n, p_value: (hits + 1) / (resamples + 1), exact: false };
}

/**
 * The fewest non-zero deltas for which the sign-flip test can reach `alpha` at all: its smallest
 * p-value is 2 / 2^n, so n must satisfy 2^(1-n) <= alpha.
 */
export function minPairsForAlpha(alpha: number): number {
  let n = 1;
  while (2 / 2 ** n > alpha && n < 1100) n++;
  return n;
}

export interface BootstrapOptions {
  /** Confidence level; default 0.95. */
  level?: number;
  /** Default 10,000. */
  resamples?: number;
  seed?: number;
}

/**
 * Percentile bootstrap confidence interval of the mean: resample the deltas with replacement,
 * take the mean of each resample, and read the (1 - level) / 2 and (1 + level) / 2 quantiles
 * (linear interpolation). Null for no deltas; [c, c] for a constant vector.
 */
export function bootstrapMeanCI(deltas: readonly number[], opts: BootstrapOptions = {}): [number, number] | null {
  const level = opts.level ?? 0.95;
  const resamples = opts.resamples ?? 10_000;
  if (!(level > 0 && level < 1)) throw new RangeError('level must be between 0 and 1');
  if (!(Number.isInteger(resamples) && resamples > 0)) throw new RangeError('resamples must be a positive integer');
  const d = finite(deltas);
  const n = d.length;
  if (n === 0) return null;
  let lowest = Infinity;
  let highest = -Infinity;
  for (const x of d) {
    lowest = Math.min(lowest, x);
    highest = Math.max(highest, x);
  }
  if (lowest === highest) return [lowest, highest];

  const random = mulberry32(opts.seed ?? DEFAULT_SEED);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(random() * n)];
    means[r] = s / n;
  }
  means.sort();
  const clamp = (x: number) => Math.min(highest, Math.max(lowest, x));
  return [clamp(quantile(means, (1 - level) / 2)), clamp(quantile(means, (1 + level) / 2))];
}

/** Quantile of sorted values with linear interpolation between order statistics (R type 7). */
function quantile(sorted: Float64Array, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function mean(values: readonly number[]): number {
  return values.length ? sum(values) / values.length : 0;
}

function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

function finite(values: readonly number[]): number[] {
  return values.filter((v) => Number.isFinite(v));
}
