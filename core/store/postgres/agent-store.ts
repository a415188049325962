import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { AgentStore } from '../agents.js';
import { ConflictError } from '../../errors.js';
import { isUniqueViolation } from './transaction.js';
import { endpointRecord, newestFirstPage, type RowOf } from './rows.js';
import { isUuid, toAgentView, type AgentRecord } from '../../model/agent.js';

export type { AgentStore };

type AgentRow = RowOf<Omit<AgentRecord, 'header_names'>, 'created_at' | 'updated_at'>;

const COLUMNS = 'id, name, endpoint, description, headers, created_at, updated_at';

/** The one converter from a row. */
const toRecord = (row: AgentRow): AgentRecord => endpointRecord(row);

/** `$2` is the reference as an id (null when it cannot be one), `$3` as a name. */
const MATCH_REF = 'project_id = $1 AND (id = $2::uuid OR name = $3)';
const ID_FIRST = 'ORDER BY (id IS NOT DISTINCT FROM $2::uuid) DESC LIMIT 1';

function refParams(projectId: string, idOrName: string): [string, string | null, string] {
  return [projectId, isUuid(idOrName) ? idOrName : null, idOrName];
}

function nameTaken(name: string, err: unknown): unknown {
  return isUniqueViolation(err) ? new ConflictError(`An agent named '${name}' already exists in this project`, 'AGENT_NAME_TAKEN') : err;
}

export function createAgentStore(pool: pg.Pool): AgentStore {
  async function findRecord(projectId: string, idOrName: string): Promise<AgentRecord | null> {
    const { rows } = await pool.query<AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE ${MATCH_REF} ${ID_FIRST}`, refParams(projectId, idOrName));
    return rows.length ? toRecord(rows[0]) : null;
  }

  return {
    async create(projectId, input) {
      try {
        const { rows } = await pool.query<AgentRow>(
          `INSERT INTO agents (id, project_id, name, endpoint, description, headers) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
          [randomUUID(), projectId, input.name, input.endpoint, input.description ?? null, JSON.stringify(input.headers ?? {})],
        );
        return toAgentView(toRecord(rows[0]));
      } catch (err) {
        throw nameTaken(input.name, err);
      }
    },

    async list(projectId, page) {
      const { rows, total } = await newestFirstPage<AgentRow>(pool, 'agents', COLUMNS, projectId, page);
      return { agents: rows.map((row) => toAgentView(toRecord(row))), total, limit: page.limit, offset: page.offset };
    },

    async resolve(projectId, idOrName) {
      const record = await findRecord(projectId, idOrName);
      return record && toAgentView(record);
    },

    async update(projectId, idOrName, input) {
      try {
        const { rows } = await pool.query<AgentRow>(
          `UPDATE agents SET name = $4, endpoint = $5, description = $6,
             headers = CASE WHEN $7::jsonb IS NOT NULL THEN $7::jsonb WHEN endpoint = $5 THEN headers ELSE '{}'::jsonb END, updated_at = now()
           WHERE project_id = $1 AND id = (SELECT id FROM agents WHERE ${MATCH_REF} ${ID_FIRST})
           RETURNING ${COLUMNS}`,
          [
            ...refParams(projectId, idOrName),
            input.name,
            input.endpoint,
            input.description ?? null,
            input.headers === undefined ? null : JSON.stringify(input.headers),
          ],
        );
        return rows.length ? toAgentView(toRecord(rows[0])) : null;
      } catch (err) {
        throw nameTaken(input.name, err);
      }
    },

    async delete(projectId, idOrName) {
      const { rowCount } = await pool.query(
        `DELETE FROM agents WHERE project_id = $1 AND id = (SELECT id FROM agents WHERE ${MATCH_REF} ${ID_FIRST})`,
        refParams(projectId, idOrName),
      );
      return (rowCount ?? 0) > 0;
    },

    resolveForCall: findRecord,
  };
}
