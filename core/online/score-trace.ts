import { isInfrastructureFailure } from '../errors.js';
import type { JudgeGeneration } from '../judges/judge.js';
import { LLM_CALL_RETRY } from '../judges/retry.js';
import { runJudge, type JudgeCallCost, type PriceJudgeCall } from '../judges/run-judge.js';
import { isJudgeScorer } from '../judges/scorers.js';
import type { ScoreDetail, ScorerRef } from '../model/eval-case.js';
import type { OnlineScoreRecord } from '../model/online-rule.js';
import type { Score } from '../model/score.js';
import { runScorers } from '../scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import type { TraceForScoring } from '../store/online-traces.js';
import type { ClaimedEvaluation } from '../store/online-evals.js';
import { judgeTraceId, onlineScoreId } from './judge-trace.js';
import { scoreInputFromTrace } from './trace-input.js';
import { isScorerError, recordVerdicts } from './verdict-records.js';

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

/** Where a judge's calls go: its project, the judge trace's id per scorer, and the calls so far of each judge. */
export interface JudgeCallsAt {
  projectId: string;
  judgeTraceId(scorer: string): string;
  calls: Map<string, JudgeCalls>;
}

/**
 * `refs` on one input: the rule and HTTP custom scorers through runScorers (a scorer that throws
 * scores 0 with the error as its reason), each LLM judge through {@link judgeOnline}, its calls
 * added to `at.calls`.
 */
export async function scoreWith(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  refs: readonly ScorerRef[],
  input: Omit<ScoreInput, 'config'>,
  at: JudgeCallsAt,
  signal: AbortSignal,
): Promise<Record<string, ScoreDetail>> {
  const judges = refs.filter((ref) => isJudgeScorer(registry.get(ref.name)));
  const [others, judged] = await Promise.all([
    runScorers(
      registry,
      refs.filter((ref) => !judges.includes(ref)),
      input,
      signal,
    ),
    Promise.all(
      judges.map(async (ref) => {
        const calls = at.calls.get(ref.name) ?? [];
        at.calls.set(ref.name, calls);
        return [
          ref.name,
          await judgeOnline(deps, registry, ref, input, { projectId: at.projectId, traceId: at.judgeTraceId(ref.name), calls }, signal),
        ] as const;
      }),
    ),
  ]);
  return { ...others, ...Object.fromEntries(judged) };
}

/**
 * Scores `trace` with the claimed rule's scorers ({@link scoreWith}); the scores and records as
 * recordVerdicts makes them, ids from (rule, trace, scorer).
 */
export async function scoreTrace(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  claim: ClaimedEvaluation,
  trace: TraceForScoring,
  signal: AbortSignal,
): Promise<TraceScoring> {
  const startedAt = Date.now();
  const calls = new Map<string, JudgeCalls>();
  const judgeTrace = (scorer: string) => judgeTraceId(claim.rule_id, claim.trace_id, scorer);
  const verdicts = await scoreWith(
    deps,
    registry,
    claim.scorers,
    scoreInputFromTrace(trace, claim.expected),
    { projectId: claim.project_id, judgeTraceId: judgeTrace, calls },
    signal,
  );
  signal.throwIfAborted();
  const of = { traceId: claim.trace_id, scoreId: (scorer: string) => onlineScoreId(claim.rule_id, claim.trace_id, scorer), judgeTraceId: judgeTrace };
  const out = recordVerdicts(claim, of, verdicts, calls, startedAt);
  out.errors = claim.scorers.filter((ref) => isScorerError(verdicts[ref.name])).length;
  return out;
}
