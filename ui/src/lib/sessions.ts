/** The sessions list's filters as they stand in the page's URL (and go to GET /api/sessions as they are). */
export interface SessionFilters {
  user_id?: string;
  /** 'true' keeps sessions with a failed trace. */
  has_errors?: 'true';
  cursor?: string;
}

export function sessionFilters(q: URLSearchParams): SessionFilters {
  const f: SessionFilters = {};
  const user = q.get('user_id')?.trim();
  if (user) f.user_id = user;
  if (q.get('has_errors') === 'true') f.has_errors = 'true';
  const cursor = q.get('cursor');
  if (cursor) f.cursor = cursor;
  return f;
}

export function sessionFiltersQuery(f: SessionFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.user_id) q.set('user_id', f.user_id);
  if (f.has_errors) q.set('has_errors', f.has_errors);
  if (f.cursor) q.set('cursor', f.cursor);
  return q;
}

/** A session's page. */
export const sessionHref = (id: string): string => `/sessions/${encodeURIComponent(id)}`;
