import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A data dir the embedded PostgreSQL's `postgres` user can enter (it runs as that user under root). */
export function makeDataDir(prefix = 'agent-eval-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}
