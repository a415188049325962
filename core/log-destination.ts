import fs from 'node:fs';

/** Log lines dropped because their write failed, by error code (ENOSPC, EPIPE, EAGAIN, ...), since the process started. */
const dropped = new Map<string, number>();

/** The log lines this process dropped, per error code (`agent_eval_log_writes_dropped_total` on /metrics). */
export function droppedLogWrites(): ReadonlyMap<string, number> {
  return dropped;
}

/** A full non-blocking pipe is waited for this long (1 ms at a time) before the line is dropped. */
const MAX_BUSY_WAIT_MS = 100;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/** Writes all of `data`, waiting out a full pipe (EAGAIN) for at most MAX_BUSY_WAIT_MS; throws anything else. */
function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  let waited = 0;
  while (offset < data.length) {
    try {
      offset += fs.writeSync(fd, data, offset);
    } catch (err) {
      const code = errorCode(err);
      if ((code === 'EAGAIN' || code === 'EBUSY') && waited < MAX_BUSY_WAIT_MS) {
        Atomics.wait(sleeper, 0, 0, 1);
        waited++;
        continue;
      }
      throw err;
    }
  }
}

/**
 * The logger's destination (pino's `write(line)`): each line written synchronously to `fd`
 * (stdout by default), and a line whose write fails (a full disk: ENOSPC, a closed pipe: EPIPE,
 * a pipe full for longer than MAX_BUSY_WAIT_MS, ...) is dropped and counted, never thrown:
 * logging never stops the service (docs/deployment.md, "Logs").
 * pino's own stdout stream re-emits such errors, and an `error` event nobody handles ends the
 * process (issue 27: a full disk killed it).
 */
export function safeLogDestination(fd = 1): { write(line: string): void } {
  return {
    write(line: string) {
      try {
        writeAll(fd, Buffer.from(line));
      } catch (err) {
        const code = errorCode(err);
        dropped.set(code, (dropped.get(code) ?? 0) + 1);
      }
    },
  };
}
