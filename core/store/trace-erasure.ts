/**
 * Removing data from the analytical store for good (docs/api.md, "Deleting data"; a deleted
 * project, docs/security.md). Implemented over ClickHouse by store/clickhouse/trace-erasure.ts and
 * project-purge.ts (mutations through row-mutations.ts); reached as `AnalyticsStore.erasure`.
 *
 * Promises:
 * - Idempotent: running a deletion again deletes nothing more and succeeds, so a deletion cut
 *   short (a crash, an outage) is finished by running it again from the start.
 * - Complete: every table holding the project's rows (or the traces' rows) is included, tables
 *   added by later migrations too (found by their columns, not from a list).
 * - Resolves only once the mutation is done on every replica (with CLICKHOUSE_CLUSTER): a read
 *   after it does not see the rows. The counts returned are the rows each table held.
 * - Durability of what is deleted is the caller's: a record of the deletion (PostgreSQL) must
 *   come first, so the deletion can be resumed.
 */

/** Whose data a deletion names: an end user's or a session's (by the attributes the implementation reads). */
export type Subject = 'user' | 'session';

export interface TraceErasure {
  /** The ids of the project's traces with a span naming this user or session. Reads only. */
  tracesOf(projectId: string, subject: Subject, value: string): Promise<string[]>;
  /** Deletes every row of these traces of the project; returns the rows each table held. */
  eraseTraces(projectId: string, traceIds: readonly string[]): Promise<Record<string, number>>;
  /** Deletes every row of the project; returns the rows each table held. */
  purgeProject(projectId: string): Promise<Record<string, number>>;
}
