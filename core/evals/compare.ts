import { compareConversations, type ComparableConversation, type ConversationComparison } from './compare-turns.js';
import { bootstrapMeanCI, DEFAULT_SEED, mean, minPairsForAlpha, pairedPermutationTest, PERMUTATION_METHOD } from './statistics.js';

/** One case result as a comparison needs it (the SPEC's eval case result, trimmed). */
export interface ComparableCase {
  case_name: string;
  scores: Record<string, number>;
  avg_score: number;
  status: string;
  /** A conversation case's first trial that ran, turn by turn (absent for single-turn cases). */
  conversation?: ComparableConversation;
  /** The case's place in its run, its first trial's trace, its mean trial duration and its cost (USD; null when unknown). */
  case_index?: number;
  trace_id?: string | null;
  duration_ms?: number;
  cost_usd?: number | null;
  /** What a changed case shows side by side: its input, expected, output, error and scorers' details. */
  detail?: CaseSideDetail;
}

/** One run's side of a case whose scorers changed: what it was asked, what it answered, why it scored so. */
export interface CaseSideDetail {
  input: unknown;
  expected: unknown;
  output: unknown;
  error: string | null;
  /** Per scorer: score, passed, reason, evidence (as the run's results give them). */
  details: Record<string, unknown>;
}

/** One run's side of a compared case. */
export interface CaseSide {
  case_index: number | null;
  trace_id: string | null;
  duration_ms: number | null;
  cost_usd: number | null;
}

/** How a case's scorers moved: any regression beyond the threshold makes it regressed (mixed when another improved). */
export const CASE_CHANGES = ['regressed', 'improved', 'mixed', 'unchanged'] as const;
export type CaseChange = (typeof CASE_CHANGES)[number];

export interface ComparableRun {
  run_id: string;
  agent_version: string;
  suite_id?: string | null;
  suite_version?: number | null;
  cases: ComparableCase[];
}

/** One scorer of one case that moved by more than the threshold. */
export interface ScoreChange {
  case_name: string;
  scorer: string;
  baseline_score: number;
  candidate_score: number;
  delta: number;
}

export interface CaseComparison {
  case_name: string;
  baseline_score: number;
  candidate_score: number;
  delta: number;
  baseline_status: string;
  candidate_status: string;
  /** A case that is a conversation in both runs: its turns compared (core/evals/compare-turns.ts). */
  conversation?: ConversationComparison;
  /** regressed: a scorer dropped beyond the threshold and none rose; improved: the reverse; mixed: both. */
  change: CaseChange;
  /** Both runs' case index, trace, duration and cost. */
  baseline_case: CaseSide;
  candidate_case: CaseSide;
  /** Candidate minus baseline; null when either side is unknown. */
  duration_delta_ms: number | null;
  cost_delta_usd: number | null;
  /** A changed case's input, expected, output and scorers' reasons and evidence in each run (absent for unchanged cases). */
  baseline_detail?: CaseSideDetail;
  candidate_detail?: CaseSideDetail;
}

/** Cases counted once each, apart from the scorer changes (one case may have several). */
export interface CaseCounts {
  compared: number;
  regressed: number;
  improved: number;
  mixed: number;
  unchanged: number;
}

/** Latency and cost over the paired cases: totals of each run and the change. */
export interface CostLatencyDelta {
  /** Mean case duration (ms) over the paired cases. */
  baseline_mean_duration_ms: number | null;
  candidate_mean_duration_ms: number | null;
  mean_duration_delta_ms: number | null;
  /** Total USD of the paired cases whose cost is known in both runs. */
  baseline_cost_usd: number | null;
  candidate_cost_usd: number | null;
  cost_delta_usd: number | null;
  /** Paired cases whose cost is known in both runs. */
  priced_cases: number;
}

/** Is the change in per-case average score more than noise? See docs/scorers.md, "Comparing runs". */
export interface Significance {
  method: typeof PERMUTATION_METHOD;
  /** Paired cases. */
  n: number;
  /** Paired cases whose average score changed (the test drops unchanged ones). */
  n_changed: number;
  /** Null when no case is paired. */
  p_value: number | null;
  alpha: number;
  /** p_value <= alpha, and the sample is large enough to conclude anything. */
  significant: boolean;
  /** Mean of candidate minus baseline average scores over the paired cases. */
  mean_delta: number;
  /** 95% percentile bootstrap interval of mean_delta; null when no case is paired. */
  ci95: [number, number] | null;
  /** False when even the most extreme outcome could not reach alpha (too few paired cases). */
  conclusive: boolean;
  note: string;
}

/** The SPEC's run comparison shape, plus significance, per-case deltas and unmatched cases. */
export interface RunComparison {
  baseline: { run_id: string; agent_version: string };
  candidate: { run_id: string; agent_version: string };
  passed: boolean;
  overall_delta: number;
  regressions: ScoreChange[];
  improvements: ScoreChange[];
  unchanged_count: number;
  threshold: number;
  significance: Significance;
  cases: CaseComparison[];
  only_in_baseline: string[];
  only_in_candidate: string[];
  same_suite_version: boolean | null;
  /** Cases by how they moved (regressions and improvements count scorer changes; these count cases). */
  case_counts: CaseCounts;
  /** Latency and cost of the paired cases in both runs. */
  totals: CostLatencyDelta;
}

export interface CompareOptions {
  /** A scorer's delta counts as a regression or improvement when |delta| > threshold. */
  threshold: number;
  /** Significance level; default 0.05. */
  alpha?: number;
  seed?: number;
}

/** Cases that never produced a result have nothing to compare. */
const NOT_RUN = new Set(['cancelled', 'pending']);

/** Score differences this small are rounding, not change (0.75 - 0.7 must not exceed 0.05). */
const EPSILON = 1e-9;

/**
 * Compares two runs case by case (matched by case_name; cancelled and pending cases left out).
 * A case that is a conversation in both runs is also compared turn by turn (compare-turns.ts);
 * significance stays over cases, each conversation one paired case.
 * Per scorer, a delta beyond the threshold is a regression or an improvement; the run passes
 * when there is no regression. The per-case average score deltas also get a paired sign-flip
 * permutation test and a bootstrap interval of their mean. Deterministic for a given seed.
 */
export function compareRuns(baseline: ComparableRun, candidate: ComparableRun, opts: CompareOptions): RunComparison {
  const { threshold } = opts;
  const alpha = opts.alpha ?? 0.05;
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!(Number.isFinite(threshold) && threshold >= 0)) throw new RangeError('threshold must be a number >= 0');
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('alpha must be between 0 and 1');

  const base = byName(baseline.cases);
  const cand = byName(candidate.cases);
  const cases: CaseComparison[] = [];
  const regressions: ScoreChange[] = [];
  const improvements: ScoreChange[] = [];
  let unchanged = 0;
  for (const [name, b] of base) {
    const c = cand.get(name);
    if (!c) continue;
    let down = false;
    let up = false;
    for (const [scorer, baselineScore] of Object.entries(b.scores)) {
      if (!Object.hasOwn(c.scores, scorer)) continue;
      const moved = { case_name: name, scorer, baseline_score: baselineScore, candidate_score: c.scores[scorer], delta: c.scores[scorer] - baselineScore };
      if (Math.abs(moved.delta) <= threshold + EPSILON) unchanged++;
      else if (moved.delta < 0) {
        regressions.push(moved);
        down = true;
      } else {
        improvements.push(moved);
        up = true;
      }
    }
    const change: CaseChange = down && up ? 'mixed' : down ? 'regressed' : up ? 'improved' : 'unchanged';
    const bSide = side(b);
    const cSide = side(c);
    cases.push({
      case_name: name,
      baseline_score: b.avg_score,
      candidate_score: c.avg_score,
      delta: c.avg_score - b.avg_score,
      baseline_status: b.status,
      candidate_status: c.status,
      ...(b.conversation && c.conversation
        ? { conversation: compareConversations(b.conversation, c.conversation, { baseline: b.scores, candidate: c.scores }) }
        : {}),
      change,
      baseline_case: bSide,
      candidate_case: cSide,
      duration_delta_ms: difference(bSide.duration_ms, cSide.duration_ms),
      cost_delta_usd: difference(bSide.cost_usd, cSide.cost_usd),
      ...(change !== 'unchanged' && b.detail && c.detail ? { baseline_detail: b.detail, candidate_detail: c.detail } : {}),
    });
  }
  regressions.sort((x, y) => x.delta - y.delta || order(x, y));
  improvements.sort((x, y) => y.delta - x.delta || order(x, y));

  const deltas = cases.map((c) => c.delta);
  return {
    baseline: { run_id: baseline.run_id, agent_version: baseline.agent_version },
    candidate: { run_id: candidate.run_id, agent_version: candidate.agent_version },
    passed: regressions.length === 0,
    overall_delta: mean(deltas),
    regressions,
    improvements,
    unchanged_count: unchanged,
    threshold,
    significance: significance(deltas, alpha, seed),
    cases,
    only_in_baseline: [...base.keys()].filter((name) => !cand.has(name)),
    only_in_candidate: [...cand.keys()].filter((name) => !base.has(name)),
    same_suite_version: sameSuiteVersion(baseline, candidate),
    case_counts: caseCounts(cases),
    totals: totals(cases),
  };
}

function side(c: ComparableCase): CaseSide {
  return { case_index: c.case_index ?? null, trace_id: c.trace_id ?? null, duration_ms: c.duration_ms ?? null, cost_usd: c.cost_usd ?? null };
}

function difference(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : b - a;
}

function caseCounts(cases: readonly CaseComparison[]): CaseCounts {
  const counts: CaseCounts = { compared: cases.length, regressed: 0, improved: 0, mixed: 0, unchanged: 0 };
  for (const c of cases) counts[c.change]++;
  return counts;
}

function totals(cases: readonly CaseComparison[]): CostLatencyDelta {
  const timed = cases.filter((c) => c.baseline_case.duration_ms !== null && c.candidate_case.duration_ms !== null);
  const priced = cases.filter((c) => c.cost_delta_usd !== null);
  const meanOf = (xs: number[]) => (xs.length ? mean(xs) : null);
  const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
  const bDur = meanOf(timed.map((c) => c.baseline_case.duration_ms!));
  const cDur = meanOf(timed.map((c) => c.candidate_case.duration_ms!));
  const bCost = priced.length ? sum(priced.map((c) => c.baseline_case.cost_usd!)) : null;
  const cCost = priced.length ? sum(priced.map((c) => c.candidate_case.cost_usd!)) : null;
  return {
    baseline_mean_duration_ms: bDur,
    candidate_mean_duration_ms: cDur,
    mean_duration_delta_ms: difference(bDur, cDur),
    baseline_cost_usd: bCost,
    candidate_cost_usd: cCost,
    cost_delta_usd: difference(bCost, cCost),
    priced_cases: priced.length,
  };
}

function significance(deltas: number[], alpha: number, seed: number): Significance {
  const n = deltas.length;
  const test = pairedPermutationTest(deltas, { seed });
  const needed = minPairsForAlpha(alpha);
  const meanDelta = mean(deltas);
  const common = {
    method: PERMUTATION_METHOD,
    n,
    n_changed: test.n,
    p_value: test.p_value,
    alpha,
    mean_delta: meanDelta,
    ci95: bootstrapMeanCI(deltas, { level: 0.95, seed }),
  };
  if (n === 0) return { ...common, significant: false, conclusive: false, note: 'no paired cases to compare' };
  if (n < needed) {
    return {
      ...common,
      significant: false,
      conclusive: false,
      note: `too few paired cases (n=${n}) to conclude at alpha ${alpha}; at least ${needed} are needed`,
    };
  }
  const p = test.p_value ?? 1;
  const significant = p <= alpha;
  const pText = `p=${formatP(p)}`;
  const note = significant
    ? `the mean change of ${signed(meanDelta)} in case score is significant at alpha ${alpha} (${pText}, n=${n})`
    : test.n === 0
      ? `no paired case changed its score (n=${n})`
      : `no significant change in case score at alpha ${alpha} (${pText}, mean change ${signed(meanDelta)}, n=${n})`;
  return { ...common, significant, conclusive: true, note };
}

/** Comparable cases by name, in run order; the first of duplicate names wins. */
function byName(cases: readonly ComparableCase[]): Map<string, ComparableCase> {
  const map = new Map<string, ComparableCase>();
  for (const c of cases) if (!NOT_RUN.has(c.status) && !map.has(c.case_name)) map.set(c.case_name, c);
  return map;
}

function sameSuiteVersion(a: ComparableRun, b: ComparableRun): boolean | null {
  if (a.suite_id == null || b.suite_id == null) return null;
  if (a.suite_id !== b.suite_id) return false;
  if (a.suite_version == null || b.suite_version == null) return null;
  return a.suite_version === b.suite_version;
}

function order(x: ScoreChange, y: ScoreChange): number {
  return x.case_name < y.case_name ? -1 : x.case_name > y.case_name ? 1 : x.scorer < y.scorer ? -1 : x.scorer > y.scorer ? 1 : 0;
}

function formatP(p: number): string {
  return p < 0.0001 ? p.toExponential(1) : String(Number(p.toPrecision(3)));
}

function signed(x: number): string {
  const r = Number(x.toFixed(4));
  return r > 0 ? `+${r}` : String(r);
}
