import type { Feedback } from '../model/feedback.js';
import type { Completion, CreateQueue, ItemCounts, ItemList, ItemState, QueueItem, QueueList, ReviewQueue, SuiteCaseRef } from '../model/queue.js';
import type { Actor } from '../principal.js';

/*
 * Review queues and their items (PostgreSQL, migration 007; store/postgres/queue-store.ts
 * implements it; docs/feedback.md, "Review queues").
 *
 * Promises:
 * - Durability: a write resolves once committed; a queue and its first items, and a completion
 *   with its correction feedback and what `alongside` does, are each one transaction.
 * - Concurrency: `next` hands an item to one reviewer at a time across processes (one atomic
 *   UPDATE over `FOR UPDATE SKIP LOCKED`); a lock expires by itself (`locked_until`), so a
 *   reviewer gone away never holds an item for good.
 * - Idempotency: `addItems` adds a trace once per queue; completing an item again with the same
 *   payload by the same reviewer returns the stored item (`created` false), anything else on a
 *   completed item is a 409; the correction feedback's id derives from the item
 *   (core/feedback/annotation-scores.ts), so it is never written twice.
 * - Isolation: every call names a project and touches only its queues and items.
 * - What a caller gets is its own copy; reads see every committed write of any process (an
 *   item's `locked` state is computed at read time).
 */

/**
 * Review queues and their items (PostgreSQL). Every query filters by project. An item's
 * `locked` state is derived from `locked_until`, so an expired lock frees the item by itself.
 */
export interface QueueStore {
  /** Creates the queue with its first items (in the given order), in one transaction. */
  create(projectId: string, def: CreateQueue, traceIds: string[]): Promise<ReviewQueue>;
  /** Newest first, each with its item counts. */
  list(projectId: string, page: { limit: number; offset: number }): Promise<QueueList>;
  get(projectId: string, id: string): Promise<ReviewQueue | null>;
  /** Appends the traces not yet in the queue; null when there is no such queue. */
  addItems(projectId: string, queueId: string, traceIds: string[]): Promise<{ added: number; counts: ItemCounts } | null>;
  /** Items in queue order; null when there is no such queue. */
  items(projectId: string, queueId: string, query: { limit: number; offset: number; status?: ItemState }): Promise<ItemList | null>;
  item(projectId: string, queueId: string, itemId: string): Promise<QueueItem | null>;
  /**
   * Locks the next free item for `reviewer` for `lockSeconds` and returns it: pending items in
   * queue order first, then skipped ones (never to a reviewer who skipped it). One atomic
   * UPDATE over `FOR UPDATE SKIP LOCKED`: concurrent calls never get the same item. Null when
   * no item is free.
   */
  next(projectId: string, queueId: string, reviewer: Actor, lockSeconds: number): Promise<QueueItem | null>;
  /**
   * Completes an item not locked by someone else, recording a correction feedback when one is
   * given. Completing again with the same payload by the same reviewer returns the stored item
   * (`created` false); anything else on a completed item is a 409. `alongside` runs inside the
   * transaction with the completed item and its feedback (the route writes their scores there):
   * when it fails, nothing is stored and the item stays as it was.
   */
  complete(
    projectId: string,
    queueId: string,
    itemId: string,
    reviewer: Actor,
    completion: Completion,
    completionHash: string,
    alongside: (item: QueueItem, feedback: Feedback | null) => Promise<void>,
  ): Promise<{ item: QueueItem; feedback: Feedback | null; created: boolean } | null>;
  /** Releases the item (state `skipped`); 409 when completed or locked by someone else. */
  skip(projectId: string, queueId: string, itemId: string, reviewer: string): Promise<QueueItem | null>;
  /** Notes the suite case made from the item's correction. */
  recordSuiteCase(projectId: string, queueId: string, itemId: string, ref: SuiteCaseRef): Promise<QueueItem | null>;
  /** Runs `work` holding a PostgreSQL advisory lock on `key` (held by no pool client while waiting). */
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
}
