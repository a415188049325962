import type { LlmMessage, LlmParameters, LlmToolDefinition } from '../../model/messages.js';
import { indexedList, isRecord, parseStructured, str, stringList } from '../json.js';
import { addParameterObject } from '../parameters.js';
import { messageFrom, toolDefinition, valueMessages } from '../shapes.js';
import type { MessageConvention, SpanReader } from '../source.js';

/**
 * OpenInference (Arize Phoenix): messages flattened as `llm.input_messages.N.message.*` with
 * `message.contents.M.message_content.*` and `message.tool_calls.M.tool_call.*`, tool results as
 * `tool` messages with `message.tool_call_id`, tools as `llm.tools.N.tool.json_schema`, parameters
 * as the `llm.invocation_parameters` JSON, `llm.finish_reason`. `input.value` / `output.value`
 * (often the whole provider request / response) when a span has no flattened messages.
 */

/** `llm.input_messages` / `llm.output_messages`: each element `{message: {...}}`; null when none. */
function flattened(r: SpanReader, prefix: string, role: string): LlmMessage[] | null {
  const items = indexedList(r.attrs, prefix);
  return items.length > 0 ? items.flatMap((item) => messageFrom(item, role)) : null;
}

/** `llm.prompts.N.prompt.text` (completions API): one user message each. */
function prompts(r: SpanReader): LlmMessage[] | null {
  const items = indexedList(r.attrs, 'llm.prompts').map((p) => (isRecord(p) && isRecord(p.prompt) ? p.prompt.text : p));
  const texts = items.filter((t): t is string => typeof t === 'string');
  return texts.length > 0 ? texts.map((content) => ({ role: 'user', content })) : null;
}

/** `llm.tools.N.tool.json_schema` (the provider's tool object as JSON text), or a tool's flattened name / description / parameters. */
function tools(r: SpanReader): LlmToolDefinition[] | null {
  const list = indexedList(r.attrs, 'llm.tools')
    .map((item) => {
      const tool = isRecord(item) && isRecord(item.tool) ? item.tool : item;
      return toolDefinition(isRecord(tool) && typeof tool.json_schema === 'string' ? tool.json_schema : tool);
    })
    .filter((t): t is LlmToolDefinition => t !== null);
  return list.length > 0 ? list : null;
}

/** `llm.finish_reason`, else the choices of an OpenAI-shaped `output.value`. */
function finishReasons(r: SpanReader): string[] | null {
  const explicit = stringList(r.get('llm.finish_reason'));
  if (explicit !== null) return explicit;
  const output = r.get('output.value');
  const parsed = output === undefined ? undefined : parseStructured(output);
  if (!isRecord(parsed) || !Array.isArray(parsed.choices)) return null;
  const reasons = parsed.choices.map((c) => (isRecord(c) ? str(c.finish_reason) : null)).filter((x): x is string => x !== null);
  return reasons.length > 0 ? reasons : null;
}

export const openinference: MessageConvention = {
  name: 'openinference',
  turns: (r) => ({
    messages: flattened(r, 'llm.input_messages', 'user') ?? prompts(r) ?? valueMessages(r.get('input.value'), 'user'),
    output_messages: flattened(r, 'llm.output_messages', 'assistant') ?? valueMessages(r.get('output.value'), 'assistant'),
  }),
  tools,
  parameters(r) {
    const out: LlmParameters = {};
    addParameterObject(out, r.get('llm.invocation_parameters'));
    return out;
  },
  finishReasons,
};
