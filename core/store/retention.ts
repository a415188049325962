/*
 * Retention's deletes on the PostgreSQL side (store/postgres/retention-store.ts implements it);
 * core/retention/metadata-retention.ts decides what is kept how long (docs/configuration.md,
 * "Retention").
 *
 * Promises:
 * - Deletes go in bounded batches (each its own statement, committed on its own), so a first
 *   prune of a large backlog never holds a long lock; a prune cut short by a failure leaves what
 *   it deleted deleted and the rest for the next one.
 * - Idempotent: pruning again with the same days deletes only what has aged past them since.
 * - Across projects: retention is the server's, not a project's.
 */

/** What PostgreSQL holds, dropped by age. */
export interface RetentionStore {
  /**
   * Deletes what PostgreSQL holds about traces older than `days` (feedback and pairwise
   * comparisons, review-queue items, online evaluations, judge calls made outside runs, alert
   * events, finished data deletions); the rows removed per table, tables with none left out.
   */
  pruneTraceData(days: number): Promise<Record<string, number>>;
  /** Deletes runs finished more than `days` ago, their cases, results and judge calls with them; how many runs. */
  pruneRuns(days: number): Promise<number>;
}
