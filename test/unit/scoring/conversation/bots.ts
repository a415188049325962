import { conversationMessages, conversationViewOf, turnText } from '../../../../core/conversations/view.js';
import type { ConversationEnd, ConversationTurnView, ConversationView } from '../../../../core/model/conversation.js';
import { ExpectedSchema, type ScoreDetail, type ToolCall } from '../../../../core/model/eval-case.js';
import type { ScoreInput } from '../../../../core/scoring/scorer.js';
import type { LlmMessage } from '../../../../core/model/messages.js';
import { texts } from '../../../fixtures/corpus/texts.js';

/**
 * Loopback agents with memory, as the agent protocol calls them: each reads the conversation so
 * far (`messages`, the product's message model) and answers. `converse` plays the user's turns
 * against one, turn by turn, and builds the conversation view the scorers read.
 */

export interface BotAnswer {
  output: unknown;
  toolCalls?: ToolCall[];
}
export type Bot = (messages: LlmMessage[], turn: number) => BotAnswer;

const userTexts = (messages: LlmMessage[]) => messages.filter((m) => m.role === 'user').map((m) => m.content);
const orderIn = (text: string) => /order number is #?(\d+)/i.exec(text)?.[1];

/** Plays `users` against `bot`; per-turn scores when given (scripted turns' scorers). */
export function converse(
  bot: Bot,
  users: string[],
  meta: {
    ended: ConversationEnd;
    persona?: string;
    goal?: string;
    facts?: string[];
    maxTurns?: number;
    scores?: Array<Record<string, ScoreDetail> | undefined>;
  },
): ConversationView {
  const turns: ConversationTurnView[] = [];
  users.forEach((user, i) => {
    const history = [...conversationMessages(turns), { role: 'user', content: user }];
    const answer = bot(history, i + 1);
    const scores = meta.scores?.[i];
    turns.push({
      turn: i + 1,
      user,
      assistant: turnText(answer.output),
      output: answer.output,
      toolCalls: answer.toolCalls ?? [],
      latencyMs: 40 + i,
      ...(scores ? { scores } : {}),
    });
  });
  return conversationViewOf(turns, {
    sessionId: `session-${users.length}`,
    ended: meta.ended,
    persona: meta.persona,
    goal: meta.goal,
    facts: meta.facts,
    maxTurns: meta.maxTurns,
  });
}

/**
 * A support bot that remembers the order number for `memory` turns after it was given, then
 * forgets it and asks again.
 */
export function forgetfulBot(memory: number): Bot {
  return (messages, turn) => {
    const users = userTexts(messages);
    const givenAt = users.findIndex((u) => orderIn(u));
    const order = givenAt >= 0 && turn - (givenAt + 1) <= memory ? orderIn(users[givenAt]) : undefined;
    const last = users[users.length - 1];
    if (!order) return { output: 'Happy to help! Could you tell me your order number?' };
    if (/refund/i.test(last)) return { output: texts.policyRefunds, toolCalls: [{ name: 'policy_search', input: { q: 'refund', order_id: order } }] };
    return {
      output: `Order #${order} is on its way:\n\n${texts.supportAnswer}`,
      toolCalls: [{ name: 'lookup_order', input: { order_id: order }, output: texts.orderLookupResult }],
    };
  };
}

/** A bot that says the refund window is 30 days, and later 14. */
export const contradictingBot: Bot = (_messages, turn) => {
  if (turn === 2) return { output: 'You can return it within **30 days** of delivery for a full refund.' };
  if (turn === 5) return { output: 'Refunds are only possible within **14 days** of delivery, sorry.' };
  return { output: `Sure, let me check that for you (turn ${turn}).` };
};

/** A bot stuck on one question whatever the user says. */
export const loopingBot: Bot = () => ({ output: 'Could you describe the problem in more detail?' });

/** A travel planner that books the trip once the user confirms. */
export const plannerBot: Bot = (messages, turn) => {
  const last = userTexts(messages).at(-1) ?? '';
  if (turn === 1)
    return {
      output: texts.travelAnswer,
      toolCalls: [{ name: 'search_flights', input: { from: 'LIS', to: 'NRT', date: '2026-03-14', adults: 2, children: 2 } }],
    };
  if (/book/i.test(last))
    return {
      output: 'Booked ✅ Confirmation **LX-4471**: flights LIS → NRT on 14 March and HND → LIS on 28 March, 4 passengers.',
      toolCalls: [{ name: 'book_flights', input: { offer_id: 'of-93', passengers: 4 }, output: { confirmation: 'LX-4471' } }],
    };
  return { output: 'Noted. Shall I book the flights from the draft?' };
};

/** The user's turns of a support conversation giving the order number in turn 2 and asking about it until turn 6. */
export const SUPPORT_USER_TURNS = [
  texts.supportQuestion,
  'My order number is #48213, it was placed on 2 March.',
  'When will it arrive?',
  'Can I still get a refund if it is late?',
  'OK, and what is the status of my order now?',
  'I ALREADY gave you my order number!! This is useless.',
];

/** A scorer's input for a conversation (or none): its last turn's output, nothing expected. */
export const scoreInput = (conversation?: ConversationView): Omit<ScoreInput, 'config'> => ({
  input: null,
  output: conversation?.turns.at(-1)?.output,
  expected: ExpectedSchema.parse({}),
  toolCalls: [],
  latencyMs: 0,
  ...(conversation ? { conversation } : {}),
});
