import { SCORER_ERROR } from '../judges/run-judge.js';
import { isJudgeScorer } from '../judges/scorers.js';
import type { ScoreDetail, ScorerRef } from '../model/eval-case.js';
import type { Score } from '../model/score.js';
import { runScorers } from '../scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import type { ClaimedSessionEvaluation } from '../store/online-evals.js';
import type { SessionForScoring } from '../store/online-traces.js';
import { judgeTraceBody, onlineSessionScoreId, sessionJudgeTraceId } from './judge-trace.js';
import { judgeOnline, type JudgeCalls, type ScoreTraceDeps, type TraceScoring } from './score-trace.js';
import { sessionScoreInput, sessionTurns, type SessionTurn } from './session-input.js';

/**
 * A session rule's scorers on one session (docs/online-evals.md, "Session rules"):
 *
 * - a conversation-level scorer (Scorer.readsConversation) scores the whole conversation once
 *   (ScoreInput.conversation, ended `idle`);
 * - any other scorer (rule-based, HTTP custom, LLM judge, trajectory) scores each turn as a trace
 *   rule would score that turn's trace, and the session's score is the mean over the turns, its
 *   reason naming the lowest turn. Those per-turn verdicts are what the conversation-level scorers
 *   then see as `turns[].scores`.
 *
 * One score per scorer, for the session: id from (rule, session, generation, scorer), `session_id`
 * the session, `trace_id` its last turn's trace.
 */

/** Turns of one session scored at once by a per-turn scorer (each an LLM judge call, perhaps). */
const TURN_CONCURRENCY = 4;
const MAX_EVIDENCE = 50;

export interface SessionScoring extends TraceScoring {
  /** Turns scored, and the last one's trace: the trace the scores name. */
  turns: number;
  lastTraceId: string;
}

/** Runs `fn` over `items`, at most `limit` at once, results in order. */
async function inTurns<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const isError = (d: ScoreDetail) => d.reason.startsWith(SCORER_ERROR);

/**
 * The session's verdict of a per-turn scorer: the mean of its turns' scores; the reason names the
 * lowest turn and its reason; each turn's score is a line of evidence. When every turn's verdict
 * was an error (an unknown scorer, a refused judge), the session's is that error as it was.
 */
export function turnsVerdict(turns: readonly SessionTurn[], verdicts: readonly ScoreDetail[]): ScoreDetail {
  if (verdicts.length === 0) return { score: 0, reason: `${SCORER_ERROR}the session has no turn to score`, evidence: [] };
  if (verdicts.every(isError)) return { ...verdicts[0], evidence: [] };
  const mean = verdicts.reduce((sum, v) => sum + v.score, 0) / verdicts.length;
  let low = 0;
  verdicts.forEach((v, i) => {
    if (v.score < verdicts[low].score) low = i;
  });
  const lowest = turns[low].view;
  const errors = verdicts.filter(isError).length;
  return {
    score: mean,
    reason:
      `mean over ${verdicts.length} turn${verdicts.length === 1 ? '' : 's'}: ${mean.toFixed(3)}; lowest turn ${lowest.turn} (trace ${lowest.traceId}): ` +
      `${verdicts[low].score.toFixed(3)}, ${verdicts[low].reason}${errors ? `; ${errors} turn${errors === 1 ? '' : 's'} could not be scored` : ''}`,
    evidence: verdicts.slice(0, MAX_EVIDENCE).map((v, i) => `turn ${turns[i].view.turn}: ${v.score.toFixed(3)}`),
  };
}

export async function scoreSession(
  deps: ScoreTraceDeps,
  registry: ScorerRegistry,
  claim: ClaimedSessionEvaluation,
  session: SessionForScoring,
  signal: AbortSignal,
): Promise<SessionScoring> {
  const startedAt = Date.now();
  const turns = sessionTurns(session, claim.expected);
  const lastTraceId = turns.at(-1)?.view.traceId ?? '';
  const judgeTrace = (ref: ScorerRef) => sessionJudgeTraceId(claim.rule_id, claim.session_id, claim.generation, ref.name);
  const isJudge = (ref: ScorerRef) => isJudgeScorer(registry.get(ref.name));
  const calls = new Map<string, JudgeCalls>(claim.scorers.filter(isJudge).map((ref) => [ref.name, []]));
  const scoreWith = async (refs: readonly ScorerRef[], input: Omit<ScoreInput, 'config'>): Promise<Record<string, ScoreDetail>> => {
    const judges = refs.filter(isJudge);
    const [others, judged] = await Promise.all([
      runScorers(
        registry,
        refs.filter((ref) => !judges.includes(ref)),
        input,
        signal,
      ),
      Promise.all(
        judges.map(
          async (ref) =>
            [
              ref.name,
              await judgeOnline(deps, registry, ref, input, { projectId: claim.project_id, traceId: judgeTrace(ref), calls: calls.get(ref.name)! }, signal),
            ] as const,
        ),
      ),
    ]);
    return { ...others, ...Object.fromEntries(judged) };
  };

  const conversationRefs = claim.scorers.filter((ref) => registry.get(ref.name)?.readsConversation === true);
  const turnRefs = claim.scorers.filter((ref) => !conversationRefs.includes(ref));
  // Each turn by the per-turn scorers first: conversation scorers see those verdicts in turns[].scores.
  const turnScores: Array<Record<string, ScoreDetail>> = turnRefs.length
    ? await inTurns(turns, TURN_CONCURRENCY, (t) => scoreWith(turnRefs, t.input))
    : turns.map(() => ({}));
  const verdicts: Record<string, ScoreDetail> = {};
  let errors = 0;
  for (const ref of turnRefs) {
    const perTurn = turnScores.map((s) => s[ref.name]);
    errors += perTurn.filter(isError).length;
    verdicts[ref.name] = turnsVerdict(turns, perTurn);
  }
  if (conversationRefs.length) {
    const conversational = await scoreWith(conversationRefs, sessionScoreInput(claim.session_id, turns, turnScores, claim.expected));
    for (const ref of conversationRefs) {
      verdicts[ref.name] = conversational[ref.name];
      if (isError(conversational[ref.name])) errors++;
    }
  }
  signal.throwIfAborted();

  const endedAt = Date.now();
  const createdAt = new Date(endedAt).toISOString();
  const out: SessionScoring = { scores: [], records: {}, errors, judgeTokens: 0, costUsd: null, judgeTraces: [], turns: turns.length, lastTraceId };
  for (const ref of claim.scorers) {
    const detail = verdicts[ref.name];
    const scoreId = onlineSessionScoreId(claim.rule_id, claim.session_id, claim.generation, ref.name);
    const judgeCalls = calls.get(ref.name);
    const judgeTraceId = judgeCalls ? judgeTrace(ref) : undefined;
    const score: Score = {
      id: scoreId,
      trace_id: lastTraceId,
      session_id: claim.session_id,
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
        'agent_eval.session_generation': String(claim.generation),
        'agent_eval.session_turns': String(turns.length),
        ...(judgeTraceId ? { 'agent_eval.judge_trace_id': judgeTraceId } : {}),
      },
    };
    out.scores.push(score);
    out.records[ref.name] = {
      score_id: scoreId,
      value: detail.score,
      reason: detail.reason.slice(0, 1000),
      ...(judgeTraceId ? { judge_trace_id: judgeTraceId } : {}),
    };
    if (!judgeCalls || !judgeTraceId) continue;
    for (const call of judgeCalls) {
      out.judgeTokens += (call.usage?.input_tokens ?? 0) + (call.usage?.output_tokens ?? 0);
      if (call.cost) out.costUsd = (out.costUsd ?? 0) + call.cost.cost_usd;
    }
    out.judgeTraces.push(
      judgeTraceBody({
        ruleId: claim.rule_id,
        ruleName: claim.rule_name,
        traceId: lastTraceId,
        session: { sessionId: claim.session_id, generation: claim.generation, judgeTraceId },
        scorer: ref.name,
        scoreId,
        attempt: claim.attempt,
        startedAt,
        endedAt,
        verdict: detail,
        calls: judgeCalls,
      }),
    );
  }
  return out;
}
