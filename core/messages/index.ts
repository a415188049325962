import type { LlmConversation, LlmMessage, LlmParameters } from '../model/messages.js';
import type { Convention } from '../model/span.js';
import { genai } from './conventions/genai.js';
import { openinference } from './conventions/openinference.js';
import { openllmetry } from './conventions/openllmetry.js';
import { spec } from './conventions/spec.js';
import { vercelAi } from './conventions/vercel-ai.js';
import { SpanReader, type LlmSpanSource, type MessageConvention, type Turns } from './source.js';

export type { LlmSpanSource } from './source.js';

/**
 * The conversation of a generation span (core/model/messages.ts), read from the stored span when
 * the API answers: a pure function of its attributes, input, output and events, so every stored
 * span gets it, whatever release of the collector wrote it (docs/conventions.md "Messages, tool
 * calls and parameters").
 */

/** After the span's own convention, the others in the collector's precedence order; `spec` (the span's input and output) last. */
const ORDER: readonly MessageConvention[] = [openinference, vercelAi, openllmetry, genai, spec];

/** Embeddings are model calls too (generations) but have no conversation. */
function isEmbedding(a: Record<string, string>): boolean {
  const lower = (k: string) => (Object.prototype.hasOwnProperty.call(a, k) ? a[k].trim().toLowerCase() : '');
  return (
    lower('gen_ai.operation.name') === 'embeddings' ||
    lower('openinference.span.kind') === 'embedding' ||
    lower('ai.operationId').startsWith('ai.embed') ||
    lower('llm.request.type') === 'embedding'
  );
}

function orderFor(convention: Convention): readonly MessageConvention[] {
  const own = ORDER.find((c) => c.name === convention);
  return own ? [own, ...ORDER.filter((c) => c !== own)] : ORDER;
}

const hasMessages = (t: Turns) => (t.messages?.length ?? 0) > 0 || (t.output_messages?.length ?? 0) > 0;

/** The first non-empty answer of `read` over the conventions, in order; undefined when none has one. */
function first<T>(order: readonly MessageConvention[], read: (c: MessageConvention) => T[] | null): T[] | undefined {
  for (const c of order) {
    const found = read(c);
    if (found !== null && found.length > 0) return found;
  }
  return undefined;
}

function build(span: LlmSpanSource): LlmConversation | null {
  const reader = new SpanReader(span);
  if (span.type !== 'generation' || isEmbedding(reader.attrs)) return null;
  const order = orderFor(span.convention);
  // Messages and the response come from one convention, so a turn is never half from another source.
  let chosen: Turns | undefined;
  let truncated = false;
  for (const c of order) {
    const own = new SpanReader(span); // its own, so only the chosen convention's reads can flag a cut
    const turns = c.turns(own);
    if (!hasMessages(turns)) continue;
    chosen = turns;
    truncated = own.truncated;
    break;
  }
  const messages = chosen?.messages ?? [];
  const output = chosen?.output_messages ?? [];
  const tools = first(order, (c) => c.tools(reader));
  const parameters: LlmParameters = {};
  for (const c of order) for (const [k, v] of Object.entries(c.parameters(reader))) if (!Object.prototype.hasOwnProperty.call(parameters, k)) parameters[k] = v;
  const fromMessages = output.map((m) => m.finish_reason).filter((f): f is string => f !== undefined);
  const finish = first(order, (c) => c.finishReasons(reader)) ?? (fromMessages.length > 0 ? fromMessages : undefined);
  // A span-level reason per choice (OpenInference llm.finish_reason, AI SDK finishReason) is also its message's.
  if (finish && finish.length === output.length) output.forEach((m, i) => (m.finish_reason ??= finish[i]));
  const hasParameters = Object.keys(parameters).length > 0;
  if (messages.length === 0 && output.length === 0 && !tools && !hasParameters && !finish) return null;
  const conversation: LlmConversation = { messages, output_messages: output };
  if (tools) conversation.tools = tools;
  if (hasParameters) conversation.parameters = parameters;
  if (finish) conversation.finish_reasons = finish;
  if (truncated) conversation.truncated = true;
  return conversation;
}

/** The text as sent, or (never expected) nothing: what a span shows if a reader failed. */
function fallback(span: LlmSpanSource): LlmConversation | null {
  if (span.type !== 'generation') return null;
  const one = (role: string, content: unknown): LlmMessage[] => (typeof content === 'string' && content !== '' ? [{ role, content }] : []);
  return { messages: one('user', span.input), output_messages: one('assistant', span.output) };
}

/**
 * The `llm` field of a span: its conversation when it is a generation (not an embedding) with
 * any messages, tools, parameters or finish reason; null otherwise. Never throws: text that is
 * not the JSON a convention promises is shown as the message's text.
 */
export function llmConversation(span: LlmSpanSource): LlmConversation | null {
  try {
    return build(span);
  } catch {
    return fallback(span);
  }
}

/** The first `cap` code points of `s`, or null when it has no more. */
function cut(s: string, cap: number): string | null {
  if (s.length <= cap) return null;
  let i = 0;
  for (let n = 0; n < cap && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return i < s.length ? s.slice(0, i) : null;
}

/** The conversation with every text (message, tool call arguments, part) cut to `cap` code points, flagged `truncated` when one was. */
export function capConversation(c: LlmConversation, cap: number): LlmConversation {
  let truncated = c.truncated === true;
  const capped = (s: string): string => {
    const short = cut(s, cap);
    if (short === null) return s;
    truncated = true;
    return short;
  };
  const capMessage = (m: LlmMessage): LlmMessage => {
    const out: LlmMessage = { ...m, content: capped(m.content) };
    if (m.tool_calls) out.tool_calls = m.tool_calls.map((t) => ({ ...t, arguments: capped(t.arguments) }));
    if (m.parts) out.parts = m.parts.map((p) => (p.text === undefined ? p : { ...p, text: capped(p.text) }));
    return out;
  };
  const out: LlmConversation = { ...c, messages: c.messages.map(capMessage), output_messages: c.output_messages.map(capMessage) };
  if (truncated) out.truncated = true;
  return out;
}

/**
 * A span view with its `llm` field. With `cap` (the trace view's SPAN_TEXT_CAP), long texts are
 * cut as the view's `input` and `output` are; GET /api/spans/{id} shows them whole.
 */
export function withLlm<S extends LlmSpanSource>(span: S, cap?: number): S & { llm: LlmConversation | null } {
  const llm = llmConversation(span);
  return { ...span, llm: llm && cap !== undefined ? capConversation(llm, cap) : llm };
}
