import type { Attributes, RawSpan } from '../../core/model/raw-span.js';
import type { SpanStatus } from '../../core/model/span.js';
import { get, isRecord, lowerOf, safeJson, text, tryJson, UNSERIALIZABLE } from './values.js';
import { wellFormedJsonText } from '../../core/model/well-formed-json.js';
import { setDataKey } from '../../core/model/data-key.js';

/** The convention-independent SpanRecord fields: attribute maps, events, status. */

/** Every attribute as text: strings as-is, numbers and booleans via String(), structures as JSON. */
export function stringifyAttributes(attrs: unknown): Record<string, string> {
  if (!isRecord(attrs)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) setDataKey(out, k, text(v) ?? '');
  return out;
}

function eventList(raw: RawSpan): Array<{ name: string; time: number; attributes: Attributes }> {
  if (!Array.isArray(raw.events)) return [];
  return raw.events.filter(isRecord).map((e) => ({
    name: typeof e.name === 'string' ? e.name : String(e.name ?? ''),
    time: typeof e.timeMs === 'number' && Number.isFinite(e.timeMs) ? e.timeMs : 0,
    attributes: isRecord(e.attributes) ? e.attributes : {},
  }));
}

/** Span events as the stored JSON array of {name, time (ms), attributes}. */
export function eventsJson(raw: RawSpan): string {
  const events = eventList(raw);
  // Lone surrogates as U+FFFD, as every other text is stored (and as protobuf's UTF-8 decoding gives them).
  const whole = tryJson(events);
  if (whole !== null) return wellFormedJsonText(whole);
  // Some attribute cannot be serialized: replace just those values so the rest survives.
  const sanitize = (a: Attributes) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, tryJson(v) === null ? UNSERIALIZABLE : v]));
  return wellFormedJsonText(safeJson(events.map((e) => ({ ...e, attributes: sanitize(e.attributes) }))));
}

/**
 * Error when OTel status says so, when an `exception` event was recorded (many SDKs record the
 * exception but leave status unset), or when a SPEC tool span reports `tool_status: error`.
 * The message prefers the status text, then the exception's message, then its type.
 */
export function statusOf(raw: RawSpan, attrs: Attributes): { status: SpanStatus; status_message: string } {
  const exception = eventList(raw).find((e) => e.name === 'exception');
  const toolError = lowerOf(get(attrs, 'tool_status')) === 'error';
  const statusError = isRecord(raw.status) && raw.status.code === 'error';
  if (!statusError && !exception && !toolError) return { status: 'ok', status_message: '' };
  const candidates = [
    isRecord(raw.status) ? raw.status.message : undefined,
    exception ? get(exception.attributes, 'exception.message') : undefined,
    exception ? get(exception.attributes, 'exception.type') : undefined,
    get(attrs, 'error_message'),
  ];
  for (const c of candidates) {
    const t = text(c);
    if (t !== null && t !== '') return { status: 'error', status_message: t };
  }
  return { status: 'error', status_message: '' };
}
