import type pg from 'pg';
import type { ProjectAdminStore, ProjectChange, ProjectChangeRefusal } from '../project-admin.js';
import type { AdminProjectView, ProjectStatus } from '../../model/project.js';
import { inTransaction } from './transaction.js';

export type { ProjectAdminStore, ProjectChange, ProjectChangeRefusal };

interface Row {
  id: string;
  name: string;
  is_default: boolean;
  created_at: Date;
  archived_at: Date | null;
  deleted_at: Date | null;
  purged_at: Date | null;
}

const COLUMNS = 'id, name, is_default, created_at, archived_at, deleted_at, purged_at';

function statusOf(r: Pick<Row, 'archived_at' | 'deleted_at' | 'purged_at'>): ProjectStatus {
  if (r.purged_at) return 'deleted';
  if (r.deleted_at) return 'deleting';
  return r.archived_at ? 'archived' : 'active';
}

function toView(r: Row): AdminProjectView {
  return {
    id: r.id,
    name: r.name,
    is_default: r.is_default,
    created_at: r.created_at.toISOString(),
    archived_at: r.archived_at?.toISOString() ?? null,
    status: statusOf(r),
    deleted_at: r.deleted_at?.toISOString() ?? null,
    purged_at: r.purged_at?.toISOString() ?? null,
  };
}

/**
 * Rows of a project that name it through a parent rather than a `project_id` of their own, and
 * whose foreign key does not cascade: deleted first. Every table with a `project_id` column is
 * then emptied of the project whatever its name, so a table added later is covered without a
 * list to keep up to date; the audit log is kept (it records the deletion itself).
 */
const CHILDREN_FIRST: ReadonlyArray<{ table: string; sql: string }> = [
  { table: 'prompt_labels', sql: 'DELETE FROM prompt_labels WHERE prompt_id IN (SELECT id FROM prompts WHERE project_id = $1)' },
  { table: 'prompt_versions', sql: 'DELETE FROM prompt_versions WHERE prompt_id IN (SELECT id FROM prompts WHERE project_id = $1)' },
  { table: 'suite_versions', sql: 'DELETE FROM suite_versions WHERE suite_id IN (SELECT id FROM suites WHERE project_id = $1)' },
];
const KEPT_TABLES = ['projects', 'audit_log'];
/** Passes over the tables: one whose rows are still referenced (a foreign key without cascade) is tried again after the others. */
const MAX_PASSES = 5;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function createProjectAdminStore(pool: pg.Pool): ProjectAdminStore {
  /** Sets or clears archived_at of a live project (the default project is never archived); the same state again is not an error. */
  async function setArchived(id: string, archived: boolean): Promise<ProjectChange> {
    const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM projects WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row) return { ok: false, reason: 'not_found' };
    if (row.deleted_at) return { ok: false, reason: 'deleted' };
    if (archived && row.is_default) return { ok: false, reason: 'is_default' };
    if ((row.archived_at !== null) === archived) return { ok: true, project: toView(row) };
    const updated = await pool.query<Row>(
      `UPDATE projects SET archived_at = ${archived ? 'now()' : 'NULL'} WHERE id = $1 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
      [id],
    );
    return updated.rows[0] ? { ok: true, project: toView(updated.rows[0]) } : { ok: false, reason: 'deleted' };
  }

  return {
    async status(id) {
      const { rows } = await pool.query<Row>('SELECT archived_at, deleted_at, purged_at FROM projects WHERE id = $1', [id]);
      return rows[0] ? statusOf(rows[0]) : null;
    },

    async listAll() {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM projects ORDER BY created_at, id`);
      return rows.map(toView);
    },

    archive: (id) => setArchived(id, true),
    unarchive: (id) => setArchived(id, false),

    async requestDeletion(id) {
      return inTransaction<ProjectChange>(pool, async (client) => {
        const current = await client.query<Row>(`SELECT ${COLUMNS} FROM projects WHERE id = $1 FOR UPDATE`, [id]);
        const row = current.rows[0];
        if (!row) return { ok: false, reason: 'not_found' };
        // Asked again: nothing more to do here (no revokedPrefixes: not a new request).
        if (row.deleted_at) return { ok: true, project: toView(row) };
        if (row.is_default) return { ok: false, reason: 'is_default' };
        if (!row.archived_at) return { ok: false, reason: 'not_archived' };
        const marked = await client.query<Row>(`UPDATE projects SET deleted_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
        const revoked = await client.query<{ prefix: string }>(
          'UPDATE api_keys SET revoked_at = now() WHERE project_id = $1 AND revoked_at IS NULL RETURNING prefix',
          [id],
        );
        return { ok: true, project: toView(marked.rows[0]), revokedPrefixes: revoked.rows.map((r) => r.prefix) };
      });
    },

    async pendingDeletions() {
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM projects WHERE deleted_at IS NOT NULL AND purged_at IS NULL ORDER BY deleted_at');
      return rows.map((r) => r.id);
    },

    async purge(id) {
      return inTransaction<Record<string, number> | null>(pool, async (client) => {
        // One purge at a time per project, across processes; a second one finds it purged.
        const locked = await client.query<Row>(`SELECT ${COLUMNS} FROM projects WHERE id = $1 FOR UPDATE`, [id]);
        if (!locked.rows[0]?.deleted_at || locked.rows[0].purged_at) return null;
        const deleted: Record<string, number> = {};
        for (const step of CHILDREN_FIRST) deleted[step.table] = (await client.query(step.sql, [id])).rowCount ?? 0;
        const { rows: tables } = await client.query<{ table_name: string }>(
          `SELECT c.table_name::text AS table_name FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
           WHERE c.table_schema::text = current_schema() AND c.column_name::text = 'project_id' AND NOT (c.table_name::text = ANY($1::text[]))
           ORDER BY 1`,
          [KEPT_TABLES],
        );
        let remaining = tables.map((t) => t.table_name);
        for (let pass = 0; pass < MAX_PASSES && remaining.length; pass++) {
          const blocked: string[] = [];
          for (const table of remaining) {
            await client.query('SAVEPOINT purge_table');
            try {
              deleted[table] = (deleted[table] ?? 0) + ((await client.query(`DELETE FROM ${quoteIdent(table)} WHERE project_id = $1`, [id])).rowCount ?? 0);
              await client.query('RELEASE SAVEPOINT purge_table');
            } catch (err) {
              await client.query('ROLLBACK TO SAVEPOINT purge_table');
              // 23503 foreign_key_violation: rows of another table still point here; after them.
              if ((err as { code?: unknown }).code !== '23503') throw err;
              blocked.push(table);
            }
          }
          remaining = blocked;
        }
        if (remaining.length) throw new Error(`project ${id}: rows of ${remaining.join(', ')} are still referenced; nothing was deleted`);
        await client.query('UPDATE projects SET purged_at = now() WHERE id = $1', [id]);
        return Object.fromEntries(Object.entries(deleted).filter(([, n]) => n > 0));
      });
    },
  };
}
