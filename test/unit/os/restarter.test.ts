import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createRestarter, type Restarter } from '../../../core/os/restarter.js';
import { createLogger } from '../../../core/logger.js';

// The supervisor of the service's child processes (embedded PostgreSQL, the Temporal dev server),
// on a real child process killed with SIGKILL.

let child: ChildProcess | undefined;
let restarter: Restarter | undefined;
afterEach(async () => {
  await restarter?.stop();
  child?.kill('SIGKILL');
});

const until = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('createRestarter', () => {
  it('restarts a child that dies, with backoff, until stopped; a failed start is retried', async () => {
    const pids: number[] = [];
    let failNext = false;
    const start = async () => {
      if (failNext) {
        failNext = false;
        throw new Error('port busy');
      }
      const c = spawn('sleep', ['60'], { stdio: 'ignore' });
      await new Promise((resolve) => c.once('spawn', resolve));
      child = c;
      pids.push(c.pid!);
      c.once('exit', (code, signal) => restarter?.died(`${code ?? signal}`));
    };
    restarter = createRestarter({ name: 'sleeper', logger: createLogger('silent'), start, initialDelayMs: 50, maxDelayMs: 200 });
    await start();
    process.kill(pids[0], 'SIGKILL');
    await until(() => pids.length === 2);
    expect(restarter.restarting()).toBe(false);

    failNext = true;
    const t0 = Date.now();
    process.kill(pids[1], 'SIGKILL');
    await until(() => pids.length === 3);
    // One failed attempt: waits of 50 and 100 ms (the backoff doubles) before the start that worked.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);

    await restarter.stop();
    process.kill(pids[2], 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    expect(pids).toHaveLength(3);
  });
});
