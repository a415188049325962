import type { JudgeRuntime, JudgeScorer } from '../../judges/judge-scorer.js';
import { conversationJudge, type Bands } from './judge-question.js';

/**
 * `userFrustration`: an LLM judge of the user's sentiment across the turns; 1 is no frustration.
 * Evidence lists the turns where frustration shows (docs/scorers.md "userFrustration").
 */

/** What the judge asks. docs/scorers.md quotes it. */
export const FRUSTRATION_CRITERIA = [
  "User frustration: read the user's messages in order and follow their sentiment turn by turn. Frustration shows as repeating a request or a fact already given, complaints, corrections of the agent, curt or sarcastic replies, capitals or exclamation marks, asking for a human, threatening to leave, or giving up.",
  'Score 1 when the user shows no frustration; lower as it shows more often, more strongly, or grows toward the end. A user who ends satisfied after an early complaint scores higher than one who ends angry.',
  'Evidence: one entry per turn where frustration shows, "turn n: " and the user\'s words; none when there is no frustration.',
].join('\n');

const BANDS: Bands = [
  'no frustration: the user stays neutral or satisfied throughout.',
  'mild frustration in one or two turns, resolved by the end.',
  'clear frustration in several turns, or growing toward the end.',
  'the user ends frustrated, angry, or gives up.',
];

export function userFrustrationJudge(runtime: JudgeRuntime): JudgeScorer {
  return conversationJudge(runtime, {
    name: 'userFrustration',
    description: "LLM judge of the user's sentiment across a whole conversation: 1 is no frustration; evidence lists the turns where frustration shows.",
    criteria: FRUSTRATION_CRITERIA,
    bands: BANDS,
  });
}
