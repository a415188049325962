import type { JudgeRuntime, JudgeScorer } from '../../judges/judge-scorer.js';
import { conversationJudge, type Bands } from './judge-question.js';

/**
 * `consistency`: an LLM judge of whether the agent contradicts itself across the turns; the
 * reason names the contradicting turns (docs/scorers.md "consistency").
 */

/** What the judge asks. docs/scorers.md quotes it. */
export const CONSISTENCY_CRITERIA = [
  "Consistency: the agent does not contradict itself across turns. Compare what it states in each turn (facts, numbers, prices, dates, policies, what it says it did or will do, the user's details as it repeats them) with what it stated before.",
  'A change the conversation explains is not a contradiction: a new tool result, the user correcting or changing their request, the agent openly correcting an earlier mistake. An unexplained change is.',
  'Name each contradiction by its turns ("turn 2 vs turn 6") in your reason, and quote both statements in the evidence.',
].join('\n');

const BANDS: Bands = [
  'no contradiction: everything the agent states holds across the turns.',
  'one minor inconsistency (a detail that does not change the outcome).',
  'a contradiction on something that matters, or several minor ones.',
  'the agent contradicts itself on what the user relies on (the answer, a price, a promise) or repeatedly.',
];

export function consistencyJudge(runtime: JudgeRuntime): JudgeScorer {
  return conversationJudge(runtime, {
    name: 'consistency',
    description: 'LLM judge of a whole conversation: the agent does not contradict itself across turns; the reason names the contradicting turns.',
    criteria: CONSISTENCY_CRITERIA,
    bands: BANDS,
  });
}
