import type pg from 'pg';

/**
 * Retention of the PostgreSQL side (docs/configuration.md, "Retention"). Traces leave ClickHouse
 * after RETENTION_DAYS (a TTL); what PostgreSQL holds about them goes after
 * METADATA_RETENTION_DAYS (by default the same): feedback and pairwise comparisons, review-queue
 * items, online evaluations, judge calls made outside runs, alert events, finished data deletions.
 * Evaluation runs (with their case results and judge calls) are the record of an agent's versions
 * and stay until RUN_RETENTION_DAYS says otherwise (0, the default: kept). Deletes go in batches,
 * so a first prune of a large backlog never holds a long lock. 0 days keeps a kind of data.
 */
export interface MetadataRetention {
  /** Days PostgreSQL keeps data about traces; 0: forever. */
  days: number;
  /** Days finished evaluation runs are kept (with their results); 0: forever. */
  runDays: number;
}

/** Rows per delete statement. */
const BATCH = 5_000;

/** Each kind of row and when it counts from. */
const TRACE_DATA: ReadonlyArray<{ table: string; at: string; where?: string }> = [
  { table: 'feedback', at: 'created_at' },
  { table: 'feedback_comparisons', at: 'created_at' },
  { table: 'review_queue_items', at: 'created_at' },
  { table: 'online_evaluations', at: 'created_at' },
  { table: 'judge_calls', at: 'created_at', where: 'run_id IS NULL' },
  { table: 'alert_events', at: 'at' },
  { table: 'data_deletions', at: 'completed_at', where: "status = 'completed'" },
];

async function deleteOlder(pool: pg.Pool, table: string, where: string, days: number): Promise<number> {
  let total = 0;
  for (;;) {
    // ctid batches: a bounded delete without an id column common to every table.
    const r = await pool.query(`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT ${BATCH})`, [days]);
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < BATCH) return total;
  }
}

/** Removes what is past its retention; the rows removed per table. */
export async function pruneMetadata(pool: pg.Pool, retention: MetadataRetention): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  if (retention.days > 0) {
    for (const t of TRACE_DATA) {
      const where = `${t.at} < now() - make_interval(days => $1)${t.where ? ` AND ${t.where}` : ''}`;
      const n = await deleteOlder(pool, t.table, where, retention.days);
      if (n) removed[t.table] = n;
    }
  }
  if (retention.runDays > 0) {
    // Cases, results, judge calls and judge usage go with their run (ON DELETE CASCADE).
    const n = await deleteOlder(pool, 'eval_runs', `completed_at IS NOT NULL AND completed_at < now() - make_interval(days => $1)`, retention.runDays);
    if (n) removed.eval_runs = n;
  }
  return removed;
}
