import type { DataDeletionKind, DataDeletionView } from '../model/data-deletion.js';

/**
 * The deletions of data clients asked for (migrations/postgres/016), and the PostgreSQL half of
 * carrying one out: the rows that are about the deleted traces (feedback, review queue items,
 * online evaluations, judge calls), the links of evaluation results to them, and for an end user
 * the feedback they gave. The ClickHouse half is the analytics store's erasure
 * (core/store/trace-erasure.ts). store/postgres/data-deletion-store.ts implements it; reached as
 * `MetadataStore.dataDeletions`.
 *
 * Promises:
 * - Durability: a deletion is recorded (committed) before `create` resolves, so it is carried out
 *   even if the process dies at once: `open()` lists it for any process to take up.
 * - One runner at a time: `claim` is a lease; while it holds, no other process's claim succeeds.
 * - `deleteMetadata` is one transaction (all of its rows or none) and idempotent: running it
 *   again deletes nothing more.
 * - Views returned are the caller's own copies.
 */
export interface DataDeletionStore {
  create(d: {
    id: string;
    projectId: string;
    kind: DataDeletionKind;
    target: string;
    requestedBy: { id: string; name: string | null };
  }): Promise<DataDeletionView>;
  get(projectId: string, id: string): Promise<DataDeletionView | null>;
  /** Takes a deletion to carry out, for `leaseMs`: false when it is done or another process holds it. */
  claim(id: string, leaseMs: number): Promise<boolean>;
  /** Deletions not finished and not held by a live lease (any process's), oldest first. */
  open(): Promise<string[]>;
  /** Loads a deletion for the runner (no project check: it holds the claim). */
  load(id: string): Promise<DataDeletionView | null>;
  /** Deletes and unlinks the rows about these traces, and for `userId` the feedback that user gave, in one transaction; the rows per table. */
  deleteMetadata(projectId: string, traceIds: readonly string[], userId: string | null): Promise<Record<string, number>>;
  complete(id: string, tracesDeleted: number, rowsDeleted: Record<string, Record<string, number>>): Promise<void>;
  /** A try that failed: the deletion waits `retryInMs`, then any process takes it up again. */
  retryLater(id: string, error: string, retryInMs: number): Promise<void>;
}
