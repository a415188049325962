import type { ClickHouseClient } from './client.js';
import type { Migration, MigrationTarget } from '../migrations.js';
import { DATABASE } from './client.js';
import { clusterLedgerDdl, clusterMigrationStatements, localTable, onCluster } from './cluster-ddl.js';

const LEDGER = `${DATABASE}.schema_migrations`;

/** Where the migrations go: one node (the default), or a cluster by name (`CLICKHOUSE_CLUSTER`). */
export interface ClickHouseMigrationOptions {
  cluster?: string;
}

/**
 * The statements a migration runs: the file's as written on one node, their cluster form
 * (cluster-ddl.ts) with a cluster.
 */
export function migrationStatements(migration: Migration, options: ClickHouseMigrationOptions = {}): string[] {
  return options.cluster ? clusterMigrationStatements(migration, options.cluster) : migration.statements;
}

/** Records applied ClickHouse migrations in a small MergeTree table (replicated on a cluster). */
export function clickhouseMigrationTarget(client: ClickHouseClient, options: ClickHouseMigrationOptions = {}): MigrationTarget {
  const { cluster } = options;
  return {
    store: 'clickhouse',
    async applied() {
      if (cluster) {
        // connectClickHouse created the database on the node it reached; here, on every node.
        await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${DATABASE}${onCluster(cluster)}` });
      }
      await client.command({
        query: cluster
          ? clusterLedgerDdl(LEDGER, cluster)
          : `CREATE TABLE IF NOT EXISTS ${LEDGER} (id String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = MergeTree ORDER BY id`,
      });
      const rs = await client.query({ query: `SELECT id FROM ${LEDGER}`, format: 'JSONEachRow' });
      const rows = await rs.json<{ id: string }>();
      return new Set(rows.map((r) => r.id));
    },
    async apply(migration: Migration) {
      // ClickHouse has no transactional DDL: statements are written idempotently (IF NOT EXISTS)
      // so a migration interrupted half-way can simply run again.
      for (const statement of migrationStatements(migration, options)) await client.command({ query: statement });
      await client.insert({ table: LEDGER, values: [{ id: migration.id }], format: 'JSONEachRow' });
    },
  };
}

/** Time-partitioned tables and the column their TTL counts from. */
const RETAINED_TABLES: Record<string, string> = { spans: 'start_time', trace_stats: 'min_start', scores: 'created_at' };

/**
 * Sets the TTL of the time-partitioned tables to `days` (RETENTION_DAYS). Altered only when it
 * differs, since MODIFY TTL rewrites parts. On a cluster the TTL is the local tables', on every node.
 */
export async function applyRetention(client: ClickHouseClient, days: number, options: ClickHouseMigrationOptions = {}): Promise<void> {
  const { cluster } = options;
  const byLocal = new Map(Object.entries(RETAINED_TABLES).map(([name, column]) => [localTable(name, cluster), column]));
  const rs = await client.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)}`,
    query_params: { db: DATABASE, names: [...byLocal.keys()] },
    format: 'JSONEachRow',
  });
  const tables = await rs.json<{ name: string; engine_full: string }>();
  for (const t of tables) {
    if (t.engine_full.includes(`toIntervalDay(${days})`)) continue;
    const column = byLocal.get(t.name);
    await client.command({
      query: `ALTER TABLE ${DATABASE}.${t.name}${onCluster(cluster)} MODIFY TTL toDateTime(${column}) + INTERVAL ${Math.trunc(days)} DAY`,
    });
  }
}
