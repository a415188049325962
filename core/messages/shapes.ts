import type { LlmContentPart, LlmMessage, LlmToolCall, LlmToolDefinition } from '../model/messages.js';
import { asText, compactJson, isRecord, jsonish, parseStructured, str } from './json.js';

/**
 * The message shapes instrumentations emit, read into the one message model: OpenAI chat
 * (`content` text or parts, `tool_calls[].function`, `tool_call_id`), GenAI `parts` (`text`,
 * `tool_call`, `tool_call_response`), AI SDK parts (`tool-call`, `tool-result`), Anthropic blocks
 * (`tool_use`, `tool_result`), Gemini parts (`functionCall`, `functionResponse`), OpenInference's
 * wrappers (`message`, `message_content`, `tool_call`). Conventions differ in where the messages
 * are (JSON text, flattened attributes, events), not in how a message reads.
 */

const ROLES: Record<string, string> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
};

/** A role mapped onto system / user / assistant / tool; a role no convention names is kept as sent. */
export function roleOf(v: unknown, fallback: string): string {
  if (typeof v !== 'string' || v.trim() === '') return fallback;
  const key = v.trim().toLowerCase();
  return Object.prototype.hasOwnProperty.call(ROLES, key) ? ROLES[key] : v;
}

/** A tool call from any of its shapes; null when the value is not one. Arguments stay the text that was sent. */
export function toolCall(value: unknown): LlmToolCall | null {
  const outer = jsonish(value);
  if (!isRecord(outer)) return null;
  const v = isRecord(outer.tool_call) ? outer.tool_call : outer; // OpenInference: message.tool_calls.N.tool_call.*
  const fn = isRecord(v.function) ? v.function : v;
  const name = str(fn.name) ?? str(v.toolName) ?? str(v.name);
  const args = fn.arguments ?? v.arguments ?? v.input ?? v.args;
  // OpenAI Responses items have their own `id`; `call_id` is what the output names.
  const id = str(v.call_id) ?? str(v.toolCallId) ?? str(v.id);
  if (name === null && args === undefined && id === null) return null;
  const call = { name: name ?? '', arguments: asText(args) };
  return id === null ? call : { id, ...call };
}

/** A tool's result as text: strings as sent; AI SDK 5 `{type, value}` outputs and lists of text blocks unwrapped; other values as JSON. */
function resultText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0 && v.every((b) => isRecord(b) && typeof b.text === 'string'))
    return v.map((b) => (b as { text: string }).text).join('\n');
  if (isRecord(v) && typeof v.type === 'string' && 'value' in v) {
    if (v.type === 'text' || v.type === 'error-text') return asText(v.value);
    if (v.type === 'content') return resultText(v.value);
    return compactJson(v.value);
  }
  return asText(v);
}

interface Collected {
  texts: string[];
  parts: LlmContentPart[];
  /** Some part is neither text nor a tool call or result: `parts` is kept. */
  nonText: boolean;
  calls: LlmToolCall[];
  results: Array<{ id: string | null; name: string | null; content: string }>;
}

const CALL_TYPES = new Set(['tool_call', 'tool-call', 'tool_use', 'function_call']);
const RESULT_TYPES = new Set(['tool_call_response', 'tool-result', 'tool_result', 'function_call_output']);
const TEXT_TYPES = new Set(['', 'text', 'input_text', 'output_text']);
const REASONING_TYPES = new Set(['reasoning', 'thinking']);

function addText(into: Collected, text: string): void {
  into.texts.push(text);
  into.parts.push({ type: 'text', text });
}

function readPart(part: unknown, into: Collected): void {
  if (typeof part === 'string') return addText(into, part);
  if (!isRecord(part)) {
    if (part !== null && part !== undefined) addText(into, compactJson(part));
    return;
  }
  const p = isRecord(part.message_content) && Object.keys(part).length === 1 ? part.message_content : part; // OpenInference
  const type = typeof p.type === 'string' ? p.type.toLowerCase() : '';
  if (CALL_TYPES.has(type) || (type === '' && isRecord(p.tool_call))) {
    const call = toolCall(p);
    if (call) into.calls.push(call);
    return;
  }
  if (RESULT_TYPES.has(type)) {
    const id = str(p.call_id) ?? str(p.toolCallId) ?? str(p.tool_use_id) ?? str(p.id);
    into.results.push({ id, name: str(p.toolName) ?? str(p.name), content: resultText(p.response ?? p.output ?? p.result ?? p.content) });
    return;
  }
  if (isRecord(p.functionCall)) {
    // Gemini: {functionCall: {name, args, id?}}
    const call = toolCall({ id: p.functionCall.id, name: p.functionCall.name, arguments: p.functionCall.args ?? p.functionCall.arguments });
    if (call) into.calls.push(call);
    return;
  }
  if (isRecord(p.functionResponse)) {
    into.results.push({ id: str(p.functionResponse.id), name: str(p.functionResponse.name), content: resultText(p.functionResponse.response) });
    return;
  }
  const text = p.text ?? p.content ?? (type === 'refusal' ? p.refusal : undefined);
  if ((TEXT_TYPES.has(type) || type === 'refusal') && typeof text === 'string') return addText(into, text);
  into.nonText = true;
  const reasoning = p.text ?? p.content ?? p.thinking ?? p.reasoning;
  if (REASONING_TYPES.has(type) && typeof reasoning === 'string') into.parts.push({ type: 'reasoning', text: reasoning });
  else into.parts.push({ type: type || 'unknown', data: p });
}

function readContent(content: unknown, into: Collected): void {
  if (content === undefined || content === null) return;
  if (Array.isArray(content)) for (const part of content) readPart(part, into);
  else if (isRecord(content) && (typeof content.type === 'string' || typeof content.text === 'string' || isRecord(content.message_content)))
    readPart(content, into);
  else addText(into, typeof content === 'string' ? content : compactJson(content));
}

/**
 * One message as the model saw it, or several: tool results carried as parts (GenAI, AI SDK,
 * Anthropic) become one `tool` message each, as OpenAI chat has them.
 */
export function messageFrom(value: unknown, defaultRole: string): LlmMessage[] {
  if (typeof value === 'string') return [{ role: defaultRole, content: value }];
  if (!isRecord(value)) return value === null || value === undefined ? [] : [{ role: defaultRole, content: compactJson(value) }];
  let m = value;
  // An OpenAI choice, a gen_ai.choice body or an OpenInference element: {message: {...}, finish_reason?}.
  if (isRecord(m.message) && m.role === undefined) m = { finish_reason: m.finish_reason ?? m.finishReason, ...m.message };
  const role = roleOf(m.role, defaultRole);
  const into: Collected = { texts: [], parts: [], nonText: false, calls: [], results: [] };
  readContent(m.content, into);
  if (Array.isArray(m.parts)) readContent(m.parts, into); // GenAI
  if (Array.isArray(m.contents)) readContent(m.contents, into); // OpenInference message.contents
  const calls = jsonish(m.tool_calls);
  if (Array.isArray(calls))
    for (const c of calls) {
      const call = toolCall(c);
      if (call) into.calls.push(call);
    }
  const fnCall =
    toolCall(m.function_call) ?? (str(m.function_call_name) ? toolCall({ name: m.function_call_name, arguments: m.function_call_arguments_json }) : null);
  if (fnCall) into.calls.push(fnCall);

  const message: LlmMessage = { role, content: into.texts.join('\n') };
  if (into.nonText) message.parts = into.parts;
  if (into.calls.length > 0) message.tool_calls = into.calls;
  const callId = str(m.tool_call_id) ?? str(m.toolCallId) ?? (role === 'tool' ? str(m.id) : null);
  if (callId !== null) message.tool_call_id = callId;
  const name = str(m.name);
  if (name !== null) message.name = name;
  const finish = str(m.finish_reason) ?? str(m.finishReason) ?? str(m.stop_reason);
  if (finish !== null) message.finish_reason = finish;
  if (into.results.length === 0) return [message];

  const results = into.results.map((r): LlmMessage => {
    const out: LlmMessage = { role: 'tool', content: r.content };
    const id = r.id ?? (into.results.length === 1 ? (message.tool_call_id ?? null) : null);
    if (id !== null) out.tool_call_id = id;
    const toolName = r.name ?? (role === 'tool' && into.results.length === 1 ? (message.name ?? null) : null);
    if (toolName !== null) out.name = toolName;
    return out;
  });
  const keep = message.content !== '' || into.calls.length > 0 || into.nonText;
  if (!keep) return results;
  // Results answer earlier calls (Anthropic puts them first in the user turn); calls made here come before their results.
  return into.calls.length > 0 ? [message, ...results] : [...results, message];
}

function looksLikeMessage(m: unknown): boolean {
  if (typeof m === 'string') return true;
  if (!isRecord(m)) return false;
  return (
    typeof m.role === 'string' ||
    isRecord(m.message) ||
    Array.isArray(m.parts) ||
    Array.isArray(m.tool_calls) ||
    typeof m.content === 'string' ||
    Array.isArray(m.content)
  );
}

/**
 * Messages from a JSON value: a list of messages, a request body (`{messages, system?}`, the AI
 * SDK's `{system, prompt}`), a response (`{choices}`, Gemini `{candidates}`) or one message.
 * Null when the value is none of these.
 */
export function messagesFrom(v: unknown, defaultRole: string): LlmMessage[] | null {
  if (Array.isArray(v)) return v.every(looksLikeMessage) ? v.flatMap((m) => messageFrom(m, defaultRole)) : null;
  if (!isRecord(v)) return null;
  const system = v.system !== undefined && v.system !== null ? messageFrom({ role: 'system', content: v.system }, 'system') : [];
  if (Array.isArray(v.messages) && v.messages.every(looksLikeMessage)) return [...system, ...v.messages.flatMap((m) => messageFrom(m, defaultRole))];
  if (Array.isArray(v.choices)) {
    // Completions API choices carry `text`; chat choices a `message`.
    return v.choices.flatMap((c) =>
      messageFrom(
        isRecord(c) && !isRecord(c.message) && typeof c.text === 'string' ? { role: 'assistant', content: c.text, finish_reason: c.finish_reason } : c,
        'assistant',
      ),
    );
  }
  if (Array.isArray(v.candidates)) {
    return v.candidates.flatMap((c) =>
      isRecord(c) && isRecord(c.content) ? messageFrom({ ...c.content, finish_reason: c.finishReason ?? c.finish_reason }, 'assistant') : [],
    );
  }
  if (typeof v.prompt === 'string' && v.role === undefined) return [...system, { role: 'user', content: v.prompt }];
  return looksLikeMessage(v) ? messageFrom(v, defaultRole) : null;
}

/**
 * Messages from stored text: JSON that holds messages, else the text itself as one message of
 * `defaultRole` (plain text, JSON of another shape, or JSON that does not parse: kept as sent).
 */
export function textMessages(raw: string | undefined, defaultRole: string): LlmMessage[] | null {
  if (raw === undefined || raw === '') return null;
  const parsed = parseStructured(raw);
  return (parsed === undefined ? null : messagesFrom(parsed, defaultRole)) ?? [{ role: defaultRole, content: raw }];
}

/** Messages from a value that is text (an attribute) or already a structure (an event attribute); null when absent. */
export function valueMessages(v: unknown, defaultRole: string): LlmMessage[] | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return textMessages(v, defaultRole);
  return messagesFrom(v, defaultRole) ?? [{ role: defaultRole, content: compactJson(v) }];
}

/** A tool definition from its shapes (OpenAI `{type, function}`, flat `{name, parameters}`, AI SDK `inputSchema`, Anthropic `input_schema`). */
export function toolDefinition(value: unknown): LlmToolDefinition | null {
  const v = jsonish(value);
  if (typeof v === 'string') return v === '' ? null : { name: '', parameters: v };
  if (!isRecord(v)) return null;
  const fn = isRecord(v.function) ? v.function : v;
  const out: LlmToolDefinition = { name: str(fn.name) ?? '' };
  const description = str(fn.description);
  if (description !== null) out.description = description;
  const parameters = fn.parameters ?? fn.inputSchema ?? fn.input_schema ?? fn.json_schema;
  if (parameters !== undefined && parameters !== null) out.parameters = jsonish(parameters);
  return out;
}

/** Tool definitions from a JSON list (text or value); each element may itself be JSON text. Null when none. */
export function toolList(v: unknown): LlmToolDefinition[] | null {
  const value = jsonish(v);
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  const tools = list.map(toolDefinition).filter((t): t is LlmToolDefinition => t !== null);
  return tools.length > 0 ? tools : null;
}
