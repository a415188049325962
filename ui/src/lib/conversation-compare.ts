/** The conversation views' words (run page and compare page): why a conversation ended, why a turn diverges. */
import type { DivergenceReason } from '../../../core/evals/compare-turns.js';
import type { ConversationEnd } from '../../../core/model/conversation.js';

export { answerText } from '../../../core/evals/compare-turns.js';

const ENDED: Record<ConversationEnd, string> = {
  script_done: 'the script ran out of turns',
  goal_met: "the user's goal was met",
  gave_up: 'the user gave up',
  max_turns: 'it reached its maximum of turns',
  stop_condition: "the agent's answer matched the stop condition",
  idle: 'the session went idle',
};

/** Why a conversation ended, in words ("did not end" when it failed or was cancelled on the way). */
export const endedLabel = (ended: ConversationEnd | null | undefined): string => (ended ? ENDED[ended] : 'it did not end (failed or cancelled on the way)');

export const DIVERGENCE_LABEL: Record<DivergenceReason, string> = {
  missing_turn: 'one conversation has no such turn',
  user_message: "the user's messages differ",
  pass_fail: 'passes in one run only',
  tool_calls: 'other tools called',
  numbers: 'other numbers stated',
  answer_text: 'the answers say something else',
};

/** The reasons a turn diverges, in words. */
export const divergenceText = (reasons: readonly DivergenceReason[]): string => reasons.map((r) => DIVERGENCE_LABEL[r]).join('; ');

/** An element id for a compared case's turn (case names are any text: encoded). */
export const turnAnchor = (scope: string, caseName: string, turn: number): string => `${scope}-${encodeURIComponent(caseName).replace(/%/g, '_')}-turn-${turn}`;
