import { isInfrastructureFailure } from '../errors.js';
import type { JudgeGeneration } from '../judges/judge.js';
import { LLM_CALL_RETRY } from '../judges/retry.js';
import { runJudge, SCORER_ERROR, type JudgeCallCost, type PriceJudgeCall } from '../judges/run-judge.js';
import { isJudgeScorer } from '../judges/scorers.js';
import type { ScoreDetail, ScorerRef } from '../model/eval-case.js';
import type { OnlineScoreRecord } from '../model/online-rule.js';
import type { Score } from '../model/score.js';
import { runScorers } from '../scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import type { TraceForScoring } from '../store/online-traces.js';
import type { ClaimedEvaluation } from '../store/online-evals.js';
import { judgeTraceBody, judgeTraceId, onlineScoreId } from './judge-trace.js';
import { scoreInputFromTrace } from './trace-input.js';

export interface ScoreTraceDeps {
  /** Stores every judge call as it ends (docs/judges.md: `judge_calls`, run_id null, trace_id the judge's trace). */
  recordJudgeCall?(call: { projectId: string; traceId: string; generation: JudgeGeneration; cost: JudgeCallCost | null }): Promise<void>;
  priceJudgeCall?: PriceJudgeCall;
}

/** One trace scored by one rule: its scores for the score store, the record for the evaluation, judge traces to write. */
export interface TraceScoring {
  scores: Score[];
  records: Record<string, OnlineScoreRecord>;
  /** Verdicts that were scorer errors (recorded as 0 with the error as the reason). */
  errors: number;
  judgeTokens: number;
  costUsd: number | null;
  /** JSON ingest bodies of the judges' traces. */
  judgeTraces: Array<Record<string, unknown>>;
}

/** A judge's calls in one evaluation, each with its price when the price table priced it. */
export type JudgeCalls = Array<JudgeGeneration & { cost: JudgeCallCost | null }>;

/**
 * One LLM judge on one input, with the SPEC's LLM-call retries (5 retries, 1 s to 30 s, each call
 * bounded by 5 minutes) and every call recorded under the judge's trace `traceId` (pushed onto
 * `calls`). A judge that cannot judge (no provider in this process, a provider that refused or
 * failed through every retry, grounding without context) scores 0 with the error as its reason,
 * as every scorer that throws (SPEC). A store that is down or an abort rejects: the evaluation is
 * tried again.
 */
export async function judgeOnline(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  ref: ScorerRef,
  input: Omit<ScoreInput, 'config'>,
  at: { projectId: string; traceId: string; calls: JudgeCalls },
  signal: AbortSignal,
): Promise<ScoreDetail> {
  return runJudge(registry, ref, input, {
    signal,
    retry: LLM_CALL_RETRY,
    priceJudgeCall: deps.priceJudgeCall,
    onGeneration: async (generation, cost) => {
      at.calls.push({ ...generation, cost });
      await deps.recordJudgeCall?.({ projectId: at.projectId, traceId: at.traceId, generation, cost });
    },
    rethrow: (err) => signal.aborted || isInfrastructureFailure(err),
  });
}

async function judge(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  ref: ScorerRef,
  input: Omit<ScoreInput, 'config'>,
  claim: ClaimedEvaluation,
  signal: AbortSignal,
): Promise<{ detail: ScoreDetail; calls: JudgeCalls }> {
  const calls: JudgeCalls = [];
  const traceId = judgeTraceId(claim.rule_id, claim.trace_id, ref.name);
  const detail = await judgeOnline(deps, registry, ref, input, { projectId: claim.project_id, traceId, calls }, signal);
  return { detail, calls };
}

/**
 * Scores `trace` with the claimed rule's scorers: the rule and HTTP custom scorers through
 * runScorers (a scorer that throws scores 0 with the error as its reason), each LLM judge
 * through {@link judge}. Scores carry source `eval`, the scorer's name (as `name` and
 * `scorer_name`), and attributes naming the rule and, for a judge, the judge's trace.
 */
export async function scoreTrace(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  claim: ClaimedEvaluation,
  trace: TraceForScoring,
  signal: AbortSignal,
): Promise<TraceScoring> {
  const startedAt = Date.now();
  const input = scoreInputFromTrace(trace, claim.expected);
  const judgeRefs = claim.scorers.filter((ref) => isJudgeScorer(registry.get(ref.name)));
  const otherRefs = claim.scorers.filter((ref) => !judgeRefs.includes(ref));
  const [others, judged] = await Promise.all([
    runScorers(registry, otherRefs, input, signal),
    Promise.all(judgeRefs.map(async (ref) => [ref.name, await judge(deps, registry, ref, input, claim, signal)] as const)),
  ]);
  signal.throwIfAborted();
  const endedAt = Date.now();
  const createdAt = new Date(endedAt).toISOString();
  const out: TraceScoring = { scores: [], records: {}, errors: 0, judgeTokens: 0, costUsd: null, judgeTraces: [] };
  const judgedBy = new Map(judged);
  for (const ref of claim.scorers) {
    const judgeRun = judgedBy.get(ref.name);
    const detail = judgeRun?.detail ?? others[ref.name];
    const scoreId = onlineScoreId(claim.rule_id, claim.trace_id, ref.name);
    const judgeTrace = judgeRun ? judgeTraceId(claim.rule_id, claim.trace_id, ref.name) : undefined;
    if (detail.reason.startsWith(SCORER_ERROR)) out.errors++;
    out.scores.push({
      id: scoreId,
      trace_id: claim.trace_id,
      span_id: null,
      name: ref.name,
      value: detail.score,
      score_type: 'numeric',
      source: 'eval',
      scorer_name: ref.name,
      reason: detail.reason.slice(0, 65_536),
      evidence: detail.evidence.slice(0, 100),
      created_at: createdAt,
      attributes: {
        'agent_eval.online_rule_id': claim.rule_id,
        'agent_eval.online_rule': claim.rule_name,
        ...(judgeTrace ? { 'agent_eval.judge_trace_id': judgeTrace } : {}),
      },
    });
    out.records[ref.name] = {
      score_id: scoreId,
      value: detail.score,
      reason: detail.reason.slice(0, 1000),
      ...(judgeTrace ? { judge_trace_id: judgeTrace } : {}),
    };
    if (!judgeRun) continue;
    for (const call of judgeRun.calls) {
      out.judgeTokens += (call.usage?.input_tokens ?? 0) + (call.usage?.output_tokens ?? 0);
      if (call.cost) out.costUsd = (out.costUsd ?? 0) + call.cost.cost_usd;
    }
    out.judgeTraces.push(
      judgeTraceBody({
        ruleId: claim.rule_id,
        ruleName: claim.rule_name,
        traceId: claim.trace_id,
        scorer: ref.name,
        scoreId,
        attempt: claim.attempt,
        startedAt,
        endedAt,
        verdict: detail,
        calls: judgeRun.calls,
      }),
    );
  }
  return out;
}
