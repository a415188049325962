import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../core/evals/compare.js';
import type { ComparableCase, ComparableRun } from '../../../core/evals/compare.js';

const kase = (case_name: string, score: number, status = 'passed'): ComparableCase => ({
  case_name,
  scores: { contains: score },
  avg_score: score,
  status,
});

const run = (run_id: string, cases: ComparableCase[], extra: Partial<ComparableRun> = {}): ComparableRun => ({
  run_id,
  agent_version: `v-${run_id}`,
  cases,
  ...extra,
});

const names = Array.from({ length: 12 }, (_, i) => `case-${String(i + 1).padStart(2, '0')}`);
const baseScores = [0.9, 0.95, 0.85, 1, 0.8, 0.9, 0.92, 0.88, 0.97, 0.83, 0.9, 0.86];

describe('compareRuns', () => {
  it('finds a planted regression: every case drops 0.3', () => {
    const baseline = run(
      'b',
      names.map((n, i) => kase(n, baseScores[i])),
    );
    const candidate = run(
      'c',
      names.map((n, i) => kase(n, baseScores[i] - 0.3)),
    );
    const result = compareRuns(baseline, candidate, { threshold: 0.05 });

    expect(result.baseline).toEqual({ run_id: 'b', agent_version: 'v-b' });
    expect(result.candidate).toEqual({ run_id: 'c', agent_version: 'v-c' });
    expect(result.passed).toBe(false);
    expect(result.overall_delta).toBeCloseTo(-0.3);
    expect(result.regressions).toHaveLength(12);
    expect(result.regressions[0]).toMatchObject({ scorer: 'contains' });
    expect(result.regressions[0].delta).toBeCloseTo(-0.3);
    expect(result.improvements).toEqual([]);
    expect(result.unchanged_count).toBe(0);
    expect(result.threshold).toBe(0.05);

    const s = result.significance;
    expect(s.method).toBe('paired sign-flip permutation test (two-sided)');
    expect(s.n).toBe(12);
    // All 12 deltas share a sign: only the all-negative and all-positive patterns are as extreme.
    expect(s.p_value).toBeCloseTo(2 / 4096, 12);
    expect(s.significant).toBe(true);
    expect(s.conclusive).toBe(true);
    expect(s.ci95![1]).toBeLessThan(0);
    expect(s.ci95![0]).toBeCloseTo(-0.3);
    expect(s.note).toContain('significant at alpha 0.05');
  });

  it('sees no significant change in small noise', () => {
    const noise = [0.02, -0.01, 0.01, -0.03, 0.02, -0.02, 0.01, -0.01, 0, 0.03, -0.02, 0.01];
    const baseline = run(
      'b',
      names.map((n, i) => kase(n, baseScores[i])),
    );
    const candidate = run(
      'c',
      names.map((n, i) => kase(n, baseScores[i] + noise[i])),
    );
    const result = compareRuns(baseline, candidate, { threshold: 0.05 });

    expect(result.passed).toBe(true);
    expect(result.regressions).toEqual([]);
    expect(result.improvements).toEqual([]);
    expect(result.unchanged_count).toBe(12);
    expect(result.significance.n).toBe(12);
    expect(result.significance.n_changed).toBe(11);
    expect(result.significance.p_value).toBeGreaterThan(0.5);
    expect(result.significance.significant).toBe(false);
    expect(result.significance.conclusive).toBe(true);
    const [lo, hi] = result.significance.ci95!;
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(0);
    expect(result.significance.note).toContain('no significant change');
  });

  it('will not conclude from too few paired cases', () => {
    const baseline = run('b', [kase('a', 1), kase('b', 1), kase('c', 1)]);
    const candidate = run('c', [kase('a', 0.5), kase('b', 0.5), kase('c', 0.5)]);
    const { significance, passed, regressions } = compareRuns(baseline, candidate, { threshold: 0.1 });
    expect(passed).toBe(false);
    expect(regressions).toHaveLength(3);
    expect(significance).toMatchObject({ n: 3, p_value: 0.25, significant: false, conclusive: false });
    expect(significance.note).toBe('too few paired cases (n=3) to conclude at alpha 0.05; at least 6 are needed');
  });

  it('derives the sample size needed from alpha', () => {
    const cases = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const baseline = run(
      'b',
      cases.map((n) => kase(n, 1)),
    );
    const candidate = run(
      'c',
      cases.map((n) => kase(n, 0.5)),
    );
    const strict = compareRuns(baseline, candidate, { threshold: 0.1, alpha: 0.001 }).significance;
    expect(strict.conclusive).toBe(false);
    expect(strict.note).toContain('at least 11 are needed');
    const usual = compareRuns(baseline, candidate, { threshold: 0.1 }).significance;
    expect(usual).toMatchObject({ conclusive: true, significant: true, p_value: 2 / 256 });
  });

  it('lists cases found in one run only, and leaves cancelled cases out', () => {
    const baseline = run('b', [kase('a', 1), kase('b', 1), kase('gone', 1), kase('c', 1, 'cancelled')]);
    const candidate = run('c', [kase('new', 1), kase('b', 1), kase('a', 0.9), kase('c', 0)]);
    const result = compareRuns(baseline, candidate, { threshold: 0.05 });
    expect(result.only_in_baseline).toEqual(['gone']);
    expect(result.only_in_candidate).toEqual(['new', 'c']);
    expect(result.cases.map((c) => c.case_name)).toEqual(['a', 'b']);
    expect(result.cases[0]).toMatchObject({ baseline_score: 1, candidate_score: 0.9, baseline_status: 'passed', candidate_status: 'passed' });
    expect(result.cases[0].delta).toBeCloseTo(-0.1);
    expect(result.overall_delta).toBeCloseTo(-0.05);
  });

  it('respects the threshold: a change of exactly the threshold is unchanged', () => {
    const baseline = run('b', [kase('a', 0.75), kase('b', 0.75), kase('c', 0.5)]);
    const candidate = run('c', [kase('a', 0.7), kase('b', 0.69), kase('c', 0.56)]);
    const result = compareRuns(baseline, candidate, { threshold: 0.05 });
    expect(result.regressions.map((r) => r.case_name)).toEqual(['b']);
    expect(result.improvements.map((r) => r.case_name)).toEqual(['c']);
    expect(result.unchanged_count).toBe(1);
    const loose = compareRuns(baseline, candidate, { threshold: 0.2 });
    expect(loose).toMatchObject({ passed: true, regressions: [], improvements: [], unchanged_count: 3 });
  });

  it('compares per scorer present in both runs, biggest changes first', () => {
    const baseline = run('b', [{ case_name: 'a', scores: { x: 1, y: 0.5, only_b: 1 }, avg_score: 0.83, status: 'passed' }, kase('b', 0.2)]);
    const candidate = run('c', [{ case_name: 'a', scores: { x: 0.2, y: 0.9, only_c: 0 }, avg_score: 0.37, status: 'failed' }, kase('b', 0.9)]);
    const result = compareRuns(baseline, candidate, { threshold: 0.05 });
    expect(result.regressions).toEqual([{ case_name: 'a', scorer: 'x', baseline_score: 1, candidate_score: 0.2, delta: expect.closeTo(-0.8) as number }]);
    expect(result.improvements.map((r) => `${r.case_name}/${r.scorer}`)).toEqual(['b/contains', 'a/y']);
    expect(result.cases[0]).toMatchObject({ baseline_status: 'passed', candidate_status: 'failed' });
  });

  it('says whether both runs ran the same suite version', () => {
    const cmp = (b: Partial<ComparableRun>, c: Partial<ComparableRun>) => compareRuns(run('b', [], b), run('c', [], c), { threshold: 0.05 }).same_suite_version;
    expect(cmp({ suite_id: 's', suite_version: 2 }, { suite_id: 's', suite_version: 2 })).toBe(true);
    expect(cmp({ suite_id: 's', suite_version: 2 }, { suite_id: 's', suite_version: 3 })).toBe(false);
    expect(cmp({ suite_id: 's', suite_version: 2 }, { suite_id: 't', suite_version: 2 })).toBe(false);
    expect(cmp({ suite_id: 's', suite_version: 2 }, {})).toBeNull();
    expect(cmp({ suite_id: null }, { suite_id: 's' })).toBeNull();
  });

  it('handles runs with no case in common', () => {
    const result = compareRuns(run('b', [kase('a', 1)]), run('c', [kase('z', 0)]), { threshold: 0.05 });
    expect(result).toMatchObject({ passed: true, overall_delta: 0, unchanged_count: 0, cases: [] });
    expect(result.significance).toMatchObject({ n: 0, p_value: null, ci95: null, significant: false, conclusive: false, note: 'no paired cases to compare' });
  });

  it('is deterministic, also on the Monte Carlo path', () => {
    const many = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const baseline = run(
      'b',
      many.map((n, i) => kase(n, 0.5 + ((i * 37) % 11) / 40)),
    );
    const candidate = run(
      'c',
      many.map((n, i) => kase(n, 0.5 + ((i * 53) % 13) / 40)),
    );
    const first = compareRuns(baseline, candidate, { threshold: 0.05 });
    expect(first.significance.n_changed).toBeGreaterThan(20);
    expect(compareRuns(baseline, candidate, { threshold: 0.05 })).toEqual(first);
    expect(compareRuns(baseline, candidate, { threshold: 0.05, seed: 99 }).significance.p_value).not.toBe(first.significance.p_value);
  });

  it('counts cases apart from scorer changes, and gives latency and cost deltas per case and overall', () => {
    const two = (case_name: string, a: number, b: number, more: Partial<ComparableCase> = {}): ComparableCase => ({
      case_name,
      scores: { a, b },
      avg_score: (a + b) / 2,
      status: 'passed',
      ...more,
    });
    const detail = (output: string) => ({ input: 'q', expected: null, output, error: null, details: { a: { score: 1, reason: 'r' } } });
    const baseline = run('b', [
      two('both-drop', 1, 1, { case_index: 0, trace_id: 't-b0', duration_ms: 100, cost_usd: 0.01, detail: detail('old') }),
      two('mixed', 1, 0, { case_index: 1, duration_ms: 200, cost_usd: 0.02, detail: detail('old') }),
      two('same', 1, 1, { case_index: 2, duration_ms: 300, cost_usd: null, detail: detail('same') }),
    ]);
    const candidate = run('c', [
      two('both-drop', 0, 0, { case_index: 0, trace_id: 't-c0', duration_ms: 150, cost_usd: 0.03, detail: detail('new') }),
      two('mixed', 0, 1, { case_index: 1, duration_ms: 100, cost_usd: 0.01, detail: detail('new') }),
      two('same', 1, 1, { case_index: 2, duration_ms: 330, cost_usd: 0.5, detail: detail('same') }),
    ]);
    const r = compareRuns(baseline, candidate, { threshold: 0.05 });
    // Three scorer drops over two cases.
    expect(r.regressions).toHaveLength(3);
    expect(r.case_counts).toEqual({ compared: 3, regressed: 1, improved: 0, mixed: 1, unchanged: 1 });
    const drop = r.cases.find((c) => c.case_name === 'both-drop')!;
    expect(drop).toMatchObject({
      change: 'regressed',
      baseline_case: { case_index: 0, trace_id: 't-b0', duration_ms: 100, cost_usd: 0.01 },
      candidate_case: { case_index: 0, trace_id: 't-c0', duration_ms: 150, cost_usd: 0.03 },
      duration_delta_ms: 50,
    });
    expect(drop.cost_delta_usd).toBeCloseTo(0.02);
    expect(drop.baseline_detail?.output).toBe('old');
    expect(drop.candidate_detail?.output).toBe('new');
    // An unchanged case carries no detail, and a cost unknown on one side has no delta.
    const same = r.cases.find((c) => c.case_name === 'same')!;
    expect(same).toMatchObject({ change: 'unchanged', cost_delta_usd: null, duration_delta_ms: 30 });
    expect(same.baseline_detail).toBeUndefined();
    expect(r.totals.baseline_mean_duration_ms).toBe(200);
    expect(r.totals.candidate_mean_duration_ms).toBeCloseTo(580 / 3);
    expect(r.totals.priced_cases).toBe(2);
    expect(r.totals.baseline_cost_usd).toBeCloseTo(0.03);
    expect(r.totals.candidate_cost_usd).toBeCloseTo(0.04);
    expect(r.totals.cost_delta_usd).toBeCloseTo(0.01);
  });

  it('refuses a negative threshold', () => {
    expect(() => compareRuns(run('b', []), run('c', []), { threshold: -1 })).toThrow('threshold must be a number >= 0');
  });
});
