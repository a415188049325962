import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { comparisonFeedbackId, feedbackScores } from '../../feedback/annotation-scores.js';
import { ConflictError } from '../../errors.js';
import { isUuid } from '../../model/agent.js';
import { comparisonPreference, type Comparison, type Feedback, type FeedbackInput, type FeedbackListQuery } from '../../model/feedback.js';
import { encodeKeysetCursor } from '../../model/keyset-cursor.js';
import type { FeedbackStore } from '../feedback.js';
import { inTransaction, type Db } from './transaction.js';

export type { FeedbackStore };

interface FeedbackRow {
  id: string;
  type: Feedback['type'];
  trace_id: string | null;
  span_id: string | null;
  data: unknown;
  user_id: string | null;
  user_name: string | null;
  source: string | null;
  comparison_id: string | null;
  queue_item_id: string | null;
  request_hash: string | null;
  created_at: Date;
}

interface ComparisonRow extends Omit<Comparison, 'created_at' | 'answered_at'> {
  created_at: Date;
  answered_at: Date | null;
}

const FEEDBACK_COLUMNS = 'id, type, trace_id, span_id, data, user_id, user_name, source, comparison_id, queue_item_id, request_hash, created_at';
const COMPARISON_COLUMNS =
  'id, prompt, output_a, output_b, trace_a, trace_b, user_id, source, status, preferred, reason, answered_by, answered_by_name, feedback_id, created_at, answered_at';

/** The one converter from a feedback row. */
function toFeedback(row: FeedbackRow): Feedback {
  const common = {
    id: row.id,
    trace_id: row.trace_id,
    span_id: row.span_id,
    user_id: row.user_id,
    user_name: row.user_name,
    source: row.source,
    comparison_id: row.comparison_id,
    queue_item_id: row.queue_item_id,
    created_at: row.created_at.toISOString(),
  };
  const fb = { ...common, type: row.type, [row.type]: row.data } as unknown as FeedbackInput & Pick<Feedback, 'id' | 'created_at'>;
  return { ...fb, comparison_id: row.comparison_id, queue_item_id: row.queue_item_id, score_ids: feedbackScores(fb).map((s) => s.id) };
}

function toComparison(row: ComparisonRow): Comparison {
  return { ...row, created_at: row.created_at.toISOString(), answered_at: row.answered_at?.toISOString() ?? null };
}

function dataOf(input: FeedbackInput): unknown {
  if (input.type === 'preference') return input.preference;
  if (input.type === 'correction') return input.correction;
  return input.rating;
}

/**
 * Inserts a feedback unless its id is taken (then returns null): the one insert of the store,
 * also used inside the queue store's completion transaction.
 */
export async function insertFeedback(
  client: Db,
  projectId: string,
  id: string,
  input: FeedbackInput,
  links: { comparisonId?: string | null; queueItemId?: string | null; requestHash?: string | null } = {},
): Promise<Feedback | null> {
  const { rows } = await client.query<FeedbackRow>(
    `INSERT INTO feedback (id, project_id, type, trace_id, span_id, data, user_id, user_name, source, comparison_id, queue_item_id, request_hash)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (id) DO NOTHING
     RETURNING ${FEEDBACK_COLUMNS}`,
    [
      id,
      projectId,
      input.type,
      input.trace_id,
      input.span_id,
      JSON.stringify(dataOf(input)),
      input.user_id,
      input.user_name,
      input.source,
      links.comparisonId ?? null,
      links.queueItemId ?? null,
      links.requestHash ?? null,
    ],
  );
  return rows.length ? toFeedback(rows[0]) : null;
}

/** One feedback of the project, read with `client` (inside a transaction when it is one). */
export async function feedbackById(client: Db, projectId: string, id: string): Promise<Feedback | null> {
  if (!isUuid(id)) return null;
  const { rows } = await client.query<FeedbackRow>(`SELECT ${FEEDBACK_COLUMNS} FROM feedback WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return rows.length ? toFeedback(rows[0]) : null;
}

/** The WHERE clause of a feedback list and its parameters (`$1` is the project). */
function listFilter(projectId: string, q: FeedbackListQuery): { where: string; params: unknown[] } {
  const params: unknown[] = [projectId];
  const where = ['project_id = $1'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (q.type !== undefined) add((n) => `type = $${n}`, q.type);
  if (q.trace_id !== undefined) add((n) => `trace_id = $${n}`, q.trace_id);
  if (q.user_id !== undefined) add((n) => `user_id = $${n}`, q.user_id);
  if (q.source !== undefined) add((n) => `source = $${n}`, q.source);
  if (q.from !== undefined) add((n) => `created_at >= $${n}::timestamptz`, new Date(q.from));
  if (q.to !== undefined) add((n) => `created_at < $${n}::timestamptz`, new Date(q.to));
  return { where: where.join(' AND '), params };
}

export function createFeedbackStore(pool: pg.Pool): FeedbackStore {
  const get = (projectId: string, id: string) => feedbackById(pool, projectId, id);

  async function comparison(client: Db, projectId: string, id: string, lock = false): Promise<Comparison | null> {
    if (!isUuid(id)) return null;
    const { rows } = await client.query<ComparisonRow>(
      `SELECT ${COMPARISON_COLUMNS} FROM feedback_comparisons WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [projectId, id],
    );
    return rows.length ? toComparison(rows[0]) : null;
  }

  return {
    create(projectId, input, alongside) {
      return inTransaction(pool, async (client) => {
        const feedback = (await insertFeedback(client, projectId, randomUUID(), input))!;
        await alongside(feedback);
        return feedback;
      });
    },

    get,

    async list(projectId, q) {
      const { where, params } = listFilter(projectId, q);
      const page = [...params];
      let keyset = '';
      if (q.cursor) {
        page.push(new Date(q.cursor.startMs), q.cursor.id);
        keyset = ` AND (created_at, id) < ($${page.length - 1}::timestamptz, $${page.length}::uuid)`;
      }
      page.push(q.limit + 1, q.offset);
      const [rows, count] = await Promise.all([
        pool.query<FeedbackRow>(
          `SELECT ${FEEDBACK_COLUMNS} FROM feedback WHERE ${where}${keyset} ORDER BY created_at DESC, id DESC LIMIT $${page.length - 1} OFFSET $${page.length}`,
          page,
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM feedback WHERE ${where}`, params),
      ]);
      const more = rows.rows.length > q.limit;
      const items = rows.rows.slice(0, q.limit);
      const last = items.at(-1);
      return {
        feedback: items.map(toFeedback),
        total: count.rows[0].total,
        limit: q.limit,
        offset: q.offset,
        next_cursor: more && last ? encodeKeysetCursor({ startMs: last.created_at.getTime(), id: last.id }) : null,
      };
    },

    async createComparison(projectId, input) {
      const { rows } = await pool.query<ComparisonRow>(
        `INSERT INTO feedback_comparisons (id, project_id, prompt, output_a, output_b, trace_a, trace_b, user_id, source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COMPARISON_COLUMNS}`,
        [
          randomUUID(),
          projectId,
          input.prompt,
          input.output_a,
          input.output_b,
          input.trace_a ?? null,
          input.trace_b ?? null,
          input.user_id ?? null,
          input.source ?? null,
        ],
      );
      return toComparison(rows[0]);
    },

    getComparison: (projectId, id) => comparison(pool, projectId, id),

    async listComparisons(projectId, { limit, offset, status }) {
      const filter = status === undefined ? '' : ' AND status = $2';
      const params: unknown[] = status === undefined ? [projectId] : [projectId, status];
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<ComparisonRow>(
          `SELECT ${COMPARISON_COLUMNS} FROM feedback_comparisons WHERE project_id = $1${filter} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, limit, offset],
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM feedback_comparisons WHERE project_id = $1${filter}`, params),
      ]);
      return { comparisons: page.rows.map(toComparison), total: count.rows[0].total, limit, offset };
    },

    async answerComparison(projectId, id, answer, answeredBy, alongside) {
      const feedbackId = comparisonFeedbackId(id);
      return inTransaction(pool, async (client) => {
        const current = await comparison(client, projectId, id, true);
        if (!current) return null;
        if (current.status === 'answered') {
          if (current.preferred !== answer.preferred) {
            throw new ConflictError(`Comparison already answered: '${current.preferred}' was preferred`, 'COMPARISON_ANSWERED');
          }
          const stored = await feedbackById(client, projectId, current.feedback_id ?? feedbackId);
          if (!stored) return null;
          await alongside(stored);
          return { comparison: current, feedback: stored, created: false };
        }
        const feedback = await insertFeedback(client, projectId, feedbackId, comparisonPreference(current, answer, answeredBy), { comparisonId: id });
        const { rows } = await client.query<ComparisonRow>(
          `UPDATE feedback_comparisons
           SET status = 'answered', preferred = $3, reason = $4, answered_by = $5, answered_by_name = $6, feedback_id = $7, answered_at = date_trunc('milliseconds', now())
           WHERE project_id = $1 AND id = $2 RETURNING ${COMPARISON_COLUMNS}`,
          [projectId, id, answer.preferred, answer.reason ?? null, answeredBy.id, answeredBy.name, feedbackId],
        );
        const stored = feedback ?? (await feedbackById(client, projectId, feedbackId));
        await alongside(stored!);
        return { comparison: toComparison(rows[0]), feedback: stored!, created: true };
      });
    },
  };
}
