import type pg from 'pg';
import type { DataDeletionView } from '../../model/data-deletion.js';
import { isoTimes, type RowOf } from './rows.js';
import { inTransaction } from './transaction.js';
import type { DataDeletionStore } from '../data-deletions.js';

type Row = RowOf<DataDeletionView, 'created_at' | 'completed_at'>;

/** The view's columns, so that a row is the view but for its times. */
const COLUMNS = 'id, project_id, kind, target, status, requested_by, attempts, last_error, traces_deleted, rows_deleted, created_at, completed_at';

const view = (row: Row) => isoTimes<DataDeletionView, 'created_at' | 'completed_at'>(row, ['created_at', 'completed_at']);

/** Tables whose rows are about one trace of the project: deleted with it. */
const TRACE_ROW_TABLES = ['feedback', 'review_queue_items', 'online_evaluations', 'judge_calls'] as const;

export function createDataDeletionStore(pool: pg.Pool): DataDeletionStore {
  return {
    async create(d) {
      const { rows } = await pool.query<Row>(
        `INSERT INTO data_deletions (id, project_id, kind, target, requested_by) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [d.id, d.projectId, d.kind, d.target, JSON.stringify(d.requestedBy)],
      );
      return view(rows[0]);
    },
    async get(projectId, id) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM data_deletions WHERE id = $1 AND project_id = $2`, [id, projectId]);
      return rows[0] ? view(rows[0]) : null;
    },
    async load(id) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM data_deletions WHERE id = $1`, [id]);
      return rows[0] ? view(rows[0]) : null;
    },
    async claim(id, leaseMs) {
      const { rowCount } = await pool.query(
        `UPDATE data_deletions SET status = 'running', lease_until = now() + make_interval(secs => $2::double precision / 1000), attempts = attempts + 1
         WHERE id = $1 AND status <> 'completed' AND (lease_until IS NULL OR lease_until < now())`,
        [id, leaseMs],
      );
      return rowCount === 1;
    },
    async open() {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM data_deletions WHERE status <> 'completed' AND (lease_until IS NULL OR lease_until < now()) ORDER BY created_at LIMIT 100`,
      );
      return rows.map((r) => r.id);
    },
    async deleteMetadata(projectId, traceIds, userId) {
      return inTransaction(pool, async (client) => {
        const counts: Record<string, number> = {};
        if (traceIds.length) {
          for (const table of TRACE_ROW_TABLES) {
            const r = await client.query(`DELETE FROM ${table} WHERE project_id = $1 AND trace_id = ANY($2::text[])`, [projectId, traceIds]);
            if (r.rowCount) counts[table] = r.rowCount;
          }
          // A run's results stay (they are the run's record); they no longer point at a deleted trace.
          const unlinked = await client.query(
            `UPDATE eval_case_results SET trace_id = NULL WHERE trace_id = ANY($2::text[]) AND run_id IN (SELECT id FROM eval_runs WHERE project_id = $1)`,
            [projectId, traceIds],
          );
          if (unlinked.rowCount) counts.eval_case_results_unlinked = unlinked.rowCount;
          // A session rule's evaluations quote the session's turns in their reasons: gone with any of its traces they read.
          const sessions = await client.query(
            `DELETE FROM online_session_evaluations WHERE project_id = $1 AND session_id IN (
               SELECT session_id FROM online_session_evaluations WHERE project_id = $1 AND last_trace_id = ANY($2::text[]))`,
            [projectId, traceIds],
          );
          if (sessions.rowCount) counts.online_session_evaluations = sessions.rowCount;
        }
        if (userId !== null) {
          const given = await client.query('DELETE FROM feedback WHERE project_id = $1 AND user_id = $2', [projectId, userId]);
          if (given.rowCount) counts.feedback = (counts.feedback ?? 0) + given.rowCount;
        }
        return counts;
      });
    },
    async complete(id, tracesDeleted, rowsDeleted) {
      await pool.query(
        `UPDATE data_deletions SET status = 'completed', completed_at = now(), lease_until = NULL, last_error = NULL, traces_deleted = $2, rows_deleted = $3 WHERE id = $1`,
        [id, tracesDeleted, JSON.stringify(rowsDeleted)],
      );
    },
    async retryLater(id, error, retryInMs) {
      await pool.query(
        `UPDATE data_deletions SET status = 'pending', last_error = $2, lease_until = now() + make_interval(secs => $3::double precision / 1000) WHERE id = $1 AND status <> 'completed'`,
        [id, error.slice(0, 2000), retryInMs],
      );
    },
  };
}
