import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { itemFeedbackId } from '../../feedback/annotation-scores.js';
import { ConflictError } from '../../errors.js';
import { isUuid } from '../../model/agent.js';
import type { Feedback, FeedbackInput } from '../../model/feedback.js';
import type { ItemState, QueueItem, ReviewQueue } from '../../model/queue.js';
import type { QueueStore } from '../queues.js';
import { feedbackById, insertFeedback } from './feedback-store.js';
import { isoTimes, type RowOf } from './rows.js';
import { inTransaction, isUniqueViolation, type Db } from './transaction.js';

export type { QueueStore };

/** A queue's row: the view with its times as Dates (the counts come as one JSON object). */
type QueueRow = RowOf<ReviewQueue, 'created_at' | 'updated_at'>;

interface ItemRow extends Omit<QueueItem, 'locked_until' | 'completed_at' | 'created_at'> {
  locked_until: Date | null;
  completed_at: Date | null;
  created_at: Date;
  completion_hash: string | null;
  /** The raw lock, whether or not it has expired. */
  lock_holder: string | null;
}

/** Whether an item is locked now; `now()` is the statement's time in PostgreSQL. */
const LOCKED = `(status <> 'completed' AND COALESCE(locked_until > now(), false))`;

const ITEM_COLUMNS = `id, queue_id, trace_id,
  CASE WHEN ${LOCKED} THEN 'locked' ELSE status END AS status,
  CASE WHEN ${LOCKED} THEN locked_by END AS locked_by,
  CASE WHEN ${LOCKED} THEN locked_by_name END AS locked_by_name,
  CASE WHEN ${LOCKED} THEN locked_until END AS locked_until,
  locked_by AS lock_holder,
  skipped_by, completed_by, completed_by_name, completed_at, scores, comment, correction, completion_hash, feedback_id, suite_case, created_at`;

const STATE_FILTER: Record<ItemState, string> = {
  locked: LOCKED,
  pending: `(status = 'pending' AND NOT ${LOCKED})`,
  skipped: `(status = 'skipped' AND NOT ${LOCKED})`,
  completed: `status = 'completed'`,
};

/** An item count per state, and all of them, as the view's `counts` object. */
const COUNTS = `json_build_object(
  'pending', count(*) FILTER (WHERE ${STATE_FILTER.pending})::int,
  'locked', count(*) FILTER (WHERE ${STATE_FILTER.locked})::int,
  'completed', count(*) FILTER (WHERE ${STATE_FILTER.completed})::int,
  'skipped', count(*) FILTER (WHERE ${STATE_FILTER.skipped})::int,
  'total', count(*)::int)`;

/** The view's columns in its order, so that a row is the view but for its times. */
const QUEUE_SELECT = `SELECT q.id, q.name, q.description, q.score_names, q.filter, q.lock_seconds, c.counts, q.created_at, q.updated_at
  FROM review_queues q
  CROSS JOIN LATERAL (SELECT ${COUNTS} AS counts FROM review_queue_items i WHERE i.queue_id = q.id) c`;

const toQueue = (row: QueueRow) => isoTimes<ReviewQueue, 'created_at' | 'updated_at'>(row, ['created_at', 'updated_at']);

/** The one converter from an item row. */
function toItem(row: ItemRow): QueueItem {
  return {
    id: row.id,
    queue_id: row.queue_id,
    trace_id: row.trace_id,
    status: row.status,
    locked_by: row.locked_by,
    locked_by_name: row.locked_by_name,
    locked_until: row.locked_until?.toISOString() ?? null,
    skipped_by: row.skipped_by,
    completed_by: row.completed_by,
    completed_by_name: row.completed_by_name,
    completed_at: row.completed_at?.toISOString() ?? null,
    scores: row.scores,
    comment: row.comment,
    correction: row.correction,
    feedback_id: row.feedback_id,
    suite_case: row.suite_case,
    created_at: row.created_at.toISOString(),
  };
}

function nameTaken(name: string, err: unknown): unknown {
  const unique = isUniqueViolation(err);
  return unique ? new ConflictError(`A queue named '${name}' already exists in this project`, 'QUEUE_NAME_TAKEN') : err;
}

/** Inserts the traces not yet in the queue, keeping their order; returns how many were new. */
async function insertItems(client: Db, projectId: string, queueId: string, traceIds: string[]): Promise<number> {
  const unique = [...new Set(traceIds)];
  if (unique.length === 0) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO review_queue_items (id, queue_id, project_id, trace_id)
     SELECT gen_random_uuid(), $1, $2, t FROM unnest($3::text[]) WITH ORDINALITY AS u(t, ord) ORDER BY ord
     ON CONFLICT (queue_id, trace_id) DO NOTHING`,
    [queueId, projectId, unique],
  );
  return rowCount ?? 0;
}

/** How long `withLock` waits for a lock before answering 409. */
const LOCK_WAIT_MS = 30_000;

export function createQueueStore(pool: pg.Pool): QueueStore {
  async function get(client: Db, projectId: string, id: string): Promise<ReviewQueue | null> {
    if (!isUuid(id)) return null;
    const { rows } = await client.query<QueueRow>(`${QUEUE_SELECT} WHERE q.project_id = $1 AND q.id = $2`, [projectId, id]);
    return rows.length ? toQueue(rows[0]) : null;
  }

  async function itemRow(client: Db, projectId: string, queueId: string, itemId: string, lock = false): Promise<(ItemRow & { is_locked: boolean }) | null> {
    if (!isUuid(queueId) || !isUuid(itemId)) return null;
    const { rows } = await client.query<ItemRow & { is_locked: boolean }>(
      `SELECT ${ITEM_COLUMNS}, ${LOCKED} AS is_locked FROM review_queue_items WHERE project_id = $1 AND queue_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
      [projectId, queueId, itemId],
    );
    return rows[0] ?? null;
  }

  async function feedbackOf(client: Db, projectId: string, item: ItemRow): Promise<Feedback | null> {
    if (!item.correction || !item.completed_at) return null;
    const input: FeedbackInput = {
      type: 'correction',
      trace_id: item.trace_id,
      span_id: null,
      user_id: item.completed_by,
      user_name: item.completed_by_name,
      source: 'review_queue',
      correction: item.correction,
    };
    const id = item.feedback_id ?? itemFeedbackId(item.id);
    return (await insertFeedback(client, projectId, id, input, { queueItemId: item.id })) ?? feedbackById(client, projectId, id);
  }

  return {
    async create(projectId, def, traceIds) {
      const id = randomUUID();
      try {
        return await inTransaction(pool, async (client) => {
          await client.query(
            `INSERT INTO review_queues (id, project_id, name, description, score_names, filter, lock_seconds) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)`,
            [
              id,
              projectId,
              def.name,
              def.description,
              JSON.stringify(def.score_names),
              def.filter === null ? null : JSON.stringify(def.filter),
              def.lock_seconds,
            ],
          );
          await insertItems(client, projectId, id, traceIds);
          return (await get(client, projectId, id))!;
        });
      } catch (err) {
        throw nameTaken(def.name, err);
      }
    },

    async list(projectId, { limit, offset }) {
      const [page, count] = await Promise.all([
        pool.query<QueueRow>(`${QUEUE_SELECT} WHERE q.project_id = $1 ORDER BY q.created_at DESC, q.id DESC LIMIT $2 OFFSET $3`, [projectId, limit, offset]),
        pool.query<{ total: number }>('SELECT count(*)::int AS total FROM review_queues WHERE project_id = $1', [projectId]),
      ]);
      return { queues: page.rows.map(toQueue), total: count.rows[0].total, limit, offset };
    },

    get: (projectId, id) => get(pool, projectId, id),

    async addItems(projectId, queueId, traceIds) {
      return inTransaction(pool, async (client) => {
        if (!isUuid(queueId)) return null;
        const { rowCount } = await client.query("UPDATE review_queues SET updated_at = date_trunc('milliseconds', now()) WHERE project_id = $1 AND id = $2", [
          projectId,
          queueId,
        ]);
        if (!rowCount) return null;
        const added = await insertItems(client, projectId, queueId, traceIds);
        const queue = await get(client, projectId, queueId);
        return { added, counts: queue!.counts };
      });
    },

    async items(projectId, queueId, { limit, offset, status }) {
      if (!isUuid(queueId)) return null;
      const { rowCount } = await pool.query('SELECT 1 FROM review_queues WHERE project_id = $1 AND id = $2', [projectId, queueId]);
      if (!rowCount) return null;
      const filter = status === undefined ? '' : ` AND ${STATE_FILTER[status]}`;
      const [page, count] = await Promise.all([
        pool.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM review_queue_items WHERE project_id = $1 AND queue_id = $2${filter} ORDER BY seq LIMIT $3 OFFSET $4`, [
          projectId,
          queueId,
          limit,
          offset,
        ]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM review_queue_items WHERE project_id = $1 AND queue_id = $2${filter}`, [
          projectId,
          queueId,
        ]),
      ]);
      return { items: page.rows.map(toItem), total: count.rows[0].total, limit, offset };
    },

    async item(projectId, queueId, itemId) {
      const row = await itemRow(pool, projectId, queueId, itemId);
      return row ? toItem(row) : null;
    },

    async next(projectId, queueId, reviewer, lockSeconds) {
      if (!isUuid(queueId)) return null;
      // The subquery runs once (an InitPlan); SKIP LOCKED passes over a row another `next` is
      // taking, and a row it took and committed no longer meets the WHERE when re-checked.
      const { rows } = await pool.query<ItemRow>(
        `UPDATE review_queue_items
         SET locked_by = $3, locked_by_name = $5, locked_until = date_trunc('milliseconds', now()) + make_interval(secs => $4::double precision)
         WHERE id = (
           SELECT id FROM review_queue_items
           WHERE project_id = $1 AND queue_id = $2 AND status <> 'completed'
             AND (locked_until IS NULL OR locked_until <= now())
             AND NOT ($3 = ANY (skipped_by))
           ORDER BY status = 'skipped', seq
           LIMIT 1
           FOR UPDATE SKIP LOCKED
         )
         RETURNING ${ITEM_COLUMNS}`,
        [projectId, queueId, reviewer.id, lockSeconds, reviewer.name],
      );
      return rows.length ? toItem(rows[0]) : null;
    },

    async complete(projectId, queueId, itemId, reviewer, completion, completionHash, alongside) {
      return inTransaction(pool, async (client) => {
        const current = await itemRow(client, projectId, queueId, itemId, true);
        if (!current) return null;
        if (current.status === 'completed') {
          if (current.completed_by !== reviewer.id || current.completion_hash !== completionHash) {
            throw new ConflictError(
              `Queue item already completed by ${current.completed_by_name ?? current.completed_by ?? 'another reviewer'}`,
              'ITEM_COMPLETED',
            );
          }
          const stored = { item: toItem(current), feedback: await feedbackOf(client, projectId, current), created: false };
          await alongside(stored.item, stored.feedback);
          return stored;
        }
        if (current.is_locked && current.lock_holder !== reviewer.id) {
          throw new ConflictError(`Queue item is locked by another reviewer until ${current.locked_until?.toISOString() ?? '?'}`, 'ITEM_LOCKED');
        }
        const correction = completion.correction ? { original: completion.correction.original ?? null, corrected: completion.correction.corrected } : null;
        const { rows } = await client.query<ItemRow>(
          `UPDATE review_queue_items
           SET status = 'completed', completed_by = $4, completed_by_name = $10, completed_at = date_trunc('milliseconds', now()), scores = $5::jsonb, comment = $6,
               correction = $7::jsonb, completion_hash = $8, feedback_id = $9, locked_by = NULL, locked_by_name = NULL, locked_until = NULL
           WHERE project_id = $1 AND queue_id = $2 AND id = $3
           RETURNING ${ITEM_COLUMNS}`,
          [
            projectId,
            queueId,
            itemId,
            reviewer.id,
            JSON.stringify(completion.scores),
            completion.comment ?? null,
            correction && JSON.stringify(correction),
            completionHash,
            correction ? itemFeedbackId(itemId) : null,
            reviewer.name,
          ],
        );
        const completed = { item: toItem(rows[0]), feedback: await feedbackOf(client, projectId, rows[0]), created: true };
        await alongside(completed.item, completed.feedback);
        return completed;
      });
    },

    async skip(projectId, queueId, itemId, reviewer) {
      return inTransaction(pool, async (client) => {
        const current = await itemRow(client, projectId, queueId, itemId, true);
        if (!current) return null;
        if (current.status === 'completed')
          throw new ConflictError(
            `Queue item already completed by ${current.completed_by_name ?? current.completed_by ?? 'another reviewer'}`,
            'ITEM_COMPLETED',
          );
        if (current.is_locked && current.lock_holder !== reviewer) {
          throw new ConflictError(`Queue item is locked by another reviewer until ${current.locked_until?.toISOString() ?? '?'}`, 'ITEM_LOCKED');
        }
        const { rows } = await client.query<ItemRow>(
          `UPDATE review_queue_items
           SET status = 'skipped', locked_by = NULL, locked_by_name = NULL, locked_until = NULL,
               skipped_by = CASE WHEN $4 = ANY (skipped_by) THEN skipped_by ELSE array_append(skipped_by, $4) END
           WHERE project_id = $1 AND queue_id = $2 AND id = $3
           RETURNING ${ITEM_COLUMNS}`,
          [projectId, queueId, itemId, reviewer],
        );
        return toItem(rows[0]);
      });
    },

    async recordSuiteCase(projectId, queueId, itemId, ref) {
      if (!isUuid(queueId) || !isUuid(itemId)) return null;
      const { rows } = await pool.query<ItemRow>(
        `UPDATE review_queue_items SET suite_case = $4::jsonb WHERE project_id = $1 AND queue_id = $2 AND id = $3 RETURNING ${ITEM_COLUMNS}`,
        [projectId, queueId, itemId, JSON.stringify(ref)],
      );
      return rows.length ? toItem(rows[0]) : null;
    },

    async withLock(key, work) {
      const giveUpAt = Date.now() + LOCK_WAIT_MS;
      let client: pg.PoolClient;
      for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
        client = await pool.connect();
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [key]).catch((err: unknown) => {
          client.release(err as Error);
          throw err;
        });
        if (rows[0].ok) break;
        // Waiting holds no pool client: a lock holder may need several to finish its work.
        client.release();
        if (Date.now() > giveUpAt) throw new ConflictError('Another request is changing this suite; retry', 'SUITE_BUSY');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        return await work();
      } finally {
        await client
          .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
          .then(() => client.release())
          .catch((err: unknown) => client.release(err as Error));
      }
    },
  };
}
