import { describe, expect, it } from 'vitest';
import { caseResultView, summarize } from '../../../core/evals/case-results.js';
import type { RunCase, TrialRecord } from '../../../core/model/eval-run.js';
import { runCaseOf } from '../../helpers/run-case.js';

const runCase = (over: Partial<RunCase> = {}): RunCase => runCaseOf('c', ['contains', 'latency'], { input: 'q', ...over });

const trial = (scores: Record<string, number>, over: Partial<TrialRecord> = {}, n = 0): TrialRecord & { trial: number } => ({
  trial: n,
  status: 'passed',
  details: Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, { score: v, reason: `${k} ${v}`, evidence: [] }])),
  avg_score: Object.values(scores).reduce((a, b) => a + b, 0) / Object.keys(scores).length,
  passed: true,
  duration_ms: 100,
  latency_ms: 90,
  output: 'out',
  tool_calls: [],
  usage: null,
  approval: null,
  error: null,
  trace_id: `t${n}`,
  ...over,
});

const scoring = { aggregation: 'mean' as const, minScore: 0.7 };

describe('case results', () => {
  it('is pending without trials and cancelled when every trial was cancelled', () => {
    expect(caseResultView(runCase(), [], scoring)).toMatchObject({ status: 'pending', passed: false });
    expect(caseResultView(runCase(), [trial({}, { status: 'cancelled', error: 'cancelled before it ran' })], scoring)).toMatchObject({ status: 'cancelled' });
  });

  it('averages repeated trials per scorer and decides the pass on the means', () => {
    const view = caseResultView(
      runCase(),
      [trial({ contains: 1, latency: 1 }, {}, 0), trial({ contains: 0.5, latency: 1 }, {}, 1), trial({ contains: 0.3, latency: 1 }, {}, 2)],
      scoring,
    );
    expect(view.scores).toEqual({ contains: 0.6, latency: 1 });
    expect(view.avg_score).toBeCloseTo(0.8, 6);
    // contains' mean 0.6 is under the 0.7 minimum: the case fails although one trial passed.
    expect(view).toMatchObject({ status: 'failed', passed: false });
    // SPEC: a failed case carries an error message; here, why its scores fall short.
    expect(view.error).toMatch(/^scorer 'contains' scored 0\.6, below its minimum 0\.7/);
    expect(view.trials).toHaveLength(3);
    expect(view.trials.every((t) => t.error === null)).toBe(true);
  });

  it('uses the case min score over the run default, and fails a case whose trial errored', () => {
    const passing = caseResultView(runCase({ min_score: 0.5 }), [trial({ contains: 0.6, latency: 1 })], scoring);
    expect(passing).toMatchObject({ status: 'passed' });
    expect(passing.error).toBeUndefined();
    const errored = caseResultView(runCase(), [trial({ contains: 1, latency: 1 }, { error: 'agent answered 500' })], scoring);
    expect(errored).toMatchObject({ status: 'failed', error: 'agent answered 500' });
  });

  it('summarizes with case weights, leaving cancelled cases out of the averages', () => {
    const passed = caseResultView(runCase(), [trial({ contains: 1, latency: 1 })], scoring);
    const failed = caseResultView(runCase({ case_index: 1 }), [trial({ contains: 0, latency: 1 })], scoring);
    const cancelled = caseResultView(runCase({ case_index: 2 }), [trial({}, { status: 'cancelled' })], scoring);
    const summary = summarize(
      [
        { view: passed, weight: 3 },
        { view: failed, weight: 1 },
        { view: cancelled, weight: 10 },
      ],
      1234.4,
    );
    expect(summary).toEqual({
      total_cases: 3,
      passed: 1,
      failed: 1,
      cancelled: 1,
      avg_score: (3 * 1 + 1 * 0.5) / 4,
      scores_by_scorer: { contains: 0.5, latency: 1 },
      duration_ms: 1234,
    });
  });
});
