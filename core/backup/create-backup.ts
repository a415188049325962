import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { PACKAGE_VERSION } from '../config.js';
import type { Logger } from '../logger.js';
import type { ClickHouseClient } from '../store/clickhouse/client.js';
import { appliedClickHouseMigrations, dropSnapshot, exportSnapshot, snapshotClickHouse } from './clickhouse-backup.js';
import { CREDENTIALS_FILE, MANIFEST_FILE, type BackupManifest } from './manifest.js';
import { snapshotPostgres } from './postgres-backup.js';
import { packTarGz } from './tar.js';
import type { WriteGate } from '../store/write-gate.js';

export interface BackupSourceDeps {
  /** The embedded chDB's client and its write gate (core/store/clickhouse/write-gate.ts). */
  clickhouse: ClickHouseClient;
  gate: WriteGate;
  /** The metadata store (embedded or DATABASE_URL). */
  pool: pg.Pool;
  /** The data dir: work files go under it (same disk as chDB), credentials.json is read from it. */
  dataDir: string;
  logger: Logger;
}

export interface BackupArchive {
  /** The .tar.gz on disk; `dispose()` removes it. */
  file: string;
  manifest: BackupManifest;
  dispose(): void;
}

/** One backup at a time per process: another while one runs is refused (BackupBusyError). */
export class BackupBusyError extends Error {
  constructor() {
    super('A backup is already being taken by this service; try again when it has finished');
    this.name = 'BackupBusyError';
  }
}

export interface BackupSource {
  /** Takes a backup of both stores as of one moment (see snapshot below) and packs it. */
  create(): Promise<BackupArchive>;
}

/**
 * A backup of an embedded install, taken by the process that owns chDB while it runs
 * (docs/operations.md, "Backup and restore"). The snapshot moment: writes to chDB are held
 * (the write gate waits for those in flight), every ClickHouse table is cloned by hard links,
 * the PostgreSQL snapshot is taken, writes go on; then both are exported as of that moment,
 * packed with a manifest into one .tar.gz. Writes are held for the cloning (well
 * under a second), not for the export.
 */
export function createBackupSource(deps: BackupSourceDeps): BackupSource {
  let busy = false;
  /** Work dirs of this process's archives still being sent (removed by dispose()). */
  const live = new Set<string>();
  return {
    async create() {
      if (busy) throw new BackupBusyError();
      busy = true;
      let work: string | undefined;
      try {
        // Work dirs a crash left behind: this process is the data dir's one owner, so the others are no one's.
        for (const entry of fs.readdirSync(deps.dataDir)) {
          if (/^backup-[0-9a-f-]{36}$/.test(entry) && !live.has(entry)) fs.rmSync(path.join(deps.dataDir, entry), { recursive: true, force: true });
        }
        const id = `backup-${randomUUID()}`;
        work = path.join(deps.dataDir, id);
        fs.mkdirSync(work, { recursive: true, mode: 0o700 });
        live.add(id);
        const started = Date.now();
        const { tables, pgSnapshot, createdAt } = await deps.gate.exclusive(async () => {
          try {
            const cloned = await snapshotClickHouse(deps.clickhouse);
            const snapshot = await snapshotPostgres(deps.pool);
            return { tables: cloned, pgSnapshot: snapshot, createdAt: new Date().toISOString() };
          } catch (err) {
            await dropSnapshot(deps.clickhouse).catch(() => undefined);
            throw err;
          }
        });
        deps.logger.info({ held_ms: Date.now() - started }, 'backup snapshot taken (writes were held meanwhile)');
        let postgres;
        try {
          postgres = await pgSnapshot.export(work);
        } finally {
          await pgSnapshot.close();
        }
        const clickhouseTables = await exportSnapshot(deps.clickhouse, tables, work);
        const credentials = path.join(deps.dataDir, CREDENTIALS_FILE);
        const hasCredentials = fs.existsSync(credentials);
        if (hasCredentials) fs.copyFileSync(credentials, path.join(work, CREDENTIALS_FILE));
        const manifest: BackupManifest = {
          format: 'agent-eval-backup',
          format_version: 1,
          agent_eval_version: PACKAGE_VERSION,
          created_at: createdAt,
          clickhouse: { migrations: await appliedClickHouseMigrations(deps.clickhouse), tables: clickhouseTables },
          postgres,
          credentials: hasCredentials,
        };
        fs.writeFileSync(path.join(work, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
        const names = [
          MANIFEST_FILE,
          ...(hasCredentials ? [CREDENTIALS_FILE] : []),
          ...postgres.tables.map((t) => t.file),
          ...clickhouseTables.map((t) => t.file),
        ];
        const file = path.join(work, 'backup.tar.gz');
        await packTarGz(work, names, file);
        for (const name of names) fs.rmSync(path.join(work, name), { force: true });
        deps.logger.info({ ms: Date.now() - started, bytes: fs.statSync(file).size }, 'backup packed');
        const done = work;
        return {
          file,
          manifest,
          dispose: () => {
            fs.rmSync(done, { recursive: true, force: true });
            live.delete(path.basename(done));
          },
        };
      } catch (err) {
        if (work) {
          fs.rmSync(work, { recursive: true, force: true });
          live.delete(path.basename(work));
        }
        throw err;
      } finally {
        busy = false;
      }
    },
  };
}
