/** The /feedback page's state in the URL, the API queries it makes, and how it reads queue scores and feedback. */
import type { Feedback, FeedbackType, ScoreConfig, TraceSpanView } from './types.js';
import { windowParams } from './filters.js';

export const TABS = ['queues', 'compare', 'given'] as const;
export type FeedbackTab = (typeof TABS)[number];

export const FEEDBACK_TYPES: readonly FeedbackType[] = ['rating', 'correction', 'preference'];
/** Preset time ranges of the given-feedback list, back from now. */
export const GIVEN_RANGES = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type GivenRange = keyof typeof GIVEN_RANGES;

/** Filters of the feedback already given (GET /api/feedback). */
export interface GivenFilters {
  type?: FeedbackType;
  trace?: string;
  source?: string;
  user?: string;
  range?: GivenRange;
  from?: string;
  to?: string;
  cursor?: string;
}

export interface FeedbackState {
  tab: FeedbackTab;
  /** Review queues: the selected queue and the item under review. */
  queue?: string;
  item?: string;
  /** Comparisons: which ones are listed and the one selected. */
  status: 'pending' | 'answered';
  comparison?: string;
  given: GivenFilters;
}

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const text = (v: string | null, max = 256) => {
  const t = v?.trim();
  return t ? t.slice(0, max) : undefined;
};

/** Reads the page's state from its query string; values that make no sense are dropped. */
export function parseFeedbackState(q: URLSearchParams): FeedbackState {
  const tab = (TABS as readonly string[]).includes(q.get('tab') ?? '') ? (q.get('tab') as FeedbackTab) : 'queues';
  const id = (k: string) => {
    const v = q.get(k);
    return v && ID.test(v) ? v : undefined;
  };
  const given: GivenFilters = {};
  const type = q.get('type');
  if (type && (FEEDBACK_TYPES as readonly string[]).includes(type)) given.type = type as FeedbackType;
  given.trace = text(q.get('trace'), 128);
  given.source = text(q.get('source'));
  given.user = text(q.get('user'));
  Object.assign(
    given,
    windowParams(q, (r): r is GivenRange => Object.hasOwn(GIVEN_RANGES, r)),
  );
  for (const k of Object.keys(given) as Array<keyof GivenFilters>) if (given[k] === undefined) delete given[k];
  return { tab, queue: id('queue'), item: id('item'), status: q.get('status') === 'answered' ? 'answered' : 'pending', comparison: id('comparison'), given };
}

/** The query string for a state: only what differs from the defaults, and only the tab's own keys. */
export function feedbackStateToQuery(s: FeedbackState): URLSearchParams {
  const q = new URLSearchParams();
  if (s.tab !== 'queues') q.set('tab', s.tab);
  if (s.tab === 'queues') {
    if (s.queue) q.set('queue', s.queue);
    if (s.queue && s.item) q.set('item', s.item);
  } else if (s.tab === 'compare') {
    if (s.status !== 'pending') q.set('status', s.status);
    if (s.comparison) q.set('comparison', s.comparison);
  } else {
    const g = s.given;
    if (g.type) q.set('type', g.type);
    if (g.trace) q.set('trace', g.trace);
    if (g.source) q.set('source', g.source);
    if (g.user) q.set('user', g.user);
    if (g.range) q.set('range', g.range);
    else {
      if (g.from) q.set('from', g.from);
      if (g.to) q.set('to', g.to);
    }
    if (g.cursor) q.set('cursor', g.cursor);
  }
  return q;
}

/** `/feedback?...` for a state. */
export function feedbackHref(s: FeedbackState): string {
  const q = feedbackStateToQuery(s).toString();
  return q ? `/feedback?${q}` : '/feedback';
}

export const GIVEN_LIMIT = 25;

/** GET /api/feedback's query for the given-feedback filters; a preset range is resolved against `now`. */
export function givenApiQuery(g: GivenFilters, now = Date.now(), limit = GIVEN_LIMIT): URLSearchParams {
  const q = new URLSearchParams({ limit: String(limit) });
  if (g.type) q.set('type', g.type);
  if (g.trace) q.set('trace_id', g.trace);
  if (g.source) q.set('source', g.source);
  if (g.user) q.set('user_id', g.user);
  if (g.range) q.set('from', new Date(now - GIVEN_RANGES[g.range]).toISOString());
  else {
    if (g.from) q.set('from', new Date(g.from).toISOString());
    if (g.to) q.set('to', new Date(g.to).toISOString());
  }
  if (g.cursor) q.set('cursor', g.cursor);
  return q;
}

export function isGivenFiltered(g: GivenFilters): boolean {
  return Boolean(g.type || g.trace || g.source || g.user || g.range || g.from || g.to);
}

/** A value a reviewer gives for one queue score, as the complete endpoint takes it, or why it is refused. */
export function scoreInput(config: ScoreConfig, raw: string | number | null | undefined): number | boolean | string | { problem: string } | undefined {
  // A number field bound in Svelte gives a number (or null when empty), radios a string.
  const v = raw == null ? '' : String(raw).trim();
  if (v === '') return undefined;
  if (config.type === 'boolean') {
    if (v === 'true' || v === 'false') return v === 'true';
    return { problem: `${config.name}: choose yes or no` };
  }
  if (config.type === 'categorical') {
    if (config.categories && Object.hasOwn(config.categories, v)) return v;
    return { problem: `${config.name}: choose one of ${categoryLabels(config).join(', ')}` };
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n < config.min || n > config.max) return { problem: `${config.name}: give a number from ${config.min} to ${config.max}` };
  return n;
}

/** The `scores` of a completion from the form's values, with every problem found. */
export function completionScores(
  configs: readonly ScoreConfig[],
  values: Record<string, string | number | null | undefined>,
): { scores: Record<string, number | boolean | string>; problems: string[] } {
  const scores: Record<string, number | boolean | string> = {};
  const problems: string[] = [];
  for (const c of configs) {
    const v = scoreInput(c, values[c.name]);
    if (v === undefined) continue;
    if (typeof v === 'object') problems.push(v.problem);
    else scores[c.name] = v;
  }
  return { scores, problems };
}

/** Whole-number steps for a numeric score with an integer range wider than 1 (1..5 stars); else hundredths. */
export function scoreStep(c: ScoreConfig): number {
  return Number.isInteger(c.min) && Number.isInteger(c.max) && c.max - c.min > 1 ? 1 : 0.01;
}

/**
 * A categorical score's labels from the lowest stored value to the highest (ties by label): the
 * order the queue gave them, since a list's labels are stored evenly spaced in list order. The
 * map's own key order is not it: PostgreSQL's jsonb keeps keys shortest first ("ok", "bad", "good").
 */
export function categoryLabels(c: Pick<ScoreConfig, 'categories'>): string[] {
  return Object.entries(c.categories ?? {})
    .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
    .map(([label]) => label);
}

/** How a score is described next to its input: its range or its choices. */
export function scoreHint(c: ScoreConfig): string {
  if (c.type === 'boolean') return 'yes or no';
  if (c.type === 'categorical') return categoryLabels(c).join(' / ');
  return `${c.min} to ${c.max}`;
}

/** The trace's root span: the first span (in start order) whose parent is not among the spans. */
export function rootSpan<T extends Pick<TraceSpanView, 'span_id' | 'parent_span_id'>>(spans: readonly T[]): T | null {
  const ids = new Set(spans.map((s) => s.span_id));
  return spans.find((s) => !s.parent_span_id || !ids.has(s.parent_span_id)) ?? null;
}

/** A short text for a list: the first `max` characters on one line. */
export function excerpt(text: string | null | undefined, max = 120): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** What a feedback says, in a few words, for the given-feedback list. */
export function feedbackSummary(f: Feedback): string {
  if (f.type === 'rating') {
    const r = f.rating;
    const value = r.thumbs ? `thumbs ${r.thumbs}` : `${Number(r.value.toFixed(3))}`;
    return `${r.name}: ${value}${r.comment ? `. ${excerpt(r.comment, 80)}` : ''}`;
  }
  if (f.type === 'correction') return `corrected to "${excerpt(f.correction.corrected, 100)}"`;
  const p = f.preference;
  if (p.tie) return `tie between "${excerpt(p.chosen, 50)}" and "${excerpt(p.rejected, 50)}"`;
  return `preferred "${excerpt(p.chosen, 50)}" over "${excerpt(p.rejected, 50)}"${p.reason ? `. ${excerpt(p.reason, 60)}` : ''}`;
}

/** The traces a feedback is about: its own and, for a preference, the two compared. */
export function feedbackTraces(f: Feedback): string[] {
  const ids = [f.trace_id];
  if (f.type === 'preference') ids.push(f.preference.chosen_trace_id, f.preference.rejected_trace_id);
  return [...new Set(ids.filter((id): id is string => Boolean(id)))];
}
