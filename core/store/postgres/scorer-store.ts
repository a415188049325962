import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { CustomScorerStore } from '../custom-scorers.js';
import { ConflictError } from '../../errors.js';
import { isUuid } from '../../model/agent.js';
import { toCustomScorerView, type CustomScorerRecord } from '../../model/custom-scorer.js';
import { isUniqueViolation } from './transaction.js';
import { endpointRecord, newestFirstPage, type RowOf } from './rows.js';

export type { CustomScorerStore };

type Row = RowOf<Omit<CustomScorerRecord, 'header_names'>, 'created_at' | 'updated_at'>;

const COLUMNS = 'id, name, endpoint, data_type, description, headers, created_at, updated_at';
const MATCH_REF = 'project_id = $1 AND (id = $2::uuid OR name = $3)';

const toRecord = (row: Row): CustomScorerRecord => endpointRecord(row);

const refParams = (projectId: string, idOrName: string): [string, string | null, string] => [projectId, isUuid(idOrName) ? idOrName : null, idOrName];

export function createCustomScorerStore(pool: pg.Pool): CustomScorerStore {
  return {
    async create(projectId, input) {
      try {
        const { rows } = await pool.query<Row>(
          `INSERT INTO custom_scorers (id, project_id, name, endpoint, data_type, description, headers) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${COLUMNS}`,
          [randomUUID(), projectId, input.name, input.endpoint, input.dataType, input.description ?? null, JSON.stringify(input.headers ?? {})],
        );
        return toCustomScorerView(toRecord(rows[0]));
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`A scorer named '${input.name}' already exists in this project`, 'SCORER_NAME_TAKEN');
        throw err;
      }
    },

    async list(projectId, page) {
      const { rows, total } = await newestFirstPage<Row>(pool, 'custom_scorers', COLUMNS, projectId, page);
      return { scorers: rows.map((row) => toCustomScorerView(toRecord(row))), total, limit: page.limit, offset: page.offset };
    },

    async resolve(projectId, idOrName) {
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM custom_scorers WHERE ${MATCH_REF} ORDER BY (id IS NOT DISTINCT FROM $2::uuid) DESC LIMIT 1`,
        refParams(projectId, idOrName),
      );
      return rows.length ? toCustomScorerView(toRecord(rows[0])) : null;
    },

    async delete(projectId, idOrName) {
      const { rowCount } = await pool.query(
        `DELETE FROM custom_scorers WHERE project_id = $1 AND id = (SELECT id FROM custom_scorers WHERE ${MATCH_REF} ORDER BY (id IS NOT DISTINCT FROM $2::uuid) DESC LIMIT 1)`,
        refParams(projectId, idOrName),
      );
      return (rowCount ?? 0) > 0;
    },

    async allForCall(projectId) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM custom_scorers WHERE project_id = $1 ORDER BY name`, [projectId]);
      return rows.map(toRecord);
    },
  };
}
