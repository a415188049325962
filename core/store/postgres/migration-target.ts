import type pg from 'pg';
import type { Migration, MigrationTarget } from '../migrations.js';
import { inTransaction } from './transaction.js';

/** An arbitrary constant: serializes migration runs of several processes on one database. */
const MIGRATION_LOCK = 7_246_001;

/** Applies each PostgreSQL migration in one transaction with its ledger row. */
export function postgresMigrationTarget(pool: pg.Pool): MigrationTarget {
  return {
    store: 'postgres',
    async applied() {
      await pool.query('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM schema_migrations');
      return new Set(rows.map((r) => r.id));
    },
    async apply(migration: Migration) {
      await inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        const { rowCount } = await client.query('SELECT 1 FROM schema_migrations WHERE id = $1', [migration.id]);
        if (!rowCount) {
          for (const statement of migration.statements) await client.query(statement);
          await client.query('INSERT INTO schema_migrations (id) VALUES ($1)', [migration.id]);
        }
      });
    },
  };
}
