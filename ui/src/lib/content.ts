/** How a span's input or output is shown: a conversation, a JSON tree, or text folded when long. */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A tool (function) call an assistant message asks for. */
export interface ToolCall {
  id: string | null;
  name: string;
  /** The arguments, parsed when they were JSON text. */
  arguments: Json;
}

export interface ChatMessage {
  role: string;
  content: string;
  /** Tool calls the message makes (OpenAI `tool_calls` / `function_call`, Anthropic `tool_use`, GenAI `tool_call` parts). */
  toolCalls?: ToolCall[];
  /** The call a tool message answers (OpenAI `tool_call_id`, Anthropic `tool_result`, GenAI `tool_call_response`). */
  toolCallId?: string;
  /** A participant's name (OpenAI `name`). */
  name?: string;
}

export type Content =
  { kind: 'empty' } | { kind: 'chat'; messages: ChatMessage[] } | { kind: 'json'; value: Json; pretty: string } | { kind: 'text'; text: string };

const isObject = (v: Json | undefined): v is { [k: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON text parsed (tool-call arguments are often JSON in a string), else the value as it is. */
function maybeJson(v: Json | undefined): Json {
  if (typeof v !== 'string') return v ?? null;
  const t = v.trim();
  if (t[0] === '{' || t[0] === '[') {
    try {
      return JSON.parse(t) as Json;
    } catch {
      return v;
    }
  }
  return v;
}

function str(v: Json | undefined): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** A call from an OpenAI `tool_calls` entry (OpenInference's wrapped in `tool_call`), a `function_call`, or a tool-use part; null when it is none. */
function toolCall(outer: Json): ToolCall | null {
  if (!isObject(outer)) return null;
  const v = isObject(outer.tool_call) ? outer.tool_call : outer;
  const fn = isObject(v.function) ? v.function : v;
  const name = str(fn.name);
  if (name === null) return null;
  return { id: str(v.id), name, arguments: maybeJson(fn.arguments ?? v.input ?? v.args ?? null) };
}

interface Parts {
  text: string[];
  calls: ToolCall[];
  answers: string | null;
}

/** The text of a message's content: a string, or its parts (OpenAI / Anthropic / GenAI), with tool calls apart. */
function readParts(content: Json | undefined, into: Parts): void {
  if (content === null || content === undefined) return;
  if (typeof content === 'string') {
    into.text.push(content);
    return;
  }
  if (!Array.isArray(content)) {
    into.text.push(JSON.stringify(content, null, 2));
    return;
  }
  for (const wrapped of content) {
    // OpenInference wraps each part of `message.contents` in `message_content`.
    const part = isObject(wrapped) && isObject(wrapped.message_content) ? wrapped.message_content : wrapped;
    if (typeof part === 'string') into.text.push(part);
    else if (isObject(part)) {
      const type = str(part.type);
      if (type === 'tool_use' || type === 'tool_call' || type === 'function_call') {
        const call = toolCall(part);
        if (call) {
          into.calls.push(call);
          continue;
        }
      }
      if (type === 'tool_result' || type === 'tool_call_response') {
        into.answers = str(part.tool_use_id) ?? str(part.id) ?? into.answers;
        const result = part.content ?? part.response ?? part.result ?? null;
        if (typeof result === 'string') into.text.push(result);
        else if (Array.isArray(result)) readParts(result, into);
        else if (result !== null) into.text.push(JSON.stringify(result, null, 2));
        continue;
      }
      if (typeof part.text === 'string') into.text.push(part.text);
      else if (typeof part.content === 'string') into.text.push(part.content);
      else into.text.push(JSON.stringify(part, null, 2));
    } else into.text.push(JSON.stringify(part));
  }
}

/** Messages when `value` is a chat: an array of `{role, content|parts}` or an object with `messages`. */
export function asChat(value: Json): ChatMessage[] | null {
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.messages) ? value.messages : null;
  if (!list || list.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const m of list) {
    if (!isObject(m) || typeof m.role !== 'string') return null;
    const parts: Parts = { text: [], calls: [], answers: null };
    readParts(m.content ?? m.parts ?? m.contents, parts);
    if (Array.isArray(m.tool_calls))
      for (const c of m.tool_calls) {
        const call = toolCall(c);
        if (call) parts.calls.push(call);
      }
    if (m.function_call) {
      const call = toolCall(m.function_call);
      if (call) parts.calls.push(call);
    }
    const msg: ChatMessage = { role: m.role, content: parts.text.join('\n') };
    if (parts.calls.length) msg.toolCalls = parts.calls;
    const answers = str(m.tool_call_id) ?? parts.answers;
    if (answers) msg.toolCallId = answers;
    if (typeof m.name === 'string') msg.name = m.name;
    out.push(msg);
  }
  return out;
}

export function parseContent(raw: string): Content {
  const text = raw ?? '';
  if (text.trim() === '') return { kind: 'empty' };
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') {
    try {
      const value = JSON.parse(text) as Json;
      const chat = asChat(value);
      if (chat) return { kind: 'chat', messages: chat };
      return { kind: 'json', value, pretty: JSON.stringify(value, null, 2) };
    } catch {
      // Not JSON after all (or cut by the API's 16,384-character cap): show it as text.
    }
  }
  return { kind: 'text', text };
}

/** Characters shown before a long text is folded. */
export const FOLD_AT = 1500;

/** Splits a text into what is shown at first and the rest, at a line break near the limit when there is one. */
export function foldText(text: string, limit = FOLD_AT): { head: string; rest: string } {
  if (text.length <= limit) return { head: text, rest: '' };
  const cut = text.lastIndexOf('\n', limit);
  const at = cut > limit * 0.6 ? cut : limit;
  return { head: text.slice(0, at), rest: text.slice(at) };
}

/** Entries of an object or array node in a JSON tree, and how its folded summary reads. */
export function jsonEntries(value: Json): Array<[string, Json]> {
  if (Array.isArray(value)) return value.map((v, i) => [String(i), v]);
  if (isObject(value)) return Object.entries(value);
  return [];
}

export function jsonSummary(value: Json): string {
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (isObject(value)) {
    const n = Object.keys(value).length;
    return `${n} key${n === 1 ? '' : 's'}`;
  }
  return '';
}

/** Whether a JSON node has children to fold. */
export const isBranch = (value: Json): boolean => (Array.isArray(value) ? value.length > 0 : isObject(value) && Object.keys(value).length > 0);

/**
 * Marks of markdown, each on its own line or inline: a heading, a list item, a fence, a quote, a
 * table's rule, bold, inline code, a link. Each is linear in the text (no nested repetition).
 */
const MARKDOWN_MARKS = [
  /^ {0,3}#{1,6} \S/m,
  /^ {0,3}(?:[-*+]|\d{1,3}[.)]) \S/m,
  /^ {0,3}(?:```|~~~)/m,
  /^ {0,3}> \S/m,
  /^ {0,3}\|? ?:?-{3,}:? ?\|/m,
  /\*\*[^*\n]{1,200}\*\*/,
  /`[^`\n]{1,200}`/,
  /\[[^\]\n]{1,200}\]\([^)\s]{1,2000}\)/,
];

/** Whether a text reads as markdown (the trace page renders it, with a Raw toggle). */
export const looksLikeMarkdown = (text: string): boolean => MARKDOWN_MARKS.some((re) => re.test(text));
