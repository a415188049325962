/** How a span's input or output is shown: a conversation, pretty JSON, or text folded when long. */

export interface ChatMessage {
  role: string;
  content: string;
}

export type Content =
  | { kind: 'empty' }
  | { kind: 'chat'; messages: ChatMessage[] }
  | { kind: 'json'; pretty: string }
  | { kind: 'text'; text: string };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Text of a message's content: a string, or the text parts of an array (OpenAI / Anthropic / GenAI parts). */
function messageText(content: Json | undefined): string | null {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        if (part && typeof part === 'object' && !Array.isArray(part)) {
          if (typeof part.text === 'string') return part.text;
          if (typeof part.content === 'string') return part.content;
          return JSON.stringify(part);
        }
        return JSON.stringify(part);
      })
      .join('\n');
  }
  return JSON.stringify(content, null, 2);
}

/** Messages when `value` is a chat: an array of `{role, content|parts}` or an object with `messages`. */
export function asChat(value: Json): ChatMessage[] | null {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' && Array.isArray(value.messages) ? value.messages : null;
  if (!list || list.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const m of list) {
    if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.role !== 'string') return null;
    const text = messageText(m.content ?? m.parts);
    if (text === null) return null;
    const calls = Array.isArray(m.tool_calls) && m.tool_calls.length ? `\n[tool calls] ${JSON.stringify(m.tool_calls, null, 2)}` : '';
    out.push({ role: m.role, content: text + calls });
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
      return { kind: 'json', pretty: JSON.stringify(value, null, 2) };
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
