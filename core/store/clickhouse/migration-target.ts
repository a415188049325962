import type { ClickHouseClient } from './client.js';
import type { Migration, MigrationTarget } from '../migrations.js';
import { DATABASE } from './client.js';

const LEDGER = `${DATABASE}.schema_migrations`;

/** Records applied ClickHouse migrations in a small MergeTree table. */
export function clickhouseMigrationTarget(client: ClickHouseClient): MigrationTarget {
  return {
    store: 'clickhouse',
    async applied() {
      await client.command({
        query: `CREATE TABLE IF NOT EXISTS ${LEDGER} (id String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = MergeTree ORDER BY id`,
      });
      const rs = await client.query({ query: `SELECT id FROM ${LEDGER}`, format: 'JSONEachRow' });
      const rows = await rs.json<{ id: string }>();
      return new Set(rows.map((r) => r.id));
    },
    async apply(migration: Migration) {
      // ClickHouse has no transactional DDL: statements are written idempotently (IF NOT EXISTS)
      // so a migration interrupted half-way can simply run again.
      for (const statement of migration.statements) await client.command({ query: statement });
      await client.insert({ table: LEDGER, values: [{ id: migration.id }], format: 'JSONEachRow' });
    },
  };
}

/** Time-partitioned tables and the column their TTL counts from. */
const RETAINED_TABLES: Record<string, string> = { spans: 'start_time', trace_stats: 'min_start', scores: 'created_at' };

/**
 * Sets the TTL of the time-partitioned tables to `days` (RETENTION_DAYS). Altered only when it
 * differs, since MODIFY TTL rewrites parts.
 */
export async function applyRetention(client: ClickHouseClient, days: number): Promise<void> {
  const rs = await client.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)}`,
    query_params: { db: DATABASE, names: Object.keys(RETAINED_TABLES) },
    format: 'JSONEachRow',
  });
  const tables = await rs.json<{ name: string; engine_full: string }>();
  for (const t of tables) {
    if (t.engine_full.includes(`toIntervalDay(${days})`)) continue;
    const column = RETAINED_TABLES[t.name];
    await client.command({
      query: `ALTER TABLE ${DATABASE}.${t.name} MODIFY TTL toDateTime(${column}) + INTERVAL ${Math.trunc(days)} DAY`,
    });
  }
}
