import type { ReadsConversation } from '../model/case-schema.js';
import type { ScorerRef } from '../model/eval-case.js';
import type { RunCase, TurnResult } from '../model/eval-run.js';
import { caseShortfall } from '../scoring/run-scorers.js';

/**
 * Which scorer judges what in a conversation case (docs/evals.md, "Conversations"), one rule for
 * the worker that scores and the views that show the result:
 * - the case's conversation-level scorers (Scorer.readsConversation) run once on the whole
 *   conversation when it ended;
 * - the case's other scorers ("answer scorers") score the conversation's last answer against the
 *   case's `expected`, when it has one;
 * - a scripted turn is scored by its own `scorers`, else, when it has an `expected`, by the
 *   case's answer scorers against that turn's `expected`; a turn with neither is not scored.
 * A trial passes when the agent answered every turn, every scored turn passes and the case-level
 * scores pass (each score at least its minimum: the scorer's `minScore`, else the case's, else
 * the run's).
 */

const hasFields = (expected: Record<string, unknown> | undefined) => expected !== undefined && Object.keys(expected).length > 0;

/** The case's scorers split: those that read the whole conversation, and the others. */
export function caseScorers(runCase: Pick<RunCase, 'scorers'>, reads: ReadsConversation): { conversation: ScorerRef[]; answer: ScorerRef[] } {
  return {
    conversation: runCase.scorers.filter((ref) => reads(ref.name)),
    answer: runCase.scorers.filter((ref) => !reads(ref.name)),
  };
}

/** The scorers of the conversation's end: its conversation-level ones, and its answer scorers when the case has an `expected`. */
export function endScorers(runCase: Pick<RunCase, 'scorers' | 'expected'>, reads: ReadsConversation): ScorerRef[] {
  const { conversation, answer } = caseScorers(runCase, reads);
  return [...conversation, ...(hasFields(runCase.expected) ? answer : [])];
}

/** The scorers of turn `turn` (1-based) and what they expect; none for a simulated user's turns. */
export function turnScoring(
  runCase: Pick<RunCase, 'scorers' | 'turns'>,
  turn: number,
  reads: ReadsConversation,
): { refs: ScorerRef[]; expected: Record<string, unknown> } {
  const scripted = runCase.turns?.[turn - 1];
  if (!scripted) return { refs: [], expected: {} };
  if (scripted.scorers) return { refs: scripted.scorers, expected: scripted.expected };
  return { refs: hasFields(scripted.expected) ? caseScorers(runCase, reads).answer : [], expected: scripted.expected };
}

/** The refs behind a stored turn's scores, by name (the turn's own scorers, else the case's). */
function storedTurnRefs(runCase: Pick<RunCase, 'scorers' | 'turns'>, turn: TurnResult): ScorerRef[] {
  const pool = runCase.turns?.[turn.turn - 1]?.scorers ?? runCase.scorers;
  return Object.keys(turn.details).map((name) => pool.find((ref) => ref.name === name) ?? { name, config: {} });
}

/** Why a recorded turn fails, in words, or null when it passes. */
export function turnShortfall(runCase: Pick<RunCase, 'scorers' | 'turns'>, turn: TurnResult, minScore: number): string | null {
  if (turn.error) return `turn ${turn.turn}: ${turn.error}`;
  if (turn.passed) return null;
  const short = caseShortfall(turn.details, storedTurnRefs(runCase, turn), minScore);
  return `turn ${turn.turn}: ${short ?? 'did not pass'}`;
}

/** Why a conversation trial fails beyond its case-level scores: an agent error or the first turn that fell short; null when none. */
export function conversationShortfall(runCase: Pick<RunCase, 'scorers' | 'turns'>, turns: readonly TurnResult[], minScore: number): string | null {
  for (const turn of turns) {
    const short = turnShortfall(runCase, turn, minScore);
    if (short) return short;
  }
  return null;
}
