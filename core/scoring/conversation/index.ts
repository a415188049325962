import type { JudgeRuntime, JudgeScorer } from '../../judges/judge-scorer.js';
import type { Scorer } from '../scorer.js';
import { consistencyJudge } from './consistency.js';
import { goalCompletionJudge } from './goal-completion.js';
import { knowledgeRetentionScorer } from './knowledge-retention.js';
import { turnScoresScorer } from './turn-scores.js';
import { turnsToGoalScorer } from './turns-to-goal.js';
import { userFrustrationJudge } from './user-frustration.js';

/**
 * The conversation-level scorers (Scorer.readsConversation; docs/scorers.md "Conversation
 * scorers"): they score a whole conversation (ScoreInput.conversation) once it ended, a
 * multi-turn trial's or a production session's. The rule ones join the registry beside the
 * other rule scorers; the judges (knowledgeRetention too, whose rule mode needs no provider) are
 * built by the one judge builder and join createJudgeScorers.
 */
export const CONVERSATION_RULE_SCORERS: Scorer[] = [turnsToGoalScorer, turnScoresScorer];

export function conversationJudges(runtime: JudgeRuntime): JudgeScorer[] {
  return [goalCompletionJudge(runtime), userFrustrationJudge(runtime), consistencyJudge(runtime), knowledgeRetentionScorer(runtime)];
}

export { conversationViewOf, turnText } from '../../conversations/view.js';
export { condenseConversation } from './condensed.js';
