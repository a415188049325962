import { describe, expect, it } from 'vitest';
import { caseCost, runCost, trialTraceIds } from '../../../core/cost/run-cost.js';
import type { CaseResultView } from '../../../core/model/eval-run.js';
import type { TraceCost } from '../../../core/model/cost.js';

const result = (caseIndex: number, traceIds: Array<string | null>) =>
  ({ case_index: caseIndex, trials: traceIds.map((trace_id, trial) => ({ trial, trace_id })) }) as unknown as CaseResultView;

const costs = new Map<string, TraceCost>([
  ['t1', { total_usd: 0.5, judges_usd: 0.1, unpriced_llm_calls: 1 }],
  ['t2', { total_usd: 0.25, judges_usd: 0, unpriced_llm_calls: 0 }],
]);

describe('run cost', () => {
  it('sums the costs of the distinct traces of the recorded trials', () => {
    const results = [result(0, ['t1', null]), result(1, ['t2', 't1'])];
    expect(trialTraceIds(results)).toEqual(['t1', 't2']);
    expect(runCost(results, costs)).toEqual({ total_usd: 0.75, judges_usd: 0.1, unpriced_llm_calls: 1, traces: 2 });
  });

  it('counts a trace without a known cost, adding nothing for it', () => {
    expect(runCost([result(0, ['t2', 'unknown'])], costs)).toEqual({ total_usd: 0.25, judges_usd: 0, unpriced_llm_calls: 0, traces: 2 });
  });

  it("gives one case's sums without the trace count", () => {
    expect(caseCost(result(0, ['t1', 't2']), costs)).toEqual({ total_usd: 0.75, judges_usd: 0.1, unpriced_llm_calls: 1 });
    expect(caseCost(result(1, []), costs)).toEqual({ total_usd: 0, judges_usd: 0, unpriced_llm_calls: 0 });
  });
});
