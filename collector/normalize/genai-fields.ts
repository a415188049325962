import type { Attributes, RawSpan, RawSpanEvent } from '../../core/model/raw-span.js';
import { hasIndexed, indexedList } from './flat-list.js';
import { firstIdent, firstTokens, get, isRecord, jsonish, parseJson, safeJson, text } from './values.js';

/**
 * Readers for the OpenTelemetry GenAI attributes and events. Shared because OpenLLMetry and the
 * Vercel AI SDK emit the same gen_ai.* keys next to their own.
 */

/** The model that answered, else the one requested. */
export function genaiModel(attrs: Attributes): string | null {
  return firstIdent(get(attrs, 'gen_ai.response.model'), get(attrs, 'gen_ai.request.model'));
}

/** Current names first, then the pre-1.27 `prompt_tokens` / `completion_tokens`. */
export function genaiTokens(attrs: Attributes): { input: number | null; output: number | null } {
  return {
    input: firstTokens(attrs, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens']),
    output: firstTokens(attrs, ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens']),
  };
}

const MESSAGE_EVENT = /^gen_ai\.(system|user|assistant|tool)\.message$/;
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';
/** Event attributes that describe the event, not the message. */
const EVENT_META = new Set(['gen_ai.system', 'gen_ai.provider.name', 'event.name']);

function eventsOf(raw: RawSpan): RawSpanEvent[] {
  return Array.isArray(raw.events) ? raw.events.filter((e) => isRecord(e) && typeof e.name === 'string') : [];
}

function eventAttrs(e: RawSpanEvent): Attributes {
  return isRecord(e.attributes) ? e.attributes : {};
}

/**
 * An event's body. Log-style events carry it as JSON in `gen_ai.event.content` (Azure AI
 * Inference, Semantic Kernel); span-event exporters put body fields straight into attributes.
 */
function eventBody(e: RawSpanEvent): Record<string, unknown> {
  const attrs = eventAttrs(e);
  const packed = get(attrs, 'gen_ai.event.content');
  if (typeof packed === 'string') {
    const parsed = parseJson(packed);
    if (isRecord(parsed)) return parsed;
  }
  // Structured fields (tool_calls, message) arrive as JSON text; `content` stays exactly as sent.
  const fields = Object.entries(attrs).filter(([k]) => !EVENT_META.has(k));
  return Object.fromEntries(fields.map(([k, v]) => [k, k === 'content' ? v : jsonish(v)]));
}

/** True when the span has any GenAI content event (per-message, choice, or 1.26 content events). */
export function hasGenaiEvents(raw: RawSpan): boolean {
  return eventsOf(raw).some(
    (e) => MESSAGE_EVENT.test(e.name) || e.name === 'gen_ai.choice' || e.name.startsWith('gen_ai.content.') || e.name === DETAILS_EVENT,
  );
}

/** `gen_ai.system_instructions` joined in front of the input messages, as the model saw them. */
function withSystem(messages: unknown, system: unknown): string | null {
  if (system === undefined || system === null) return text(messages);
  const sys = jsonish(system);
  const msgs = messages === undefined || messages === null ? [] : jsonish(messages);
  if (!Array.isArray(msgs)) return text(messages);
  return safeJson([{ role: 'system', parts: Array.isArray(sys) ? sys : [{ type: 'text', content: sys }] }, ...(msgs as unknown[])]);
}

function listText(list: unknown[]): string | null {
  return list.length > 0 ? safeJson(list) : null;
}

function fromEvents(raw: RawSpan, side: 'input' | 'output'): string | null {
  const events = eventsOf(raw);
  const details = events.find((e) => e.name === DETAILS_EVENT);
  if (details) {
    const a = eventAttrs(details);
    const v = side === 'input' ? withSystem(get(a, 'gen_ai.input.messages'), get(a, 'gen_ai.system_instructions')) : text(get(a, 'gen_ai.output.messages'));
    if (v !== null) return v;
  }
  const legacy = events.find((e) => e.name === (side === 'input' ? 'gen_ai.content.prompt' : 'gen_ai.content.completion'));
  if (legacy) {
    const v = text(get(eventAttrs(legacy), side === 'input' ? 'gen_ai.prompt' : 'gen_ai.completion'));
    if (v !== null) return v;
  }
  if (side === 'input') {
    const messages = events.flatMap((e) => {
      const m = MESSAGE_EVENT.exec(e.name);
      return m ? [{ role: m[1], ...eventBody(e) }] : [];
    });
    return listText(messages);
  }
  return listText(events.filter((e) => e.name === 'gen_ai.choice').map(eventBody));
}

/**
 * The prompt: `gen_ai.input.messages` (with system instructions), else the pre-1.37 indexed
 * `gen_ai.prompt.N.*`, else a single `gen_ai.prompt`, else the span's GenAI events.
 */
export function genaiInput(raw: RawSpan, attrs: Attributes): string | null {
  const messages = get(attrs, 'gen_ai.input.messages');
  const system = get(attrs, 'gen_ai.system_instructions');
  if (messages !== undefined || system !== undefined) return withSystem(messages, system);
  return listText(indexedList(attrs, 'gen_ai.prompt')) ?? text(get(attrs, 'gen_ai.prompt')) ?? fromEvents(raw, 'input');
}

/** The response, in the same order of preference as {@link genaiInput}. */
export function genaiOutput(raw: RawSpan, attrs: Attributes): string | null {
  return (
    text(get(attrs, 'gen_ai.output.messages')) ??
    listText(indexedList(attrs, 'gen_ai.completion')) ??
    text(get(attrs, 'gen_ai.completion')) ??
    fromEvents(raw, 'output')
  );
}

/** True when the span carries GenAI message content in any of its forms. */
export function hasGenaiContent(raw: RawSpan, attrs: Attributes): boolean {
  return (
    get(attrs, 'gen_ai.input.messages') !== undefined ||
    get(attrs, 'gen_ai.output.messages') !== undefined ||
    hasIndexed(attrs, 'gen_ai.prompt') ||
    hasIndexed(attrs, 'gen_ai.completion') ||
    hasGenaiEvents(raw)
  );
}
