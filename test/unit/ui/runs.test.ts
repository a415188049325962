import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiRunsQuery,
  changesByScorer,
  comparisonWarnings,
  controlsFor,
  defaultPair,
  describeSignificance,
  formatDelta,
  formatP,
  formatPercent,
  formatScore,
  parseRunFilters,
  passRate,
  progressParts,
  runFiltersToQuery,
  type RunFilters,
} from '../../../ui/src/lib/runs.js';
import type { RunComparison, RunView } from '../../../ui/src/lib/types.js';

function run(over: Partial<RunView> & { id: string }): RunView {
  return {
    run_id: over.id,
    name: null,
    suite_name: 'weather',
    suite_id: 's1',
    suite_version: 1,
    agent_id: 'a1',
    agent_name: 'bot',
    agent_version: 'v1',
    execution: 'managed',
    status: 'completed',
    config: { parallel: false, timeout_ms: 300_000, concurrency: 10, repetitions: 1 },
    aggregation: 'mean',
    min_score: 0.7,
    summary: { total_cases: 4, passed: 3, failed: 1, cancelled: 0, avg_score: 0.8, scores_by_scorer: {}, duration_ms: 1000 },
    progress: { completed: 4, total: 4, cancelled: 0 },
    error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    completed_at: '2026-01-01T00:00:02.000Z',
    ...over,
  };
}

const significance = (over: Partial<RunComparison['significance']>): RunComparison['significance'] => ({
  method: 'paired sign-flip permutation test (two-sided)',
  n: 12,
  n_changed: 12,
  p_value: 0.003,
  alpha: 0.05,
  significant: true,
  mean_delta: 0.12,
  ci95: [0.05, 0.19],
  conclusive: true,
  note: '',
  ...over,
});

describe('runs list filters in the URL', () => {
  it('round-trips and maps to the API names', () => {
    const f: RunFilters = { status: 'paused', suite: 'weather', version: 'v2', offset: 100, limit: 20 };
    expect(parseRunFilters(runFiltersToQuery(f))).toEqual(f);
    expect(Object.fromEntries(apiRunsQuery(f))).toEqual({ limit: '20', offset: '100', status: 'paused', suite_name: 'weather', agent_version: 'v2' });
    expect(runFiltersToQuery({ limit: 50 }).toString()).toBe('');
  });

  it('drops what the API would refuse', () => {
    expect(parseRunFilters(new URLSearchParams('status=done&offset=-5&limit=9999&suite=%20'))).toEqual({});
  });
});

describe('numbers in words', () => {
  it('pass rate over judged cases, percent, scores and deltas', () => {
    expect(passRate({ passed: 3, failed: 1, cancelled: 4, total_cases: 8, avg_score: 0, scores_by_scorer: {}, duration_ms: 0 })).toBe(0.75);
    expect(passRate({ passed: 0, failed: 0, cancelled: 2, total_cases: 2, avg_score: 0, scores_by_scorer: {}, duration_ms: 0 })).toBeNull();
    expect(formatPercent(0.75)).toBe('75%');
    expect(formatPercent(0.625)).toBe('62.5%');
    expect(formatPercent(2 / 3)).toBe('66.7%');
    expect(formatPercent(null)).toBe('-');
    expect(formatScore(1)).toBe('1.00');
    expect(formatScore(0.004)).toBe('0.004');
    expect(formatDelta(-0.5)).toBe('-0.50');
    expect(formatDelta(0.12)).toBe('+0.12');
    expect(formatDelta(0)).toBe('0.00');
    expect(formatP(0.003)).toBe('p = 0.003');
    expect(formatP(0.0001)).toBe('p < 0.001');
    expect(formatP(0.63)).toBe('p = 0.63');
  });

  it('offers the controls the run status allows', () => {
    expect(controlsFor('running')).toEqual(['pause', 'cancel']);
    expect(controlsFor('paused')).toEqual(['resume', 'cancel']);
    expect(controlsFor('completed')).toEqual([]);
  });
});

describe('the comparison in plain words', () => {
  it('says size, interval and significance', () => {
    expect(describeSignificance({ overall_delta: 0.12, significance: significance({}) })).toBe(
      'The candidate scores 0.12 higher on average over 12 paired cases (95% CI 0.05 to 0.19); this difference is statistically significant (p = 0.003).',
    );
    expect(describeSignificance({ overall_delta: -0.1, significance: significance({ p_value: 0.4, significant: false, ci95: [-0.3, 0.1] }) })).toBe(
      'The candidate scores 0.10 lower on average over 12 paired cases (95% CI -0.30 to 0.10); this difference is not statistically significant (p = 0.40, at alpha 0.05); it may be noise.',
    );
    const few = describeSignificance({
      overall_delta: -0.5,
      significance: significance({
        n: 2,
        conclusive: false,
        significant: false,
        p_value: 1,
        note: 'too few paired cases (n=2) to conclude at alpha 0.05; at least 6 are needed',
      }),
    });
    expect(few).toContain('too few cases changed to tell');
    expect(few).toContain('at least 6 are needed');
    expect(describeSignificance({ overall_delta: 0, significance: significance({ n: 0, p_value: null, ci95: null }) })).toMatch(
      /^No case was scored in both runs/,
    );
  });

  it('counts changes per scorer', () => {
    const change = (case_name: string, scorer: string, delta: number) => ({ case_name, scorer, baseline_score: 0, candidate_score: 0, delta });
    expect(changesByScorer({ regressions: [change('a', 'tool', -1), change('b', 'tool', -1)], improvements: [change('c', 'contains', 1)] })).toEqual([
      { scorer: 'contains', regressions: 0, improvements: 1 },
      { scorer: 'tool', regressions: 2, improvements: 0 },
    ]);
  });

  it('warns about different suites and unfinished runs', () => {
    const base = run({ id: 'b' });
    expect(comparisonWarnings(base, run({ id: 'c' }), true)).toEqual([]);
    expect(comparisonWarnings(base, run({ id: 'c', suite_name: null, suite_id: null, suite_version: null }), null)[0]).toMatch(/different suites/);
    expect(comparisonWarnings(base, run({ id: 'c', suite_version: 2 }), false)[0]).toMatch(/different versions of suite "weather"/);
    const w = comparisonWarnings(base, run({ id: 'c', status: 'running', progress: { completed: 2, total: 4, cancelled: 0 } }), true);
    expect(w).toEqual(['The candidate run is still running (2 of 4 done): the comparison covers only the cases it has recorded so far.']);
  });

  it('defaults to the newest two finished runs of one suite', () => {
    const runs = [
      run({ id: 'r5', suite_name: null }),
      run({ id: 'r4', suite_name: 'other', status: 'running' }),
      run({ id: 'r3', suite_name: 'weather' }),
      run({ id: 'r2', suite_name: 'other' }),
      run({ id: 'r1', suite_name: 'weather' }),
    ];
    expect(defaultPair(runs)).toEqual({ baseline: 'r1', candidate: 'r3' });
    expect(defaultPair([run({ id: 'x2', suite_name: null }), run({ id: 'x1', suite_name: 'w' })])).toEqual({ baseline: 'x1', candidate: 'x2' });
    expect(defaultPair([run({ id: 'only' })])).toBeNull();
  });
});

describe('the progress bar of a run', () => {
  it('shows a run cancelled part way as the trials that ran and the cancelled rest, never a full bar', () => {
    // 10 trials, 2 ran, 8 recorded as cancelled when the run was cancelled.
    expect(progressParts({ completed: 10, total: 10, cancelled: 8 })).toEqual({ ran: 2, cancelled: 8, total: 10, ranShare: 0.2, cancelledShare: 0.8 });
    expect(progressParts({ completed: 3, total: 4, cancelled: 0 })).toMatchObject({ ran: 3, ranShare: 0.75, cancelledShare: 0 });
    // A live count without the cancelled one (the workflow's progress query) counts all as ran.
    expect(progressParts({ completed: 2, total: 4 })).toMatchObject({ ran: 2, cancelled: 0, ranShare: 0.5 });
  });

  it('keeps the shares within the bar whatever the counts', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.nat(1000), (completed, total, cancelled) => {
        const p = progressParts({ completed, total, cancelled });
        expect(p.ran + p.cancelled).toBe(completed);
        expect(p.ranShare).toBeGreaterThanOrEqual(0);
        expect(p.cancelledShare).toBeGreaterThanOrEqual(0);
        expect(p.ranShare + p.cancelledShare).toBeLessThanOrEqual(1 + 1e-9);
        if (total === 0) expect(p.ranShare).toBe(0);
      }),
    );
  });
});
