import type pg from 'pg';
import type { RateBucket, RateLimitStore, WindowCount } from '../rate-limits.js';

/** The buckets' names in the tables. */
const BUCKET_COLUMN: Record<RateBucket, string> = { ingest: 'ingest', query: 'query', evalRuns: 'eval_runs' };
const BUCKET_OF_COLUMN = new Map(Object.entries(BUCKET_COLUMN).map(([bucket, column]) => [column, bucket as RateBucket]));

/** The rate limiter's windows and projects' own limits in PostgreSQL (core/store/rate-limits.ts). */
export function createRateLimitStore(pool: pg.Pool): RateLimitStore {
  return {
    async addCounts(counts) {
      if (counts.length === 0) return [];
      const { rows } = await pool.query<{ project_id: string; bucket: string; window_start: Date; count: number }>(
        // A deleted project's counts are dropped: its deletion removes its rows, and no flush may bring one back.
        `INSERT INTO rate_limit_windows (project_id, bucket, window_start, count)
         SELECT u.* FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[]) AS u (project_id, bucket, window_start, count)
         WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id AND p.deleted_at IS NOT NULL)
         ON CONFLICT (project_id, bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
         RETURNING project_id, bucket, window_start, count`,
        [counts.map((c) => c.projectId), counts.map((c) => BUCKET_COLUMN[c.bucket]), counts.map((c) => c.windowStart), counts.map((c) => c.count)],
      );
      return rows.flatMap((row) => {
        const bucket = BUCKET_OF_COLUMN.get(row.bucket);
        return bucket ? [{ projectId: row.project_id, bucket, windowStart: row.window_start, count: row.count } satisfies WindowCount] : [];
      });
    },

    async windowTotal(projectId, bucket, windowStart) {
      const { rows } = await pool.query<{ count: number }>('SELECT count FROM rate_limit_windows WHERE project_id = $1 AND bucket = $2 AND window_start = $3', [
        projectId,
        BUCKET_COLUMN[bucket],
        windowStart,
      ]);
      return rows.length ? rows[0].count : 0;
    },

    async pruneWindows() {
      await pool.query(`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '10 minutes'`);
    },

    async projectLimits(projectId) {
      const { rows } = await pool.query<{ bucket: string; per_minute: number }>('SELECT bucket, per_minute FROM project_rate_limits WHERE project_id = $1', [
        projectId,
      ]);
      const own: Partial<Record<RateBucket, number>> = {};
      for (const row of rows) {
        const bucket = BUCKET_OF_COLUMN.get(row.bucket);
        if (bucket) own[bucket] = row.per_minute;
      }
      return own;
    },

    async setProjectLimit(projectId, bucket, perMinute) {
      if (perMinute === null) await pool.query('DELETE FROM project_rate_limits WHERE project_id = $1 AND bucket = $2', [projectId, BUCKET_COLUMN[bucket]]);
      else {
        await pool.query(
          `INSERT INTO project_rate_limits (project_id, bucket, per_minute) VALUES ($1, $2, $3)
           ON CONFLICT (project_id, bucket) DO UPDATE SET per_minute = EXCLUDED.per_minute`,
          [projectId, BUCKET_COLUMN[bucket], perMinute],
        );
      }
    },
  };
}
