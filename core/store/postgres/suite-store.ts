import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { SuiteStore } from '../suites.js';
import { ConflictError } from '../../errors.js';
import { isUuid } from '../../model/agent.js';
import type { SuiteDefinition, SuiteSummary, SuiteVersion } from '../../model/suite.js';
import { inTransaction, isUniqueViolation } from './transaction.js';
import { isoTimes, type RowOf } from './rows.js';

export type { SuiteStore };

type SummaryRow = RowOf<SuiteSummary, 'created_at' | 'updated_at'>;

interface VersionRow {
  id: string;
  name: string;
  version: number;
  latest_version: number;
  definition: SuiteDefinition;
  created_at: Date;
  updated_at: Date;
  version_created_at: Date;
}

const toSummary = (row: SummaryRow) => isoTimes<SuiteSummary, 'created_at' | 'updated_at'>(row, ['created_at', 'updated_at']);

function toVersion(row: VersionRow): SuiteVersion {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version_created_at: row.version_created_at.toISOString(),
  };
}

const SUMMARY = `SELECT s.id, s.name, v.description, s.latest_version AS version, v.case_count, v.agent_id, s.created_at, s.updated_at
  FROM suites s JOIN suite_versions v ON v.suite_id = s.id AND v.version = s.latest_version`;

/** `$3` is the version wanted, null for the latest. */
const VERSION = `SELECT s.id, s.name, v.version, s.latest_version, v.definition, s.created_at, s.updated_at, v.created_at AS version_created_at
  FROM suites s JOIN suite_versions v ON v.suite_id = s.id AND v.version = COALESCE($3::int, s.latest_version)`;

const INSERT_VERSION = `INSERT INTO suite_versions (suite_id, version, definition, name, description, agent_id, case_count)
  VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)`;

function versionParams(suiteId: string, version: number, def: SuiteDefinition): unknown[] {
  const agentId = def.agent_id && isUuid(def.agent_id) ? def.agent_id : null;
  return [suiteId, version, JSON.stringify(def), def.name, def.description ?? null, agentId, def.cases.length];
}

function nameTaken(name: string, err: unknown): unknown {
  const unique = isUniqueViolation(err);
  return unique ? new ConflictError(`A suite named '${name}' already exists in this project`, 'SUITE_NAME_TAKEN') : err;
}

export function createSuiteStore(pool: pg.Pool): SuiteStore {
  async function summary(client: pg.ClientBase, projectId: string, id: string): Promise<SuiteSummary> {
    const { rows } = await client.query<SummaryRow>(`${SUMMARY} WHERE s.project_id = $1 AND s.id = $2`, [projectId, id]);
    return toSummary(rows[0]);
  }

  return {
    async create(projectId, def) {
      const id = randomUUID();
      try {
        return await inTransaction(pool, async (client) => {
          await client.query('INSERT INTO suites (id, project_id, name, latest_version) VALUES ($1, $2, $3, 1)', [id, projectId, def.name]);
          await client.query(INSERT_VERSION, versionParams(id, 1, def));
          return summary(client, projectId, id);
        });
      } catch (err) {
        throw nameTaken(def.name, err);
      }
    },

    async list(projectId, { limit, offset, name }) {
      const filter = name === undefined ? '' : ' AND strpos(lower(s.name), lower($2)) > 0';
      const params = name === undefined ? [projectId] : [projectId, name];
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<SummaryRow>(
          `${SUMMARY} WHERE s.project_id = $1 AND s.deleted_at IS NULL${filter} ORDER BY s.created_at DESC, s.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, limit, offset],
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM suites s WHERE s.project_id = $1 AND s.deleted_at IS NULL${filter}`, params),
      ]);
      return { suites: page.rows.map(toSummary), total: count.rows[0].total, limit, offset };
    },

    async get(projectId, id, version, opts = {}) {
      if (!isUuid(id)) return null;
      const live = opts.includeDeleted ? '' : ' AND s.deleted_at IS NULL';
      const { rows } = await pool.query<VersionRow>(`${VERSION} WHERE s.project_id = $1 AND s.id = $2${live}`, [projectId, id, version ?? null]);
      return rows.length ? toVersion(rows[0]) : null;
    },

    async getByName(projectId, name, version) {
      const { rows } = await pool.query<VersionRow>(`${VERSION} WHERE s.project_id = $1 AND s.name = $2 AND s.deleted_at IS NULL`, [
        projectId,
        name,
        version ?? null,
      ]);
      return rows.length ? toVersion(rows[0]) : null;
    },

    async versions(projectId, id) {
      if (!isUuid(id)) return null;
      const { rows } = await pool.query<{ version: number | null; created_at: Date | null; case_count: number | null }>(
        `SELECT v.version, v.created_at, v.case_count FROM suites s LEFT JOIN suite_versions v ON v.suite_id = s.id
         WHERE s.project_id = $1 AND s.id = $2 AND s.deleted_at IS NULL ORDER BY v.version DESC`,
        [projectId, id],
      );
      if (!rows.length) return null;
      return rows.flatMap((r) => (r.version === null ? [] : [{ version: r.version, created_at: r.created_at!.toISOString(), case_count: r.case_count! }]));
    },

    async update(projectId, id, def) {
      if (!isUuid(id)) return null;
      try {
        return await inTransaction(pool, async (client) => {
          // The row lock makes concurrent PUTs take turns: each gets its own version number.
          const { rows } = await client.query<{ latest_version: number }>(
            'SELECT latest_version FROM suites WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE',
            [projectId, id],
          );
          if (!rows.length) return null;
          const version = rows[0].latest_version + 1;
          await client.query(INSERT_VERSION, versionParams(id, version, def));
          await client.query('UPDATE suites SET latest_version = $3, name = $4, updated_at = now() WHERE project_id = $1 AND id = $2', [
            projectId,
            id,
            version,
            def.name,
          ]);
          return summary(client, projectId, id);
        });
      } catch (err) {
        throw nameTaken(def.name, err);
      }
    },

    async delete(projectId, id) {
      if (!isUuid(id)) return false;
      const { rowCount } = await pool.query('UPDATE suites SET deleted_at = now() WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL', [projectId, id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
