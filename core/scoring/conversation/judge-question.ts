import { z } from 'zod';
import type { ConversationView } from '../../model/conversation.js';
import { JUDGE_COMMON_CONFIG, judgeScorer, MAX_PROMPT_CHARS, type JudgeQuestion, type JudgeRuntime, type JudgeScorer } from '../../judges/judge-scorer.js';
import { caseBlock, systemPrompt } from '../../judges/prompt.js';
import { condenseConversation } from './condensed.js';
import { requireConversation } from './support.js';

/**
 * The conversation judges' one question shape (goalCompletion, userFrustration, consistency,
 * knowledgeRetention's judge mode): their own criteria and bands in the system prompt, the
 * conversation condensed to `maxChars` (condensed.ts) in the message, after the parts the judge
 * adds (the goal, the facts). docs/scorers.md "Conversation scorers".
 */

/** The conversation shown is cut to this many characters by default, as the trajectory judge's trace. */
export const DEFAULT_CONVERSATION_CHARS = 24_000;

/** The config keys every conversation judge has. */
export const CONVERSATION_JUDGE_CONFIG = {
  ...JUDGE_COMMON_CONFIG,
  /** More criteria, added to the judge's own. */
  criteria: z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional(),
  /** The condensed conversation's size in characters. */
  maxChars: z.number().int().min(2_000).max(200_000).default(DEFAULT_CONVERSATION_CHARS),
};

const CommonConfig = z.strictObject(CONVERSATION_JUDGE_CONFIG);

export type Bands = [string, string, string, string];

/** The parts a judge adds before the conversation, each under its tag. */
type Parts = Array<[tag: string, text: string]>;

/** Every conversation judge asks to name turns, as the trajectory judge asks to name steps. */
const NAME_TURNS = 'Name in your reason the turns ("turn n") that decided the score.';

export function conversationQuestion(
  view: ConversationView,
  config: { criteria?: string; maxChars: number },
  own: { criteria: string; bands: Bands; parts?: Parts },
): JudgeQuestion {
  const criteria = [own.criteria, ...(config.criteria ? [`Also: ${config.criteria}`] : []), NAME_TURNS].join('\n');
  const parts: Array<[string, string]> = [...(own.parts ?? []), ['conversation', condenseConversation(view, config.maxChars)]];
  return { system: systemPrompt(criteria, own.bands, 'conversation'), prompt: caseBlock(parts) };
}

/**
 * A conversation judge: the one question above, over the conversation of the input (a judge
 * without one refuses, naming itself: requireConversation). `config` is the judge's config
 * schema when it has keys of its own (else the common ones, strict); `parts` the parts it adds.
 */
export function conversationJudge<C extends z.output<typeof CommonConfig>>(
  runtime: JudgeRuntime,
  judge: { name: string; description: string; config?: z.ZodType<C>; criteria: string; bands: Bands; parts?: (config: C, view: ConversationView) => Parts },
): JudgeScorer {
  return judgeScorer(runtime, {
    name: judge.name,
    description: judge.description,
    configSchema: judge.config ?? (CommonConfig as unknown as z.ZodType<C>),
    readsConversation: true,
    request: (config, input) => {
      const view = requireConversation(input, judge.name);
      return conversationQuestion(view, config, { criteria: judge.criteria, bands: judge.bands, parts: judge.parts?.(config, view) });
    },
  });
}
