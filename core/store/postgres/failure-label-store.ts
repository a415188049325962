import type pg from 'pg';
import type { FailureLabelStore } from '../failure-labels.js';

/** `failure_labels` (migration 019): the labels of failure groups by signature key. */
export function createFailureLabelStore(pool: pg.Pool): FailureLabelStore {
  return {
    async get(projectId, keys) {
      if (keys.length === 0) return new Map();
      const { rows } = await pool.query<{ signature_key: string; label: string }>(
        'SELECT signature_key, label FROM failure_labels WHERE project_id = $1 AND signature_key = ANY($2::text[])',
        [projectId, [...keys]],
      );
      return new Map(rows.map((r) => [r.signature_key, r.label]));
    },
    async put(projectId, key, { label, provider }) {
      await pool.query(
        'INSERT INTO failure_labels (project_id, signature_key, label, provider) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, signature_key) DO NOTHING',
        [projectId, key, label, provider],
      );
    },
  };
}
