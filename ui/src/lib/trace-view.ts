/** Helpers of the trace page (scores, feedback) and the traces list's score column. */
import type { Feedback, Score, TraceSpanView } from './types.js';

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
export function scoreBody(traceId: string, form: { name: string; value: string; reason: string; spanId: string | null }): { trace_id: string; name: string; value: number; reason?: string; span_id?: string; source: 'annotation' } | string {
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
