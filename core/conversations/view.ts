import type { ConversationEnd, ConversationTurnView, ConversationView } from '../model/conversation.js';
import type { ToolCall } from '../model/eval-case.js';
import type { LlmMessage, LlmToolCall } from '../model/messages.js';
import { compactJson } from '../messages/json.js';

/**
 * The conversation view conversation-level scorers read (ScoreInput.conversation; docs/scorers.md
 * "Conversation scorers"), built the same way for a multi-turn trial and a production session.
 * Pure and free of Node imports: the run workflow, the online session rules and the browser may
 * all call it.
 */

/**
 * A turn's value as message text: a string as is (byte for byte), anything else as its compact
 * JSON text; 'null' for a value JSON has no text for (undefined, a function). Never throws (a
 * BigInt as its digits, a cycle as a marker). The agent protocol's `messages` (core/agents/agent-body.ts)
 * and ConversationTurnView's `user` and `assistant` are written with it.
 */
export function turnText(value: unknown): string {
  if (typeof value === 'string') return value;
  return compactJson(value) || 'null';
}

/** A reported tool call in the message model: arguments as the JSON text of its `input` ('' when it had none; a string as sent). */
function messageToolCall(call: ToolCall): LlmToolCall {
  return { name: call.name, arguments: call.input === undefined ? '' : turnText(call.input) };
}

/**
 * One turn as messages: the user's message, then the agent's answer with the tool calls it
 * reported (`tool_calls` only when there were some). Tool results are not messages here (the
 * agent protocol reports a call with its output, not the exchange): they stay in `turns[].toolCalls`.
 */
export function turnMessages(turn: Pick<ConversationTurnView, 'user' | 'assistant' | 'toolCalls'>): LlmMessage[] {
  const assistant: LlmMessage = { role: 'assistant', content: turn.assistant };
  if (turn.toolCalls.length) assistant.tool_calls = turn.toolCalls.map(messageToolCall);
  return [{ role: 'user', content: turn.user }, assistant];
}

/** The turns as one message list, user and assistant in turn, in the order given. */
export function conversationMessages(turns: readonly Pick<ConversationTurnView, 'user' | 'assistant' | 'toolCalls'>[]): LlmMessage[] {
  return turns.flatMap(turnMessages);
}

/** What a conversation view carries besides its turns. */
export interface ConversationMeta {
  sessionId: string;
  ended: ConversationEnd;
  /** A simulated user's persona, goal, facts and max_turns; left out of the view when absent. */
  persona?: string;
  goal?: string;
  facts?: string[];
  /** A simulated user's `max_turns`. */
  maxTurns?: number;
}

/** The view of a conversation: its turns (in the order given, 1-based `turn` each), their messages, why it ended. */
export function conversationViewOf(turns: readonly ConversationTurnView[], meta: ConversationMeta): ConversationView {
  const view: ConversationView = { sessionId: meta.sessionId, turns: [...turns], messages: conversationMessages(turns), ended: meta.ended };
  if (meta.persona !== undefined) view.persona = meta.persona;
  if (meta.goal !== undefined) view.goal = meta.goal;
  if (meta.facts !== undefined) view.facts = [...meta.facts];
  if (meta.maxTurns !== undefined) view.maxTurns = meta.maxTurns;
  return view;
}
