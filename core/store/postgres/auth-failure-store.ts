import type pg from 'pg';
import type { AuthFailureStore, FailureCount, ThrottleKind } from '../auth-failures.js';

export type { AuthFailureStore };

/** The failed-authentication counts in PostgreSQL (core/store/auth-failures.ts). */
export function createAuthFailureStore(pool: pg.Pool): AuthFailureStore {
  return {
    async addFailures(counts, window, limits) {
      const { rows } = await pool.query<{ kind: ThrottleKind; subject: string; window_start: Date; count: number }>(
        `WITH added AS (
           INSERT INTO auth_failure_windows (kind, subject, window_start, count)
           SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[])
           ON CONFLICT (kind, subject, window_start) DO UPDATE SET count = auth_failure_windows.count + EXCLUDED.count
           RETURNING kind, subject, window_start, count
         )
         SELECT kind, subject, window_start, count FROM added
         UNION ALL
         SELECT kind, subject, window_start, count FROM auth_failure_windows
         WHERE window_start = $5 AND ((kind = 'address' AND $6::int > 0 AND count >= $6) OR (kind = 'prefix' AND $7::int > 0 AND count >= $7))`,
        [
          counts.map((c) => c.kind),
          counts.map((c) => c.subject),
          counts.map((c) => c.windowStart),
          counts.map((c) => c.count),
          window,
          limits.address,
          limits.prefix,
        ],
      );
      return rows.map((row) => ({ kind: row.kind, subject: row.subject, windowStart: row.window_start, count: row.count }) satisfies FailureCount);
    },

    async pruneWindows() {
      await pool.query(`DELETE FROM auth_failure_windows WHERE window_start < now() - interval '10 minutes'`);
    },
  };
}
