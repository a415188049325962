import type { RetentionStore } from '../store/retention.js';

/**
 * Retention of the PostgreSQL side (docs/configuration.md, "Retention"). Traces leave ClickHouse
 * after RETENTION_DAYS (a TTL); what PostgreSQL holds about them goes after
 * METADATA_RETENTION_DAYS (by default the same): feedback and pairwise comparisons, review-queue
 * items, online evaluations, judge calls made outside runs, alert events, finished data deletions.
 * Evaluation runs (with their case results and judge calls) are the record of an agent's versions
 * and stay until RUN_RETENTION_DAYS says otherwise (0, the default: kept). The deletes are the
 * store's (core/store/retention.ts: in batches, so a first prune of a large backlog never holds a
 * long lock). 0 days keeps a kind of data.
 */
export interface MetadataRetention {
  /** Days PostgreSQL keeps data about traces; 0: forever. */
  days: number;
  /** Days finished evaluation runs are kept (with their results); 0: forever. */
  runDays: number;
}

/** Removes what is past its retention; the rows removed per table. */
export async function pruneMetadata(store: RetentionStore, retention: MetadataRetention): Promise<Record<string, number>> {
  const removed = retention.days > 0 ? await store.pruneTraceData(retention.days) : {};
  if (retention.runDays > 0) {
    const n = await store.pruneRuns(retention.runDays);
    if (n) removed.eval_runs = n;
  }
  return removed;
}
