import type { AgentContext } from '../../sdk/evaluate.js';
import type { LlmMessage } from '../../core/model/messages.js';

/**
 * In-process agents with memory for the SDK's multi-turn tests: an `evaluate()` agent function
 * that answers from `ctx.messages` (the conversation so far), and nothing else, as a chat agent
 * does. They remember what the user told them ("my name is Ana", "I live in Lyon", "order 4417")
 * and answer "what is my name?", "where do I live?" from them, and a refund once they know the order.
 * The CLI's tests load this module as a `--local` agent.
 */

/** The facts the user's messages hold. */
function factsOf(messages: readonly LlmMessage[]): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const name = /my name is (\w+)/i.exec(m.content);
    if (name) facts.name = name[1];
    const city = /i live in (\w+)/i.exec(m.content);
    if (city) facts.city = city[1];
    const order = /order (\d+)/i.exec(m.content);
    if (order) facts.order = order[1];
  }
  return facts;
}

/** The answer to the conversation's last user message, from the facts of `seen`. */
export function recall(seen: readonly LlmMessage[], question: string): string {
  const facts = factsOf(seen);
  if (/what is my name/i.test(question)) return facts.name ? `Your name is ${facts.name}.` : 'I do not know your name.';
  if (/where do i live/i.test(question)) return facts.city ? `You live in ${facts.city}.` : 'I do not know where you live.';
  if (/order|refund/i.test(question)) return facts.order ? `Refund issued for order ${facts.order}.` : 'Could you give me your order number?';
  return 'Noted.';
}

/** Remembers everything the user said in this conversation. */
export function memoryAgent(_input: unknown, ctx: AgentContext): string {
  return recall(ctx.messages, ctx.messages.at(-1)?.content ?? '');
}

/** Sees only the last `turns` turns of the conversation (its last 2 * turns - 1 messages): it forgets a fact after that many turns. */
export function forgetfulAgent(turns: number) {
  return function forgetful(_input: unknown, ctx: AgentContext): string {
    return recall(ctx.messages.slice(-(2 * turns - 1)), ctx.messages.at(-1)?.content ?? '');
  };
}

/** Forgets after two turns: a named export the CLI can load (`--agent sdk-memory-agents.ts:forgetsAfterTwoTurns`). */
export const forgetsAfterTwoTurns = forgetfulAgent(2);

/**
 * A scripted conversation the memory agent passes: the user gives a name, talks of other things
 * and asks for the name three turns later. Turn 2 expects "noted" in the agent's "Noted." (contains
 * is case-insensitive), turn 4 the name.
 */
export const NAME_AFTER_SMALL_TALK = {
  name: 'name after small talk',
  turns: [
    { input: 'Hi, my name is Ana.' },
    { input: 'I live in Lyon.', expected: { outputContains: ['noted'] } },
    { input: 'Nice weather today.' },
    { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
  ],
};

/** knowledgeRetention over NAME_AFTER_SMALL_TALK: the name given in turn 1 must appear after it. */
export const RETAINS_THE_NAME = { name: 'knowledgeRetention', config: { facts: [{ text: 'Ana', mustAppearAfter: 1 }] } };
