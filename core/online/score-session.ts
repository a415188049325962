import { SCORER_ERROR } from '../judges/run-judge.js';
import { isJudgeScorer } from '../judges/scorers.js';
import type { ScoreDetail, ScorerRef } from '../model/eval-case.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import type { ClaimedSessionEvaluation } from '../store/online-evals.js';
import type { SessionForScoring } from '../store/online-traces.js';
import { onlineSessionScoreId, sessionJudgeTraceId } from './judge-trace.js';
import { scoreWith, type JudgeCalls, type ScoreTraceDeps, type TraceScoring } from './score-trace.js';
import { isScorerError, recordVerdicts } from './verdict-records.js';
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

/**
 * The session's verdict of a per-turn scorer: the mean of its turns' scores; the reason names the
 * lowest turn and its reason; each turn's score is a line of evidence. When every turn's verdict
 * was an error (an unknown scorer, a refused judge), the session's is that error as it was.
 */
export function turnsVerdict(turns: readonly SessionTurn[], verdicts: readonly ScoreDetail[]): ScoreDetail {
  if (verdicts.length === 0) return { score: 0, reason: `${SCORER_ERROR}the session has no turn to score`, evidence: [] };
  if (verdicts.every(isScorerError)) return { ...verdicts[0], evidence: [] };
  const mean = verdicts.reduce((sum, v) => sum + v.score, 0) / verdicts.length;
  let low = 0;
  verdicts.forEach((v, i) => {
    if (v.score < verdicts[low].score) low = i;
  });
  const lowest = turns[low].view;
  const errors = verdicts.filter(isScorerError).length;
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
  const isJudge = (ref: ScorerRef) => isJudgeScorer(registry.get(ref.name));
  const at = {
    projectId: claim.project_id,
    judgeTraceId: (scorer: string) => sessionJudgeTraceId(claim.rule_id, claim.session_id, claim.generation, scorer),
    calls: new Map<string, JudgeCalls>(claim.scorers.filter(isJudge).map((ref) => [ref.name, []])),
  };
  const scoreAll = (refs: readonly ScorerRef[], input: Omit<ScoreInput, 'config'>) => scoreWith(deps, registry, refs, input, at, signal);

  const conversationRefs = claim.scorers.filter((ref) => registry.get(ref.name)?.readsConversation === true);
  const turnRefs = claim.scorers.filter((ref) => !conversationRefs.includes(ref));
  // Each turn by the per-turn scorers first: conversation scorers see those verdicts in turns[].scores.
  const turnScores: Array<Record<string, ScoreDetail>> = turnRefs.length
    ? await inTurns(turns, TURN_CONCURRENCY, (t) => scoreAll(turnRefs, t.input))
    : turns.map(() => ({}));
  const verdicts: Record<string, ScoreDetail> = {};
  let errors = 0;
  for (const ref of turnRefs) {
    const perTurn = turnScores.map((s) => s[ref.name]);
    errors += perTurn.filter(isScorerError).length;
    verdicts[ref.name] = turnsVerdict(turns, perTurn);
  }
  if (conversationRefs.length) {
    const conversational = await scoreAll(conversationRefs, sessionScoreInput(claim.session_id, turns, turnScores, claim.expected));
    for (const ref of conversationRefs) {
      verdicts[ref.name] = conversational[ref.name];
      if (isScorerError(conversational[ref.name])) errors++;
    }
  }
  signal.throwIfAborted();

  const of = {
    traceId: lastTraceId,
    scoreId: (scorer: string) => onlineSessionScoreId(claim.rule_id, claim.session_id, claim.generation, scorer),
    judgeTraceId: at.judgeTraceId,
    session: { sessionId: claim.session_id, generation: claim.generation, turns: turns.length },
  };
  return { ...recordVerdicts(claim, of, verdicts, at.calls, startedAt), errors, turns: turns.length, lastTraceId };
}
