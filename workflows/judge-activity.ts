import { isInfrastructureFailure } from '../core/errors.js';
import type { JudgeHooks } from '../core/judges/judge.js';
import { runJudge, type PriceJudgeCall } from '../core/judges/run-judge.js';
import { JudgeUnavailableError } from '../core/judges/scorers.js';
import type { ScoreDetail, ScorerRef } from '../core/model/eval-case.js';
import type { RunCase } from '../core/model/eval-run.js';
import { ProviderError } from '../core/providers/types.js';
import type { ScoreInput, ScorerRegistry, ScoreTrace } from '../core/scoring/scorer.js';
import type { JudgeStore } from '../core/store/judges.js';
import type { RunForWorker } from '../core/store/runs.js';
import type { AgentCall, CaseRun } from './activity-types.js';
import { caseTraceId } from './case-trace.js';

export interface JudgeActivityDeps {
  scorers: ScorerRegistry;
  /** Where every judge call is recorded (spans, budget); without it judges run unrecorded and unbounded. */
  judgeCalls?: JudgeStore;
  priceJudgeCall?: PriceJudgeCall;
}

/** The time the agent took over all of a trial's calls. */
export const latencyOf = (calls: AgentCall[]) => calls.reduce((sum, c) => sum + (c.endedAt - c.startedAt), 0);

/**
 * What every scorer of a case sees of the trial's last answer, with the trial's trace as
 * trial-trace.ts reads it; undefined when there is no answer.
 */
export function scoreInputFor(runCase: RunCase, caseRun: CaseRun, trace: ScoreTrace): Omit<ScoreInput, 'config'> | undefined {
  const reply = caseRun.calls.at(-1)?.reply;
  if (!reply) return undefined;
  return {
    input: runCase.input,
    output: reply.output,
    expected: runCase.expected,
    toolCalls: reply.tool_calls,
    usage: reply.usage,
    latencyMs: latencyOf(caseRun.calls),
    trace,
    runId: caseRun.runId,
  };
}

/**
 * The run's judge budget as a gate asked before every judge call: once the run's judges have
 * used `max_tokens` tokens (or `max_cost_usd` of priced calls), no further call is made and the
 * judge scores 0 with this reason (the simulated user, which spends from the same budget, stops:
 * simulator-activity.ts). Spend is read from PostgreSQL, where every call is added as
 * it ends, so the count survives restarts and is shared by every worker; calls already in flight
 * when the budget runs out still finish (at most one per running judge).
 */
export function budgetGate(deps: Pick<JudgeActivityDeps, 'judgeCalls'>, run: RunForWorker, scorer: string): JudgeHooks['beforeCall'] {
  const budget = run.config.judge_budget;
  const store = deps.judgeCalls;
  if (!budget || !store || (budget.max_tokens === undefined && budget.max_cost_usd === undefined)) return undefined;
  return async () => {
    const used = await store.runUsage(run.id);
    if (budget.max_tokens !== undefined && used.tokens >= budget.max_tokens) {
      return `judge budget reached: this run's judges used ${used.tokens} tokens of judge_budget.max_tokens ${budget.max_tokens}; ${scorer} was not called`;
    }
    if (budget.max_cost_usd !== undefined && used.cost_usd >= budget.max_cost_usd) {
      return `judge budget reached: this run's judges spent $${used.cost_usd.toFixed(6)} of judge_budget.max_cost_usd $${budget.max_cost_usd}; ${scorer} was not called`;
    }
    return undefined;
  };
}

/**
 * One judge of a case trial on `input` (scoreInputFor), with the run's budget and every call recorded. Rejects with a
 * ProviderError when a call failed (the caller retries), JudgeUnavailableError when no provider
 * serves it here, or a store failure; any other problem (a judge that cannot judge this case,
 * e.g. grounding without context) is its 0 with the error as the reason.
 */
export async function judgeRef(
  deps: JudgeActivityDeps,
  run: RunForWorker,
  caseRun: CaseRun,
  ref: ScorerRef,
  input: Omit<ScoreInput, 'config'> | undefined,
  signal?: AbortSignal,
): Promise<ScoreDetail> {
  const store = deps.judgeCalls;
  return runJudge(deps.scorers, ref, input, {
    signal,
    beforeCall: budgetGate(deps, run, ref.name),
    priceJudgeCall: deps.priceJudgeCall,
    onGeneration: store
      ? (generation, cost) =>
          store.record({
            projectId: run.project_id,
            run: { runId: run.id, caseIndex: caseRun.caseIndex, trial: caseRun.trial },
            traceId: caseTraceId(caseRun),
            generation,
            cost,
          })
      : undefined,
    rethrow: (err) => err instanceof ProviderError || err instanceof JudgeUnavailableError || isInfrastructureFailure(err) || signal?.aborted === true,
  });
}
