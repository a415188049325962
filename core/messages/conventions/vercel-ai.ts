import type { LlmMessage, LlmParameters, LlmToolCall } from '../../model/messages.js';
import { jsonish, str, stringList } from '../json.js';
import { addParameter, addPrefixed } from '../parameters.js';
import { textMessages, toolCall, toolList } from '../shapes.js';
import type { MessageConvention, SpanReader } from '../source.js';

/**
 * Vercel AI SDK telemetry: the prompt as `ai.prompt.messages` JSON (content parts `text`,
 * `tool-call` {toolCallId, toolName, input (SDK 5) | args (SDK 4)}, `tool-result` {output | result})
 * or `ai.prompt` ({system, prompt | messages}); the response as `ai.response.text`,
 * `ai.response.toolCalls` (JSON) or `ai.response.object`, with `ai.response.finishReason`; tools
 * as `ai.prompt.tools` (one JSON text per tool), settings as `ai.settings.*`.
 */

/** The response's one assistant message; null when the span has none of its attributes. */
function response(r: SpanReader): LlmMessage[] | null {
  const text = r.get('ai.response.text');
  const object = r.get('ai.response.object');
  const calls = r.get('ai.response.toolCalls');
  const finish = str(r.get('ai.response.finishReason'));
  if (text === undefined && object === undefined && calls === undefined) return null;
  const message: LlmMessage = { role: 'assistant', content: text ?? object ?? '' };
  const list = jsonish(calls);
  if (Array.isArray(list)) {
    const toolCalls = list.map(toolCall).filter((c): c is LlmToolCall => c !== null);
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
  } else if (typeof calls === 'string' && calls !== '') {
    // Not JSON: the text as sent, rather than nothing.
    message.content = message.content === '' ? calls : `${message.content}\n${calls}`;
  }
  if (finish !== null) message.finish_reason = finish;
  return [message];
}

export const vercelAi: MessageConvention = {
  name: 'vercel-ai',
  turns: (r) => ({ messages: textMessages(r.get('ai.prompt.messages') ?? r.get('ai.prompt'), 'user'), output_messages: response(r) }),
  tools: (r) => toolList(r.get('ai.prompt.tools')),
  parameters(r) {
    const out: LlmParameters = {};
    addPrefixed(out, r.attrs, 'ai.settings.');
    addParameter(out, 'tool_choice', r.get('ai.prompt.toolChoice'));
    return out;
  },
  finishReasons: (r) => stringList(r.get('ai.response.finishReason')),
};
