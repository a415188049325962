/**
 * Distribution drift between a baseline sample and a current one, for `drift` alert rules
 * (docs/alerts.md, "Drift"). Both statistics are deterministic functions of the two samples;
 * non-finite values are ignored.
 */

/** Default number of PSI bins: deciles of the baseline. */
export const DEFAULT_PSI_BINS = 10;

/**
 * Floor for a bin's share in the PSI sum: an empty bin would make ln(p / q) infinite. 1e-4 is
 * the usual choice; it bounds one bin's term at about (share) * 9.2.
 */
export const PSI_EPSILON = 1e-4;

/**
 * The two-sample Kolmogorov-Smirnov statistic D = sup_x |F_a(x) - F_b(x)|, the largest gap
 * between the empirical CDFs: 0 for samples with the same values in the same proportions, 1 for
 * samples that do not overlap. Null when either sample is empty.
 */
export function ksStatistic(a: readonly number[], b: readonly number[]): number | null {
  const x = sortedFinite(a);
  const y = sortedFinite(b);
  if (x.length === 0 || y.length === 0) return null;
  let i = 0;
  let j = 0;
  let d = 0;
  // Walk the merged values; ties advance both CDFs past the value before the gap is measured.
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i], y[j]);
    while (i < x.length && x[i] === v) i++;
    while (j < y.length && y[j] === v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
}

/**
 * Bin edges from the baseline's quantiles at k / bins (k = 1 .. bins - 1, linear interpolation
 * between order statistics), duplicates removed: a baseline with many equal values (scores of
 * exactly 1.0) yields fewer, wider bins rather than empty ones.
 */
export function quantileEdges(baseline: readonly number[], bins: number): number[] {
  if (!Number.isInteger(bins) || bins < 2) throw new RangeError('bins must be an integer of at least 2');
  const sorted = sortedFinite(baseline);
  if (sorted.length === 0) return [];
  const edges: number[] = [];
  for (let k = 1; k < bins; k++) {
    const edge = quantileSorted(sorted, k / bins);
    if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
  }
  return edges;
}

/**
 * Shares of `values` in the bins (-inf, e1], (e1, e2], ..., (e_last, +inf): edges.length + 1
 * shares summing to 1 (all 0 for an empty sample).
 */
export function binShares(values: readonly number[], edges: readonly number[]): number[] {
  const counts = new Array<number>(edges.length + 1).fill(0);
  let n = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    counts[firstEdgeAtLeast(edges, v)]++;
    n++;
  }
  return counts.map((c) => (n === 0 ? 0 : c / n));
}

/**
 * The population stability index of `current` against `baseline`:
 * PSI = sum over bins of (p_i - q_i) * ln(p_i / q_i), where q_i and p_i are the baseline's and
 * the current sample's shares of bin i, the bins fixed by the baseline's quantiles
 * ({@link quantileEdges}) and each share floored at {@link PSI_EPSILON}. 0 for identical
 * distributions; by convention < 0.1 is stable, 0.1-0.25 a moderate shift, > 0.25 a major one.
 * Null when either sample is empty.
 */
export function populationStabilityIndex(baseline: readonly number[], current: readonly number[], bins = DEFAULT_PSI_BINS): number | null {
  const edges = quantileEdges(baseline, bins);
  const q = binShares(baseline, edges);
  const p = binShares(current, edges);
  if (q.every((s) => s === 0) || p.every((s) => s === 0)) return null;
  let psi = 0;
  for (let i = 0; i < q.length; i++) {
    const qi = Math.max(q[i], PSI_EPSILON);
    const pi = Math.max(p[i], PSI_EPSILON);
    psi += (pi - qi) * Math.log(pi / qi);
  }
  // Identical shares give exactly 0; rounding must not turn that into -1e-17.
  return Math.max(0, psi);
}

/** Index of the first edge >= v (binary search), or edges.length when v is above them all. */
function firstEdgeAtLeast(edges: readonly number[], v: number): number {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (edges[mid] >= v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Quantile of sorted values with linear interpolation between order statistics (R type 7). */
function quantileSorted(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function sortedFinite(values: readonly number[]): number[] {
  return values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
}
