import fs from 'node:fs';
import path from 'node:path';

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
