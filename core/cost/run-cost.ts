import type { CaseResultView } from '../model/eval-run.js';
import type { RunCost, TraceCost } from '../model/cost.js';

/**
 * A run's cost from its case traces' costs (docs/costs.md "Runs"): the traces of its recorded
 * trials, each counted once, summed. The traces' costs are read by the caller (the analytical
 * store's `traceCosts`); a trace it has no cost for adds nothing but is still counted in `traces`.
 */

/** The distinct traces of these results' trials. */
export function trialTraceIds(results: readonly CaseResultView[]): string[] {
  return [...new Set(results.flatMap((r) => r.trials.map((t) => t.trace_id)).filter((id): id is string => id !== null))];
}

/** The run's cost: the sums over its trials' traces. */
export function runCost(results: readonly CaseResultView[], costs: ReadonlyMap<string, TraceCost>): RunCost {
  const ids = trialTraceIds(results);
  const total: RunCost = { total_usd: 0, judges_usd: 0, unpriced_llm_calls: 0, traces: ids.length };
  for (const id of ids) {
    const c = costs.get(id);
    if (!c) continue;
    total.total_usd += c.total_usd;
    total.judges_usd += c.judges_usd;
    total.unpriced_llm_calls += c.unpriced_llm_calls;
  }
  return total;
}

/** One case's cost: the sums over its trials' traces. */
export function caseCost(result: CaseResultView, costs: ReadonlyMap<string, TraceCost>): TraceCost {
  const { total_usd, judges_usd, unpriced_llm_calls } = runCost([result], costs);
  return { total_usd, judges_usd, unpriced_llm_calls };
}
