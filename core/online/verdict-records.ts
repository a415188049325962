import { SCORER_ERROR } from '../judges/run-judge.js';
import type { ScoreDetail } from '../model/eval-case.js';
import type { Score } from '../model/score.js';
import type { LeasedEvaluation } from '../store/online-evals.js';
import { judgeTraceBody } from './judge-trace.js';
import type { JudgeCalls, TraceScoring } from './score-trace.js';

/**
 * What an evaluation's verdicts become, a trace rule's and a session rule's alike: one score per
 * scorer (source `eval`, the scorer's name as `name` and `scorer_name`, attributes naming the rule
 * and, for a judge, the judge's trace), the record the evaluation keeps, and each judge's trace
 * with its tokens and cost.
 */

export const isScorerError = (d: ScoreDetail): boolean => d.reason.startsWith(SCORER_ERROR);

/** What the verdicts are of: the trace the scores name, their ids, and a session rule's session. */
export interface VerdictsOf {
  /** The trace the scores name (a session's: its last turn's). */
  traceId: string;
  scoreId(scorer: string): string;
  judgeTraceId(scorer: string): string;
  /** A session rule's: the session, generation and turns scored. */
  session?: { sessionId: string; generation: number; turns: number };
}

/**
 * The claim's scorers' verdicts as scores and records; `judges` holds the calls of each scorer
 * that is an LLM judge (its trace is written). `errors` is left at 0 for the caller to count.
 */
export function recordVerdicts(
  claim: LeasedEvaluation,
  of: VerdictsOf,
  verdicts: Record<string, ScoreDetail>,
  judges: ReadonlyMap<string, JudgeCalls>,
  startedAt: number,
): TraceScoring {
  const endedAt = Date.now();
  const createdAt = new Date(endedAt).toISOString();
  const out: TraceScoring = { scores: [], records: {}, errors: 0, judgeTokens: 0, costUsd: null, judgeTraces: [] };
  const session = of.session;
  for (const ref of claim.scorers) {
    const detail = verdicts[ref.name];
    const scoreId = of.scoreId(ref.name);
    const calls = judges.get(ref.name);
    const judgeTrace = calls ? of.judgeTraceId(ref.name) : undefined;
    const score: Score = {
      id: scoreId,
      trace_id: of.traceId,
      ...(session ? { session_id: session.sessionId } : {}),
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
        ...(session ? { 'agent_eval.session_generation': String(session.generation), 'agent_eval.session_turns': String(session.turns) } : {}),
        ...(judgeTrace ? { 'agent_eval.judge_trace_id': judgeTrace } : {}),
      },
    };
    out.scores.push(score);
    out.records[ref.name] = {
      score_id: scoreId,
      value: detail.score,
      reason: detail.reason.slice(0, 1000),
      ...(judgeTrace ? { judge_trace_id: judgeTrace } : {}),
    };
    if (!calls || !judgeTrace) continue;
    for (const call of calls) {
      out.judgeTokens += (call.usage?.input_tokens ?? 0) + (call.usage?.output_tokens ?? 0);
      if (call.cost) out.costUsd = (out.costUsd ?? 0) + call.cost.cost_usd;
    }
    out.judgeTraces.push(
      judgeTraceBody({
        ruleId: claim.rule_id,
        ruleName: claim.rule_name,
        traceId: of.traceId,
        ...(session ? { session: { sessionId: session.sessionId, generation: session.generation, judgeTraceId: judgeTrace } } : {}),
        scorer: ref.name,
        scoreId,
        attempt: claim.attempt,
        startedAt,
        endedAt,
        verdict: detail,
        calls,
      }),
    );
  }
  return out;
}
