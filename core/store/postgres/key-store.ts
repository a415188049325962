import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { KeyStore, StoredKey } from '../keys.js';
import { generateApiKey } from '../../auth/api-key.js';
import type { ApiKeyView, ProjectView } from '../../model/project.js';
import { isoTimes, type RowOf } from './rows.js';

export type { ApiKeyView, ProjectView } from '../../model/project.js';

export type { KeyStore, StoredKey };

type KeyRow = RowOf<ApiKeyView, KeyTimes>;
type KeyTimes = 'created_at' | 'last_used_at' | 'revoked_at';

const KEY_COLUMNS = 'id, project_id, name, role, prefix, server_admin, created_by, created_at, last_used_at, revoked_at';

const toKeyView = (row: KeyRow) => isoTimes<ApiKeyView, KeyTimes>(row, ['created_at', 'last_used_at', 'revoked_at']);

type ProjectRow = RowOf<ProjectView, 'created_at' | 'archived_at'>;

const PROJECT_COLUMNS = 'id, name, is_default, created_at, archived_at';

const toProjectView = (row: ProjectRow) => isoTimes<ProjectView, 'created_at' | 'archived_at'>(row, ['created_at', 'archived_at']);

export function createKeyStore(pool: pg.Pool): KeyStore {
  return {
    async createKey(projectId, { name, role, env, createdBy, serverAdmin }) {
      const made = generateApiKey(env);
      const { rows } = await pool.query<KeyRow>(
        `INSERT INTO api_keys (id, project_id, name, role, prefix, key_hash, created_by, server_admin) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLUMNS}`,
        [randomUUID(), projectId, name, role, made.prefix, made.hash, createdBy ?? null, serverAdmin === true],
      );
      return { ...toKeyView(rows[0]), key: made.key };
    },

    async findByPrefix(prefix) {
      const { rows } = await pool.query<Omit<StoredKey, 'revoked'> & { revoked_at: Date | null }>(
        'SELECT id, project_id, name, role, server_admin, key_hash, revoked_at FROM api_keys WHERE prefix = $1',
        [prefix],
      );
      const row = rows[0];
      return row
        ? {
            id: row.id,
            project_id: row.project_id,
            name: row.name,
            role: row.role,
            server_admin: row.server_admin,
            key_hash: row.key_hash,
            revoked: row.revoked_at !== null,
          }
        : null;
    },

    async listKeys(projectId) {
      const { rows } = await pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY created_at DESC, id`, [projectId]);
      return rows.map(toKeyView);
    },

    async revokeKey(projectId, keyId) {
      const { rows } = await pool.query<KeyRow>(
        `UPDATE api_keys SET revoked_at = now() WHERE project_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
        [projectId, keyId],
      );
      return rows[0] ? toKeyView(rows[0]) : null;
    },

    async touchKeys(ids) {
      if (ids.length) await pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1::uuid[])', [ids]);
    },

    async anyKey() {
      const { rows } = await pool.query('SELECT 1 FROM api_keys LIMIT 1');
      return rows.length > 0;
    },

    async createProject({ id, name }) {
      const { rows } = await pool.query<ProjectRow>(
        `INSERT INTO projects (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING ${PROJECT_COLUMNS}`,
        [id ?? randomUUID(), name],
      );
      return rows[0] ? toProjectView(rows[0]) : null;
    },

    async getProject(id) {
      const { rows } = await pool.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1 AND deleted_at IS NULL`, [id]);
      return rows[0] ? toProjectView(rows[0]) : null;
    },

    async listProjects(ids) {
      const { rows } = await pool.query<ProjectRow>(
        `SELECT ${PROJECT_COLUMNS} FROM projects WHERE deleted_at IS NULL ${ids ? 'AND id = ANY($1::text[])' : ''} ORDER BY created_at, id`,
        ids ? [ids] : [],
      );
      return rows.map(toProjectView);
    },
  };
}
