import path from 'node:path';
import type { ClickHouseClient } from '../store/clickhouse/client.js';
import { DATABASE } from '../store/clickhouse/client.js';
import type { BackupTable } from './manifest.js';

/**
 * The analytical store's half of a backup of embedded chDB. `snapshotClickHouse` clones every
 * stored table (the MergeTree ones; Null tables and views hold nothing) into a side database by
 * hard-linking its active parts (ATTACH PARTITION ... FROM: no data is copied), which takes
 * milliseconds: it runs while the write gate holds writes, so every table is cloned at the same
 * moment. `exportSnapshot` then writes the clones to files in Native format (every column type
 * as stored, aggregate states included) while writes flow again, and drops them.
 */

const SNAPSHOT_DB = `${DATABASE}_snapshot`;
/** The migration ledger is not data: a restore applies the backup's migrations, which writes it. */
const LEDGER = 'schema_migrations';

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

async function rows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const rs = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return rs.json<T>();
}

/** The stored tables of the database, the ledger aside. */
async function storedTables(client: ClickHouseClient, database: string): Promise<string[]> {
  const tables = await rows<{ name: string }>(
    client,
    `SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' AND name != {ledger:String} ORDER BY name`,
    { db: database, ledger: LEDGER },
  );
  return tables.map((t) => t.name);
}

/** The columns an insert takes (not MATERIALIZED or ALIAS ones), in table order. */
async function insertableColumns(client: ClickHouseClient, database: string, table: string): Promise<string[]> {
  const cols = await rows<{ name: string }>(
    client,
    `SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS', 'EPHEMERAL') ORDER BY position`,
    { db: database, t: table },
  );
  return cols.map((c) => c.name);
}

export async function appliedClickHouseMigrations(client: ClickHouseClient): Promise<string[]> {
  const ids = await rows<{ id: string }>(client, `SELECT DISTINCT id FROM ${DATABASE}.${LEDGER} ORDER BY id`);
  return ids.map((r) => r.id);
}

/** Drops a snapshot left by a backup that did not finish (a crash mid-export). */
export async function dropSnapshot(client: ClickHouseClient): Promise<void> {
  await client.command({ query: `DROP DATABASE IF EXISTS ${SNAPSHOT_DB} SYNC` });
}

/** Clones every stored table at this moment (run it with writes held). Returns the tables cloned. */
export async function snapshotClickHouse(client: ClickHouseClient): Promise<string[]> {
  await dropSnapshot(client);
  await client.command({ query: `CREATE DATABASE ${SNAPSHOT_DB}` });
  const tables = await storedTables(client, DATABASE);
  for (const table of tables) {
    await client.command({ query: `CREATE TABLE ${SNAPSHOT_DB}.${table} AS ${DATABASE}.${table}` });
    const partitions = await rows<{ partition_id: string }>(
      client,
      'SELECT DISTINCT partition_id FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active',
      { db: DATABASE, t: table },
    );
    for (const { partition_id } of partitions) {
      await client.command({ query: `ALTER TABLE ${SNAPSHOT_DB}.${table} ATTACH PARTITION ID ${quote(partition_id)} FROM ${DATABASE}.${table}` });
    }
  }
  return tables;
}

/** Writes each cloned table to `<dir>/clickhouse/<table>.native`, then drops the clones. */
export async function exportSnapshot(client: ClickHouseClient, tables: string[], dir: string): Promise<BackupTable[]> {
  const out: BackupTable[] = [];
  try {
    for (const table of tables) {
      const file = `clickhouse/${table}.native`;
      const columns = await insertableColumns(client, SNAPSHOT_DB, table);
      const [{ n }] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${SNAPSHOT_DB}.${table}`);
      await client.command({
        query: `INSERT INTO FUNCTION file(${quote(path.join(dir, file))}, 'Native') SELECT ${columns.map((c) => `\`${c}\``).join(', ')} FROM ${SNAPSHOT_DB}.${table}`,
      });
      out.push({ name: table, rows: Number(n), file, columns });
    }
  } finally {
    await dropSnapshot(client);
  }
  return out;
}

/**
 * Loads the tables of a backup into a store migrated to the backup's migrations: each emptied,
 * then filled from its file; the row counts are checked against the manifest.
 */
export async function importClickHouse(client: ClickHouseClient, tables: BackupTable[], dir: string): Promise<void> {
  for (const table of tables) {
    const columns = table.columns.map((c) => `\`${c}\``).join(', ');
    await client.command({ query: `TRUNCATE TABLE ${DATABASE}.${table.name}` });
    await client.command({
      query: `INSERT INTO ${DATABASE}.${table.name} (${columns}) SELECT ${columns} FROM file(${quote(path.join(dir, table.file))}, 'Native')`,
    });
    const [{ n }] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${DATABASE}.${table.name}`);
    if (Number(n) !== table.rows) throw new Error(`ClickHouse table ${table.name}: ${n} rows restored, the backup has ${table.rows}`);
  }
}
