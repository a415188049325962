/** Helpers of the trace page (scores, feedback, a generation's conversation) and the traces list's score column. */
import type { Feedback, LlmConversation, Score, TraceSpanView } from './types.js';

export type ScoreBand = 'excellent' | 'good' | 'fair' | 'poor';

/** The SPEC's rating bands: 0.9-1 excellent, 0.7-0.9 good, 0.5-0.7 fair, below 0.5 poor. */
export function scoreBand(value: number): ScoreBand {
  if (value >= 0.9) return 'excellent';
  if (value >= 0.7) return 'good';
  if (value >= 0.5) return 'fair';
  return 'poor';
}

/** A score's value as shown: at most three decimals. */
export const formatScore = (value: number): string => String(Number(value.toFixed(3)));

/** The latest score of each name (the list is newest first, as GET /api/scores answers). */
export function latestByName(scores: readonly Score[]): Score[] {
  const seen = new Map<string, Score>();
  for (const s of scores) if (!seen.has(s.name)) seen.set(s.name, s);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The span a trace-level correction corrects: the first span without a parent, else the first span. */
export function rootSpan<S extends Pick<TraceSpanView, 'parent_span_id'>>(spans: readonly S[]): S | null {
  return spans.find((s) => s.parent_span_id === null) ?? spans[0] ?? null;
}

/** One line saying what a feedback is, for its list entry. */
export function feedbackHeadline(f: Feedback): string {
  switch (f.type) {
    case 'rating': {
      const what = f.rating.thumbs ? `thumbs ${f.rating.thumbs}` : formatScore(f.rating.value);
      return f.rating.name === 'rating' ? `Rating: ${what}` : `Rating ${f.rating.name}: ${what}`;
    }
    case 'correction':
      return f.span_id ? `Correction of span ${f.span_id}` : 'Correction';
    case 'preference':
      return f.preference.tie ? 'Preference: a tie' : 'Preference';
  }
}

/** The score body POST /api/scores takes from the trace page's form; a sentence when the form is not valid. */
export function scoreBody(
  traceId: string,
  form: { name: string; value: string; reason: string; spanId: string | null },
): { trace_id: string; name: string; value: number; reason?: string; span_id?: string; source: 'annotation' } | string {
  const name = form.name.trim();
  if (!name) return 'Give the score a name, e.g. quality.';
  if (form.value.trim() === '') return 'Give a value from 0 to 1.';
  const value = Number(form.value);
  if (!Number.isFinite(value) || value < 0 || value > 1) return 'The value is a number from 0 to 1 (e.g. 0.8).';
  const body: ReturnType<typeof scoreBody> = { trace_id: traceId, name, value, source: 'annotation' };
  if (form.reason.trim()) body.reason = form.reason.trim();
  if (form.spanId) body.span_id = form.spanId;
  return body;
}

/** Tool call names by call id, over a conversation's prompt and response: a tool result names the call it answers. */
export function toolCallNames(llm: Pick<LlmConversation, 'messages' | 'output_messages'>): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of [...llm.messages, ...llm.output_messages]) for (const c of m.tool_calls ?? []) if (c.id) names.set(c.id, c.name);
  return names;
}

/** Ids of the calls a `tool` message of the conversation answers. */
export function answeredCalls(llm: Pick<LlmConversation, 'messages' | 'output_messages'>): Set<string> {
  return new Set([...llm.messages, ...llm.output_messages].flatMap((m) => (m.role === 'tool' && m.tool_call_id ? [m.tool_call_id] : [])));
}

/** Text holding a JSON object or array, pretty-printed (two spaces); null for any other text. */
export function prettyJson(text: string): string | null {
  const t = text.trim();
  if (t[0] !== '{' && t[0] !== '[') return null;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return null;
  }
}

/** A tool call's arguments as shown: JSON pretty-printed (two spaces), anything else exactly as sent. */
export function prettyArguments(args: string): string {
  return prettyJson(args) ?? args;
}

/** A request parameter's value as shown: strings as they are, anything else as JSON. */
export function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** The element id of a tool call on the trace page (call ids may hold any character). */
export function toolCallAnchor(spanId: string, callId: string): string {
  return `call-${spanId}-${callId}`.replace(/[^A-Za-z0-9_-]/g, '_');
}
