import type pg from 'pg';

/*
 * Rows as PostgreSQL returns them, and the one way their times become the API's: a view's row is
 * the view with its time fields as Dates (`timestamptz` columns), mapped back with ISO strings.
 */

/** A view's row: the ISO-string time fields `K` of the view are Dates here (a nullable one stays nullable). */
export type RowOf<V, K extends keyof V> = Omit<V, K> & { [P in K]: null extends V[P] ? Date | null : Date };

/** The view of a row selected with exactly the view's columns: its time fields `keys` as ISO strings, null kept. */
export function isoTimes<V, K extends keyof V>(row: RowOf<V, K>, keys: readonly K[]): V {
  const view: Record<string, unknown> = { ...row };
  for (const key of keys) view[key as string] = row[key]?.toISOString() ?? null;
  return view as V;
}

/** The record of something called over HTTP with headers (an agent, a custom scorer): its header names listed, sorted; its times as ISO strings. */
export function endpointRecord<R extends { headers: Record<string, string>; created_at: Date; updated_at: Date }>(
  row: R,
): Omit<R, 'created_at' | 'updated_at'> & { header_names: string[]; created_at: string; updated_at: string } {
  return { ...row, header_names: Object.keys(row.headers).sort(), created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** One page of a project's rows of `table`, newest first (`created_at`, then id), with the project's total. */
export async function newestFirstPage<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  table: string,
  columns: string,
  projectId: string,
  { limit, offset }: { limit: number; offset: number },
): Promise<{ rows: R[]; total: number }> {
  const [page, count] = await Promise.all([
    pool.query<R>(`SELECT ${columns} FROM ${table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [projectId, limit, offset]),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${table} WHERE project_id = $1`, [projectId]),
  ]);
  return { rows: page.rows, total: count.rows[0].total };
}
