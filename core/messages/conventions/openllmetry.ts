import type { LlmMessage, LlmToolDefinition } from '../../model/messages.js';
import { indexedList, isRecord, parseStructured } from '../json.js';
import { addParameter } from '../parameters.js';
import { messagesFrom, textMessages, toolDefinition } from '../shapes.js';
import type { MessageConvention, SpanReader } from '../source.js';
import { flatMessages, genaiParameters } from './genai.js';

/**
 * OpenLLMetry (Traceloop): `gen_ai.prompt.N.{role, content, tool_call_id, tool_calls.M.{id, name,
 * arguments}}` and `gen_ai.completion.N.{..., finish_reason}` (the earliest releases:
 * `llm.prompts.N.*` / `llm.completions.N.*`), tools as `llm.request.functions.N.{name,
 * description, parameters}`, parameters as `gen_ai.request.*` and `llm.*`, and a decorated
 * function's `traceloop.entity.input` / `output` (`{"args": [...], "kwargs": {...}}`).
 */

/** The entity's input or output: `kwargs.messages` when the function took a chat, else its JSON or text as one message. */
function entity(raw: string | undefined, role: string): LlmMessage[] | null {
  if (raw === undefined || raw === '') return null;
  const parsed = parseStructured(raw);
  if (isRecord(parsed) && isRecord(parsed.kwargs)) {
    const messages = messagesFrom(parsed.kwargs, role);
    if (messages !== null) return messages;
  }
  return textMessages(raw, role);
}

function tools(r: SpanReader): LlmToolDefinition[] | null {
  const list = indexedList(r.attrs, 'llm.request.functions')
    .map(toolDefinition)
    .filter((t): t is LlmToolDefinition => t !== null);
  return list.length > 0 ? list : null;
}

/** Parameters OpenLLMetry reports under its own `llm.*` names, onto OpenAI's. */
const LLM_PARAMETERS: Record<string, string> = {
  'llm.temperature': 'temperature',
  'llm.top_p': 'top_p',
  'llm.top_k': 'top_k',
  'llm.request.max_tokens': 'max_tokens',
  'llm.frequency_penalty': 'frequency_penalty',
  'llm.presence_penalty': 'presence_penalty',
  'llm.chat.stop_sequences': 'stop',
};

export const openllmetry: MessageConvention = {
  name: 'openllmetry',
  turns: (r) => ({
    messages: flatMessages(r, 'gen_ai.prompt', 'user') ?? flatMessages(r, 'llm.prompts', 'user') ?? entity(r.get('traceloop.entity.input'), 'user'),
    output_messages:
      flatMessages(r, 'gen_ai.completion', 'assistant') ??
      flatMessages(r, 'llm.completions', 'assistant') ??
      entity(r.get('traceloop.entity.output'), 'assistant'),
  }),
  tools,
  parameters(r) {
    const out = genaiParameters(r);
    for (const [key, name] of Object.entries(LLM_PARAMETERS)) addParameter(out, name, r.get(key));
    return out;
  },
  // gen_ai.completion.N.finish_reason is on each response message already.
  finishReasons: () => null,
};
