import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, type BackupManifest } from '../../core/backup/manifest.js';
import { restoreBackup } from '../../core/backup/restore.js';
import { packTarGz } from '../../core/backup/tar.js';
import { PACKAGE_VERSION } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { readMigrations } from '../../core/store/migrations.js';
import { makeDataDir } from '../helpers/data-dir.js';

/**
 * What `agent-eval restore` refuses, before it writes anything: a file that is not a backup, a
 * damaged one, a backup of a newer agent-eval, a data dir that is not empty. With --force, a
 * refused archive still leaves the data dir as it was: the archive is checked before the stores
 * are replaced. (The restore that succeeds: test/e2e/backup-restore.test.ts.)
 */

const logger = createLogger('silent');
const work = makeDataDir('agent-eval-backup-refusals-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function manifest(overrides: Partial<BackupManifest> = {}): BackupManifest {
  return {
    format: 'agent-eval-backup',
    format_version: 1,
    agent_eval_version: PACKAGE_VERSION,
    created_at: new Date().toISOString(),
    clickhouse: { migrations: readMigrations('clickhouse').map((m) => m.id), tables: [] },
    postgres: { migrations: readMigrations('postgres').map((m) => m.id), tables: [], sequences: [] },
    credentials: false,
    ...overrides,
  };
}

async function archiveOf(name: string, files: Record<string, string>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(work, 'src-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const out = path.join(work, name);
  await packTarGz(dir, Object.keys(files), out);
  return out;
}

/** A data dir holding a service's entries, which a refused --force restore must leave alone. */
function populatedDataDir(): string {
  const dir = makeDataDir('agent-eval-backup-refusals-dir-');
  fs.mkdirSync(path.join(dir, 'clickhouse'));
  fs.writeFileSync(path.join(dir, 'clickhouse', 'part'), 'data');
  fs.writeFileSync(path.join(dir, 'credentials.json'), '{"api_key":"ae_live_x"}');
  return dir;
}

const entries = (dir: string) => fs.readdirSync(dir).sort();

describe('agent-eval restore refuses', () => {
  it('a file that does not exist', async () => {
    await expect(restoreBackup(path.join(work, 'missing.tar.gz'), makeDataDir(), { logger })).rejects.toThrow(/^File not found: /);
  });

  it('a data dir that is not empty, without --force', async () => {
    const dir = populatedDataDir();
    const archive = await archiveOf('ok.tar.gz', { [MANIFEST_FILE]: JSON.stringify(manifest()) });
    await expect(restoreBackup(archive, dir, { logger })).rejects.toThrow(
      `${dir} is not empty (clickhouse, credentials.json): restore into an empty data dir, or pass --force to replace its stores`,
    );
    expect(entries(dir)).toEqual(['clickhouse', 'credentials.json']);
  });

  const refusals: Array<[string, () => Promise<string>, RegExp]> = [
    [
      'a file that is not an archive',
      () => {
        const f = path.join(work, 'notes.txt');
        fs.writeFileSync(f, 'hello');
        return Promise.resolve(f);
      },
      /cannot be restored: incorrect header check/,
    ],
    [
      'an archive without a manifest',
      () => archiveOf('no-manifest.tar.gz', { 'postgres/projects.ndjson': '{}\n' }),
      /cannot be restored: not an agent-eval backup: it has no manifest.json/,
    ],
    [
      'a manifest of something else',
      () => archiveOf('other.tar.gz', { [MANIFEST_FILE]: '{"format":"other"}' }),
      /not an agent-eval backup: manifest.json has no "format": "agent-eval-backup"/,
    ],
    [
      'a later archive format',
      () => archiveOf('v2.tar.gz', { [MANIFEST_FILE]: JSON.stringify({ ...manifest(), format_version: 2 }) }),
      /backup format version 2 is not one this agent-eval reads \(1\)/,
    ],
    [
      'a table whose file is missing',
      () =>
        archiveOf('no-file.tar.gz', {
          [MANIFEST_FILE]: JSON.stringify(
            manifest({ postgres: { ...manifest().postgres, tables: [{ name: 'projects', rows: 1, file: 'postgres/projects.ndjson', columns: ['id'] }] } }),
          ),
        }),
      /the backup's postgres\/projects.ndjson is missing/,
    ],
    [
      'a table name it would put into SQL',
      () =>
        archiveOf('sql.tar.gz', {
          [MANIFEST_FILE]: JSON.stringify(
            manifest({
              clickhouse: { ...manifest().clickhouse, tables: [{ name: 'spans; DROP TABLE x', rows: 1, file: 'clickhouse/x.native', columns: ['a'] }] },
            }),
          ),
        }),
      /a clickhouse table or column this restore does not accept/,
    ],
    [
      'a backup of a newer agent-eval',
      () =>
        archiveOf('newer.tar.gz', {
          [MANIFEST_FILE]: JSON.stringify(
            manifest({
              agent_eval_version: '9.0.0',
              postgres: { ...manifest().postgres, migrations: [...manifest().postgres.migrations, '999_from_the_future'] },
            }),
          ),
        }),
      /the backup was taken by a newer agent-eval \(9\.0\.0\): its PostgreSQL store has migration 999_from_the_future, which this version does not know/,
    ],
  ];

  it.each(refusals)('%s, and with --force leaves the data dir as it was', async (_name, make, message) => {
    const archive = await make();
    const dir = populatedDataDir();
    await expect(restoreBackup(archive, dir, { logger, force: true })).rejects.toThrow(message);
    expect(entries(dir)).toEqual(['clickhouse', 'credentials.json']);
    expect(fs.readFileSync(path.join(dir, 'clickhouse', 'part'), 'utf8')).toBe('data');
  });
});
