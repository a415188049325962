/** The traces page's filters, kept in the URL so a filtered list is a link to share. */

export const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangeKey = keyof typeof RANGES;

export interface TraceFilters {
  status?: 'ok' | 'error';
  /** Case-insensitive substring of the trace name. */
  name?: string;
  /** A preset time range back from now; `from` / `to` (ISO 8601) give a fixed one instead. */
  range?: RangeKey;
  from?: string;
  to?: string;
  /** Keyset page: the API's `next_cursor` of the previous page. */
  cursor?: string;
  /** Page size, 1-1000 (the API's bound); the default is 50. */
  limit?: number;
}

export const DEFAULT_LIMIT = 50;

const isRange = (v: string): v is RangeKey => Object.hasOwn(RANGES, v);
const isIsoTime = (v: string): boolean => !Number.isNaN(Date.parse(v));

/** Reads filters from a query string; values that make no sense are dropped, not guessed at. */
export function parseFilters(q: URLSearchParams): TraceFilters {
  const f: TraceFilters = {};
  const status = q.get('status');
  if (status === 'ok' || status === 'error') f.status = status;
  const name = q.get('name')?.trim();
  if (name) f.name = name.slice(0, 1024);
  const range = q.get('range');
  if (range && isRange(range)) f.range = range;
  const from = q.get('from');
  if (from && isIsoTime(from)) f.from = from;
  const to = q.get('to');
  if (to && isIsoTime(to)) f.to = to;
  const cursor = q.get('cursor');
  if (cursor && /^[A-Za-z0-9_-]{1,512}$/.test(cursor)) f.cursor = cursor;
  const limit = Number(q.get('limit'));
  if (Number.isInteger(limit) && limit >= 1 && limit <= 1000 && limit !== DEFAULT_LIMIT) f.limit = limit;
  return f;
}

/** The query string of the page's URL: only the filters set, in a fixed order. */
export function filtersToQuery(f: TraceFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.name) q.set('name', f.name);
  if (f.range) q.set('range', f.range);
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (f.limit && f.limit !== DEFAULT_LIMIT) q.set('limit', String(f.limit));
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** The GET /api/traces query for these filters; a preset range is resolved against `now`. */
export function apiTraceQuery(f: TraceFilters, now = Date.now()): URLSearchParams {
  const q = new URLSearchParams();
  q.set('limit', String(f.limit ?? DEFAULT_LIMIT));
  if (f.status) q.set('status', f.status);
  if (f.name) q.set('name', f.name);
  if (f.range) q.set('start_time', new Date(now - RANGES[f.range]).toISOString());
  else if (f.from) q.set('start_time', new Date(f.from).toISOString());
  if (!f.range && f.to) q.set('end_time', new Date(f.to).toISOString());
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** Whether any filter narrows the list (the empty state then says "no match" rather than "no traces yet"). */
export function isFiltered(f: TraceFilters): boolean {
  return Boolean(f.status || f.name || f.range || f.from || f.to);
}
