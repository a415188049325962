/** The sessions list's filters as they stand in the page's URL (and go to GET /api/sessions as they are). */
export interface SessionFilters {
  user_id?: string;
  /** 'true' keeps sessions with a failed trace. */
  has_errors?: 'true';
  /** Sessions whose mean score of `score_name` is below `score_below` (0..1, as typed); both or neither. */
  score_name?: string;
  score_below?: string;
  cursor?: string;
}

/** A score threshold as the API takes it: a number from 0 to 1. */
export const isThreshold = (v: string): boolean => v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0 && Number(v) <= 1;

export function sessionFilters(q: URLSearchParams): SessionFilters {
  const f: SessionFilters = {};
  const user = q.get('user_id')?.trim();
  if (user) f.user_id = user;
  if (q.get('has_errors') === 'true') f.has_errors = 'true';
  const scoreName = q.get('score_name')?.trim();
  const below = q.get('score_below')?.trim();
  if (scoreName && below && isThreshold(below)) {
    f.score_name = scoreName.slice(0, 256);
    f.score_below = below;
  }
  const cursor = q.get('cursor');
  if (cursor) f.cursor = cursor;
  return f;
}

export function sessionFiltersQuery(f: SessionFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.user_id) q.set('user_id', f.user_id);
  if (f.has_errors) q.set('has_errors', f.has_errors);
  if (f.score_name && f.score_below !== undefined) {
    q.set('score_name', f.score_name);
    q.set('score_below', f.score_below);
  }
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** A session's page. */
export const sessionHref = (id: string): string => `/sessions/${encodeURIComponent(id)}`;
