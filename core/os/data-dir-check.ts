import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';

/** Below this much free space the data dir is reported down: the stores' next writes would fail. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;
/** How long one probe's answer is reused: health may be polled every second, the disk need not be. */
const CACHE_MS = 5_000;

export interface DataDirCheck {
  /** ok, or why not: the probe write failed (ENOSPC, EROFS, EACCES...) or free space is below the minimum. */
  check(): Promise<{ ok: boolean; reason?: string }>;
}

/**
 * Whether the stores on local disk can still write: a small file written, synced and removed in
 * the data dir, and its file system's free space (statfs) at least `minFreeBytes`. The answer is
 * cached for a few seconds and one probe runs at a time.
 */
export function createDataDirCheck(dir: string, minFreeBytes = MIN_FREE_BYTES): DataDirCheck {
  let last: { at: number; result: { ok: boolean; reason?: string } } | undefined;
  let running: Promise<{ ok: boolean; reason?: string }> | undefined;
  const file = path.join(dir, `.health-probe-${process.pid}`);

  async function probe(): Promise<{ ok: boolean; reason?: string }> {
    try {
      await fs.promises.mkdir(dir, { recursive: true });
      const handle = await fs.promises.open(file, 'w');
      try {
        await handle.writeFile(`${Date.now()}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rm(file, { force: true });
    } catch (err) {
      await fs.promises.rm(file, { force: true }).catch(() => undefined);
      return { ok: false, reason: `cannot write to ${dir}: ${errorMessage(err)}` };
    }
    const stats = await fs.promises.statfs(dir);
    const free = stats.bavail * stats.bsize;
    if (free < minFreeBytes)
      return {
        ok: false,
        reason: `${dir} has ${Math.floor(free / 1048576)} MiB free, below the ${Math.floor(minFreeBytes / 1048576)} MiB the stores need to write`,
      };
    return { ok: true };
  }

  return {
    check() {
      if (last && Date.now() - last.at < CACHE_MS) return Promise.resolve(last.result);
      running ??= probe()
        .then((result) => {
          last = { at: Date.now(), result };
          return result;
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}
