import type { Logger } from '../logger.js';
import { errorMessage } from '../errors.js';
import { wakeableSleep } from './wakeable-sleep.js';

export interface RestarterOptions {
  /** Named in the log lines ("embedded PostgreSQL"). */
  name: string;
  logger: Logger;
  /** Starts the child again; resolves once it serves (and has its exit watched again by the caller). */
  start(): Promise<void>;
  /** First wait before a restart; doubled per failure in a row, up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A child up this long before it died starts the backoff afresh. */
  stableMs?: number;
}

export interface Restarter {
  /** The child died without being asked to: restart it with backoff (once at a time). */
  died(detail: string): void;
  /** Whether a restart is under way. */
  restarting(): boolean;
  /** No restarts from now on; waits for one under way to end. */
  stop(): Promise<void>;
}

/**
 * Restarts a supervised child process (embedded PostgreSQL, the Temporal dev server) when it
 * dies, with exponential backoff, logging each death, attempt and recovery. Restarts go on until
 * stop(): a dependency that stays down is reported by health, not given up on.
 */
export function createRestarter(opts: RestarterOptions): Restarter {
  const initial = opts.initialDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 30_000;
  const stable = opts.stableMs ?? 60_000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let failures = 0;
  let upSince = Date.now();
  /** A death reported while a restart was finishing: handled once that restart ends. */
  let pending: string | undefined;

  const { sleep, wake } = wakeableSleep();

  async function loop(detail: string): Promise<void> {
    if (Date.now() - upSince >= stable) failures = 0;
    opts.logger.error({ dependency: opts.name, detail }, `${opts.name} exited unexpectedly; restarting it`);
    for (let attempt = 1; !stopped; attempt++) {
      const delay = Math.min(max, initial * 2 ** failures);
      failures++;
      opts.logger.warn({ dependency: opts.name, attempt, delay_ms: delay }, `restarting ${opts.name}`);
      await sleep(delay);
      if (stopped) return;
      try {
        await opts.start();
        upSince = Date.now();
        opts.logger.info({ dependency: opts.name, attempt }, `${opts.name} restarted`);
        return;
      } catch (err) {
        opts.logger.error({ dependency: opts.name, attempt, err: errorMessage(err) }, `${opts.name} did not restart`);
      }
    }
  }

  return {
    died(detail) {
      if (stopped) return;
      if (running) {
        pending = detail;
        return;
      }
      const restart = (d: string): Promise<void> =>
        loop(d).then(() => {
          const again = pending;
          pending = undefined;
          return again !== undefined && !stopped ? restart(again) : undefined;
        });
      running = restart(detail).finally(() => {
        running = undefined;
      });
    },
    restarting: () => running !== undefined,
    async stop() {
      stopped = true;
      wake();
      await running;
    },
  };
}
