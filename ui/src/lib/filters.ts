/** The traces page's filters, kept in the URL so a filtered list is a link to share. */
import type { ComponentType } from './types.js';
import { isCursorText } from '../../../core/model/id-rules.js';
import { TRACE_SORTS, TRACE_SOURCES, type TraceSortKey, type TraceSource } from '../../../core/model/trace.js';

export const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangeKey = keyof typeof RANGES;

/** The component types GET /api/traces?component_type= takes (core/model/span.ts COMPONENT_TYPES). */
export const COMPONENT_TYPES = [
  'generation',
  'tool',
  'retrieval',
  'reasoning',
  'planning',
  'routing',
  'memory',
  'prompt',
  'simulated_user',
] as const satisfies readonly ComponentType[];

export interface TraceFilters {
  status?: 'ok' | 'error';
  /** Case-insensitive substring of the trace name. */
  name?: string;
  /** Case-insensitive substring of the trace's name or id, or of a span's name, input or output (docs/api.md). */
  search?: string;
  /** Some span has exactly this model. */
  model?: string;
  /** Some span has this component type. */
  component?: ComponentType;
  /** The trace lasted at least this long. */
  minDurationMs?: number;
  /** true: some span errored; false: none did. */
  hasErrors?: boolean;
  /** The trace's latest score named `scoreName` is below `scoreBelow` (0..1); both or neither. */
  scoreName?: string;
  scoreBelow?: number;
  /** The trace belongs to this session / end user, its service runs in this environment, it carries this tag (docs/api.md, "Sessions"). */
  sessionId?: string;
  userId?: string;
  environment?: string;
  tag?: string;
  /** A preset time range back from now; `from` / `to` (ISO 8601) give a fixed one instead. */
  range?: RangeKey;
  from?: string;
  to?: string;
  /** Production traffic, evaluation runs' cases or online judges' traces (docs/api.md). */
  source?: TraceSource;
  /** The list's order: newest first when absent; `sortScore` names the score of `sort: 'score'`. */
  sort?: TraceSortKey;
  order?: 'asc' | 'desc';
  sortScore?: string;
  /** The columns shown, when not the default ones (trace-columns.ts). */
  cols?: string;
  /** Keyset page: the API's `next_cursor` of the previous page. */
  cursor?: string;
  /** Page size, 1-1000 (the API's bound); the default is 50. */
  limit?: number;
}

export const DEFAULT_LIMIT = 50;
/** The API's bounds on the text filters. */
const MAX_NAME = 1024;
const MAX_SHORT = 256;
const MAX_DURATION_MS = 315_360_000_000;

const isRange = (v: string): v is RangeKey => Object.hasOwn(RANGES, v);
const isIsoTime = (v: string): boolean => !Number.isNaN(Date.parse(v));
const isComponent = (v: string): v is ComponentType => (COMPONENT_TYPES as readonly string[]).includes(v);

const UNITS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * A duration typed by a person: `250ms`, `2s`, `1.5 s`, `3m`, `2 min`, `1h`; a bare number is
 * milliseconds. Null when it is not one.
 */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h)?\s*$/i.exec(text);
  if (!m) return null;
  const ms = Math.round(Number(m[1]) * UNITS[(m[2] ?? 'ms').toLowerCase()]);
  return Number.isSafeInteger(ms) && ms <= MAX_DURATION_MS ? ms : null;
}

/** A duration as the filter field shows it back: whole seconds as `2s`, else milliseconds. */
export function durationInput(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 100 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A score threshold in 0..1, or null. */
function threshold(v: string | null): number | null {
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

/** The exact-value filters of sessions and tags: URL and API parameter, and the filter's key. */
const SESSION_PARAMS = [
  ['session_id', 'sessionId'],
  ['user_id', 'userId'],
  ['environment', 'environment'],
  ['tag', 'tag'],
] as const satisfies ReadonlyArray<readonly [string, keyof TraceFilters]>;

/** Reads filters from a query string; values that make no sense are dropped, not guessed at. */
export function parseFilters(q: URLSearchParams): TraceFilters {
  const f: TraceFilters = {};
  const status = q.get('status');
  if (status === 'ok' || status === 'error') f.status = status;
  const name = q.get('name')?.trim();
  if (name) f.name = name.slice(0, MAX_NAME);
  const search = q.get('search')?.trim();
  if (search) f.search = search.slice(0, MAX_SHORT);
  const model = q.get('model')?.trim();
  if (model) f.model = model.slice(0, MAX_SHORT);
  const component = q.get('component_type');
  if (component && isComponent(component)) f.component = component;
  const minDuration = q.get('min_duration_ms');
  if (minDuration && /^\d+$/.test(minDuration) && Number(minDuration) <= MAX_DURATION_MS) f.minDurationMs = Number(minDuration);
  const hasErrors = q.get('has_errors');
  if (hasErrors === 'true' || hasErrors === 'false') f.hasErrors = hasErrors === 'true';
  const scoreName = q.get('score_name')?.trim();
  const scoreBelow = threshold(q.get('score_below'));
  if (scoreName && scoreBelow !== null) {
    f.scoreName = scoreName.slice(0, MAX_SHORT);
    f.scoreBelow = scoreBelow;
  }
  for (const [param, key] of SESSION_PARAMS) {
    const v = q.get(param)?.trim();
    if (v) f[key] = v.slice(0, MAX_SHORT);
  }
  const source = q.get('source');
  if (source && (TRACE_SOURCES as readonly string[]).includes(source)) f.source = source as TraceSource;
  const sort = q.get('sort');
  const sortScore = q.get('sort_score')?.trim();
  if (sort && sort !== 'time' && (TRACE_SORTS as readonly string[]).includes(sort) && (sort !== 'score' || sortScore)) {
    f.sort = sort as TraceSortKey;
    if (sort === 'score') f.sortScore = sortScore!.slice(0, MAX_SHORT);
  }
  if (q.get('order') === 'asc') f.order = 'asc';
  const cols = q.get('cols');
  if (cols && /^[a-z_,]{1,200}$/.test(cols)) f.cols = cols;
  Object.assign(f, windowParams(q, isRange));
  const limit = Number(q.get('limit'));
  if (Number.isInteger(limit) && limit >= 1 && limit <= 1000 && limit !== DEFAULT_LIMIT) f.limit = limit;
  return f;
}

/** `q` with the values of `f` under `keys` that are set (not empty), in that order; returns `q`. */
export function setParams<T extends object>(q: URLSearchParams, f: T, keys: ReadonlyArray<keyof T & string>): URLSearchParams {
  for (const k of keys) {
    const v = f[k];
    if (v) q.set(k, String(v));
  }
  return q;
}

/**
 * A list's time window and place in its URL: `range` (one `isRange` knows), `from` and `to` (times)
 * and `cursor`, each kept only when valid.
 */
export function windowParams<R extends string>(q: URLSearchParams, isRange: (v: string) => v is R): { range?: R; from?: string; to?: string; cursor?: string } {
  const w: { range?: R; from?: string; to?: string; cursor?: string } = {};
  const range = q.get('range');
  if (range && isRange(range)) w.range = range;
  const from = q.get('from');
  if (from && isIsoTime(from)) w.from = from;
  const to = q.get('to');
  if (to && isIsoTime(to)) w.to = to;
  const cursor = q.get('cursor');
  if (cursor && isCursorText(cursor)) w.cursor = cursor;
  return w;
}

/** The filters both the page's URL and the API name the same way, in a fixed order. */
function setCommon(q: URLSearchParams, f: TraceFilters): void {
  if (f.search) q.set('search', f.search);
  if (f.status) q.set('status', f.status);
  if (f.name) q.set('name', f.name);
  if (f.model) q.set('model', f.model);
  if (f.component) q.set('component_type', f.component);
  if (f.minDurationMs !== undefined) q.set('min_duration_ms', String(f.minDurationMs));
  if (f.hasErrors !== undefined) q.set('has_errors', String(f.hasErrors));
  if (f.scoreName && f.scoreBelow !== undefined) {
    q.set('score_name', f.scoreName);
    q.set('score_below', String(f.scoreBelow));
  }
  for (const [param, key] of SESSION_PARAMS) if (f[key]) q.set(param, f[key]);
  if (f.source) q.set('source', f.source);
  if (f.sort) q.set('sort', f.sort);
  if (f.sort === 'score' && f.sortScore) q.set('sort_score', f.sortScore);
  if (f.order === 'asc') q.set('order', 'asc');
}

/** The query string of the page's URL: only the filters set, in a fixed order. */
export function filtersToQuery(f: TraceFilters): URLSearchParams {
  const q = new URLSearchParams();
  setCommon(q, f);
  if (f.range) q.set('range', f.range);
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (f.limit && f.limit !== DEFAULT_LIMIT) q.set('limit', String(f.limit));
  if (f.cols) q.set('cols', f.cols);
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** The GET /api/traces query for these filters; a preset range is resolved against `now`. */
export function apiTraceQuery(f: TraceFilters, now = Date.now()): URLSearchParams {
  const q = new URLSearchParams();
  q.set('limit', String(f.limit ?? DEFAULT_LIMIT));
  setCommon(q, f);
  if (f.range) q.set('start_time', new Date(now - RANGES[f.range]).toISOString());
  else if (f.from) q.set('start_time', new Date(f.from).toISOString());
  if (!f.range && f.to) q.set('end_time', new Date(f.to).toISOString());
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** Whether any filter narrows the list (the empty state then says "no match" rather than "no traces yet"). */
export function isFiltered(f: TraceFilters): boolean {
  return Boolean(
    f.status ||
    f.name ||
    f.search ||
    f.model ||
    f.component ||
    f.minDurationMs !== undefined ||
    f.hasErrors !== undefined ||
    f.scoreName ||
    SESSION_PARAMS.some(([, key]) => f[key]) ||
    f.source ||
    f.range ||
    f.from ||
    f.to,
  );
}
