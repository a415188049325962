import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A data dir the embedded PostgreSQL's `postgres` user can enter (it runs as that user under root). */
export function makeDataDir(prefix = 'agent-eval-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * A directory for every temporary file of a test or bench run, made this process's TMPDIR (so
 * os.tmpdir() in it and every process it starts from now on): the run removes it whole at its end.
 * Sticky and world-writable like /tmp, since the embedded PostgreSQL runs as its own user under root.
 */
export function useRunTmpDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return dir;
}
