import { z } from 'zod';
import { MAX_PROMPT_CHARS, type JudgeRuntime, type JudgeScorer } from '../../judges/judge-scorer.js';
import type { ConversationView } from '../../model/conversation.js';
import { CONVERSATION_JUDGE_CONFIG, conversationJudge, type Bands } from './judge-question.js';

/**
 * `goalCompletion`: an LLM judge of whether the conversation reached the user's goal: the
 * simulated user's (the view's `goal`), else `config.goal`, else the goal the user's own messages
 * show (production sessions). The reason names the turn where the goal was reached, or where it
 * became clear it would not be (docs/scorers.md "goalCompletion").
 */

const Config = z.strictObject({
  ...CONVERSATION_JUDGE_CONFIG,
  /** The user's goal, when the conversation has none of its own (a scripted conversation, a production session). */
  goal: z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional(),
});
type GoalConfig = z.output<typeof Config>;

/** What the judge asks. docs/scorers.md quotes it. */
export const GOAL_CRITERIA =
  "Goal completion: did the conversation reach the user's goal? The goal is reached when the agent actually did or gave what the goal asks (a booking confirmed by the agent, a correct and complete answer), not when it only promised to, asked the user to do it elsewhere, or claimed success its tool calls do not support. How the conversation ended is a hint, never proof: check the turns.";

const BANDS: Bands = [
  'the goal is fully reached.',
  'the goal is reached with a small gap (a detail missing, a needless detour).',
  'the goal is partly reached.',
  'the goal is not reached.',
];

/** The goal the judge checks: the conversation's, else the config's, else the one to infer. */
function goalPart(config: GoalConfig, view: ConversationView): Array<[string, string]> {
  const goal = view.goal ?? config.goal;
  return goal
    ? [['goal', goal]]
    : [['goal', "No goal was given: infer the user's goal from their messages (mostly the first ones) and say in your reason what you took it to be."]];
}

export function goalCompletionJudge(runtime: JudgeRuntime): JudgeScorer {
  return conversationJudge(runtime, {
    name: 'goalCompletion',
    description:
      "LLM judge of a whole conversation: did it reach the user's goal (the simulated user's, else config.goal, else the one the user's messages show)? The reason names the deciding turn.",
    config: Config,
    criteria: GOAL_CRITERIA,
    bands: BANDS,
    parts: goalPart,
  });
}
