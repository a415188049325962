import type { LlmMessage, LlmParameters } from '../../model/messages.js';
import { indexedList, isRecord, jsonish, parseJson, parseStructured, stringList } from '../json.js';
import { addPrefixed } from '../parameters.js';
import { messageFrom, toolList, valueMessages } from '../shapes.js';
import type { MessageConvention, SpanReader } from '../source.js';

/**
 * OpenTelemetry GenAI semantic conventions, newest form first: `gen_ai.input.messages` /
 * `gen_ai.output.messages` / `gen_ai.system_instructions` (1.37+, also on the
 * `gen_ai.client.inference.operation.details` event), the flattened `gen_ai.prompt.N.*` /
 * `gen_ai.completion.N.*` (before 1.27, still OpenLLMetry's), the single `gen_ai.prompt` /
 * `gen_ai.completion` (1.26 content events) and the per-message events (1.27-1.36).
 */

const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';
const MESSAGE_EVENT = /^gen_ai\.(system|user|assistant|tool)\.message$/;
/** Event attributes that describe the event, not the message. */
const EVENT_META = new Set(['gen_ai.system', 'gen_ai.provider.name', 'event.name']);

/** `gen_ai.system_instructions`: a list of parts, or plain text. */
function systemMessages(v: unknown): LlmMessage[] {
  const value = jsonish(v);
  if (value === undefined || value === null || value === '') return [];
  return messageFrom({ role: 'system', content: value }, 'system');
}

/** The 1.37 form from attributes or the operation-details event; null when neither has it. */
function current(r: SpanReader): { input: LlmMessage[] | null; output: LlmMessage[] | null } | null {
  const fromAttrs = {
    input: r.get('gen_ai.input.messages'),
    system: r.get('gen_ai.system_instructions'),
    output: r.get('gen_ai.output.messages'),
  };
  const details = r.events(DETAILS_EVENT)[0]?.attributes;
  const source =
    fromAttrs.input !== undefined || fromAttrs.system !== undefined || fromAttrs.output !== undefined || !details
      ? fromAttrs
      : { input: details['gen_ai.input.messages'], system: details['gen_ai.system_instructions'], output: details['gen_ai.output.messages'] };
  if (source.input === undefined && source.system === undefined && source.output === undefined) return null;
  const input =
    source.input === undefined && source.system === undefined ? null : [...systemMessages(source.system), ...(valueMessages(source.input, 'user') ?? [])];
  return { input, output: valueMessages(source.output, 'assistant') };
}

/** OpenLLMetry's Python instrumentations store a list content as its JSON text: the parts, parsed back. */
function decodedContent(item: Record<string, unknown>): Record<string, unknown> {
  if (typeof item.content !== 'string') return item;
  const parts = parseStructured(item.content);
  const isParts = Array.isArray(parts) && parts.length > 0 && parts.every((p) => isRecord(p) && typeof p.type === 'string');
  return isParts ? { ...item, content: parts } : item;
}

/** Messages flattened under `prefix` (`gen_ai.prompt.0.role`, `gen_ai.completion.0.tool_calls.0.name`); null when none. */
export function flatMessages(r: SpanReader, prefix: string, role: string): LlmMessage[] | null {
  const items = indexedList(r.attrs, prefix);
  if (items.length === 0) return null;
  return items.flatMap((item) => messageFrom(isRecord(item) ? decodedContent(item) : item, role));
}

/** An event's body: JSON in `gen_ai.event.content` (Azure AI Inference, Semantic Kernel), else its attributes. */
function eventBody(attrs: Record<string, unknown>): Record<string, unknown> {
  const packed = attrs['gen_ai.event.content'];
  if (typeof packed === 'string') {
    const parsed = parseJson(packed);
    if (isRecord(parsed)) return parsed;
  }
  const fields = Object.entries(attrs).filter(([k]) => !EVENT_META.has(k));
  // Structured fields (tool_calls, message) arrive as JSON text; `content` stays exactly as sent.
  return Object.fromEntries(fields.map(([k, v]) => [k, k === 'content' ? v : jsonish(v)]));
}

function eventMessages(r: SpanReader, side: 'input' | 'output'): LlmMessage[] | null {
  const legacy = r.events(side === 'input' ? 'gen_ai.content.prompt' : 'gen_ai.content.completion')[0];
  if (legacy) {
    const v = valueMessages(legacy.attributes[side === 'input' ? 'gen_ai.prompt' : 'gen_ai.completion'], side === 'input' ? 'user' : 'assistant');
    if (v !== null) return v;
  }
  if (side === 'output') {
    const choices = r.events('gen_ai.choice');
    return choices.length > 0 ? choices.flatMap((e) => messageFrom(eventBody(e.attributes), 'assistant')) : null;
  }
  const events = r.events(MESSAGE_EVENT);
  if (events.length === 0) return null;
  return events.flatMap((e) => {
    const role = MESSAGE_EVENT.exec(e.name)?.[1] ?? 'user';
    return messageFrom({ role, ...eventBody(e.attributes) }, role);
  });
}

/** `gen_ai.request.*` parameters, shared by every convention that copies them (OpenLLMetry, AI SDK). */
export function genaiParameters(r: SpanReader): LlmParameters {
  const out: LlmParameters = {};
  addPrefixed(out, r.attrs, 'gen_ai.request.', ['model', 'encoding_formats']);
  return out;
}

export const genai: MessageConvention = {
  name: 'genai',
  turns(r) {
    const now = current(r);
    return {
      messages: now?.input ?? flatMessages(r, 'gen_ai.prompt', 'user') ?? valueMessages(r.get('gen_ai.prompt'), 'user') ?? eventMessages(r, 'input'),
      output_messages:
        now?.output ??
        flatMessages(r, 'gen_ai.completion', 'assistant') ??
        valueMessages(r.get('gen_ai.completion'), 'assistant') ??
        eventMessages(r, 'output'),
    };
  },
  tools: (r) => toolList(r.get('gen_ai.tool.definitions') ?? r.events(DETAILS_EVENT)[0]?.attributes['gen_ai.tool.definitions']),
  parameters: genaiParameters,
  finishReasons: (r) => stringList(r.get('gen_ai.response.finish_reasons')),
};
