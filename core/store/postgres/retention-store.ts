import type pg from 'pg';
import type { RetentionStore } from '../retention.js';

export type { RetentionStore };

/** Rows per delete statement. */
const BATCH = 5_000;

/** Each kind of row about traces and when it counts from. */
const TRACE_DATA: ReadonlyArray<{ table: string; at: string; where?: string }> = [
  { table: 'feedback', at: 'created_at' },
  { table: 'feedback_comparisons', at: 'created_at' },
  { table: 'review_queue_items', at: 'created_at' },
  { table: 'online_evaluations', at: 'created_at' },
  { table: 'online_session_evaluations', at: 'created_at' },
  { table: 'judge_calls', at: 'created_at', where: 'run_id IS NULL' },
  { table: 'alert_events', at: 'at' },
  { table: 'data_deletions', at: 'completed_at', where: "status = 'completed'" },
];

/** Retention's deletes in PostgreSQL (core/store/retention.ts). */
export function createRetentionStore(pool: pg.Pool): RetentionStore {
  async function deleteOlder(table: string, where: string, days: number): Promise<number> {
    let total = 0;
    for (;;) {
      // ctid batches: a bounded delete without an id column common to every table.
      const r = await pool.query(`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT ${BATCH})`, [days]);
      total += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < BATCH) return total;
    }
  }

  return {
    async pruneTraceData(days) {
      const removed: Record<string, number> = {};
      for (const t of TRACE_DATA) {
        const n = await deleteOlder(t.table, `${t.at} < now() - make_interval(days => $1)${t.where ? ` AND ${t.where}` : ''}`, days);
        if (n) removed[t.table] = n;
      }
      return removed;
    },

    async pruneRuns(days) {
      // Cases, results, judge calls and judge usage go with their run (ON DELETE CASCADE).
      return deleteOlder('eval_runs', `completed_at IS NOT NULL AND completed_at < now() - make_interval(days => $1)`, days);
    },
  };
}
