import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { isAlive } from '../os/processes.js';
import { connectClickHouse } from '../store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../store/clickhouse/migration-target.js';
import { readMigrations, type MigrationTarget } from '../store/migrations.js';
import { startEmbeddedPostgres } from '../store/postgres/embedded-postgres.js';
import { createPool } from '../store/postgres/metadata-store.js';
import { postgresMigrationTarget } from '../store/postgres/migration-target.js';
import { importClickHouse } from './clickhouse-backup.js';
import { CREDENTIALS_FILE, MANIFEST_FILE, parseManifest, type BackupManifest } from './manifest.js';
import { importPostgres } from './postgres-backup.js';
import { unpackTarGz } from './tar.js';

/** What a restore replaces in a data dir (with --force), once the archive is checked. */
const STORE_ENTRIES = ['clickhouse', 'postgres', 'temporal', CREDENTIALS_FILE];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

/** The pid of a live postmaster on this data dir, when a service (or its orphan) runs on it. */
function runningPostgres(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postgres', 'data', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/** Refuses a data dir in use, or (without `force`) holding anything. Nothing is removed here. */
function checkDataDir(dataDir: string, force: boolean): void {
  const pid = runningPostgres(dataDir);
  if (pid) throw new RestoreRefusedError(`a service is running on ${dataDir} (its PostgreSQL, pid ${pid}): stop it before restoring`);
  const entries = fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : [];
  if (entries.length && !force) {
    throw new RestoreRefusedError(
      `${dataDir} is not empty (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', ...' : ''}): restore into an empty data dir, or pass --force to replace its stores`,
    );
  }
}

/** Refuses names the restore would put into SQL, and files outside the archive's layout. */
function checkManifest(manifest: BackupManifest, names: Set<string>): void {
  for (const [store, tables] of [
    ['clickhouse', manifest.clickhouse.tables],
    ['postgres', manifest.postgres.tables],
  ] as const) {
    for (const t of tables) {
      if (!NAME.test(t.name) || !t.columns.every((c) => NAME.test(c)))
        throw new Error(`the backup names a ${store} table or column this restore does not accept: ${t.name}`);
      if (t.file !== `${store}/${t.name}.${store === 'clickhouse' ? 'native' : 'ndjson'}` || !names.has(t.file))
        throw new Error(`the backup's ${t.file} is missing`);
    }
  }
  for (const s of manifest.postgres.sequences) if (!NAME.test(s.name)) throw new Error(`the backup names a sequence this restore does not accept: ${s.name}`);
}

/** Refuses a backup of a newer agent-eval (a migration this version does not know), before anything is written. */
function checkMigrations(manifest: BackupManifest): void {
  for (const store of ['clickhouse', 'postgres'] as const) {
    const known = new Set(readMigrations(store).map((m) => m.id));
    const unknown = manifest[store].migrations.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new RestoreRefusedError(
        `the backup was taken by a newer agent-eval (${manifest.agent_eval_version}): its ${store === 'clickhouse' ? 'ClickHouse' : 'PostgreSQL'} store has migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this version does not know`,
      );
    }
  }
}

/**
 * Applies exactly the backup's migrations (the schema its rows were read from); the service
 * applies this version's later ones at its next start. A backup of a newer version is refused.
 */
async function migrateTo(target: MigrationTarget, ids: string[]): Promise<void> {
  const known = readMigrations(target.store);
  const done = await target.applied();
  for (const migration of known) if (ids.includes(migration.id) && !done.has(migration.id)) await target.apply(migration);
}

export interface RestoreResult {
  manifest: BackupManifest;
}

/**
 * Restores a backup archive (core/backup/create-backup.ts) into `dataDir` with the service
 * stopped: chDB and an embedded PostgreSQL are opened there, migrated to the backup's
 * migrations, filled and checked against the manifest's counts, and closed.
 */
export async function restoreBackup(archive: string, dataDir: string, options: { force?: boolean; logger: Logger }): Promise<RestoreResult> {
  if (!fs.existsSync(archive) || !fs.statSync(archive).isFile()) throw new RestoreRefusedError(`File not found: ${archive}`);
  checkDataDir(dataDir, options.force === true);
  fs.mkdirSync(dataDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(dataDir, '.restore-'));
  try {
    // The whole archive is read and checked before anything of the data dir is replaced.
    let manifest: BackupManifest;
    let names: Set<string>;
    try {
      names = new Set(await unpackTarGz(archive, work));
      if (!names.has(MANIFEST_FILE)) throw new Error('not an agent-eval backup: it has no manifest.json');
      manifest = parseManifest(fs.readFileSync(path.join(work, MANIFEST_FILE), 'utf8'));
      checkManifest(manifest, names);
      checkMigrations(manifest);
    } catch (err) {
      if (err instanceof RestoreRefusedError) throw err;
      throw new RestoreRefusedError(`${archive} cannot be restored: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const entry of STORE_ENTRIES) fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });

    const clickhouse = await connectClickHouse({ dataDir });
    try {
      await migrateTo(clickhouseMigrationTarget(clickhouse.client), manifest.clickhouse.migrations);
      await importClickHouse(clickhouse.client, manifest.clickhouse.tables, work);
    } finally {
      await clickhouse.close();
    }

    const postgres = await startEmbeddedPostgres(dataDir, options.logger);
    try {
      const pool = createPool(postgres.connectionString);
      try {
        await migrateTo(postgresMigrationTarget(pool), manifest.postgres.migrations);
        await importPostgres(pool, manifest.postgres, work);
      } finally {
        await pool.end();
      }
    } finally {
      await postgres.stop();
    }

    if (manifest.credentials && names.has(CREDENTIALS_FILE)) {
      fs.copyFileSync(path.join(work, CREDENTIALS_FILE), path.join(dataDir, CREDENTIALS_FILE));
      fs.chmodSync(path.join(dataDir, CREDENTIALS_FILE), 0o600);
    }
    return { manifest };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
