import { Context } from '@temporalio/activity';
import { errorMessage, isInfrastructureFailure } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/** How long an activity waits for a store to come back before failing its attempt. */
export const STORE_WAIT_MS = 120_000;

/** How an activity waits: Temporal's cancellable sleep and heartbeat inside one, plain timers in unit tests. */
export interface ActivityClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  heartbeat(details?: unknown): void;
}

/**
 * The running activity's clock (call it inside an activity). A local activity does not heartbeat
 * (the engine knows nothing of it, and the SDK's core warns of each heartbeat): its workflow task
 * is kept alive by the SDK while it runs.
 */
export function activityClock(): ActivityClock {
  const ctx = Context.current();
  const local = ctx.info.isLocal;
  return { now: Date.now, sleep: (ms) => ctx.sleep(ms), heartbeat: (details) => (local ? undefined : ctx.heartbeat(details)) };
}

/**
 * `read` again while its store does not answer (an infrastructure failure, core/errors.ts), for up
 * to `waitMs`, backing off from 200 ms to 5 s: a store outage is waited out instead of spending
 * the activity's few retries on it. Any other error, or one after `waitMs`, is thrown (the
 * activity's attempt fails and Temporal retries it).
 */
export async function untilStoreAnswers<T>(
  read: () => Promise<T>,
  opts: { logger: Logger; store: string; fields: Record<string, unknown>; clock?: ActivityClock; waitMs?: number },
): Promise<T> {
  const clock = opts.clock ?? activityClock();
  const giveUpAt = clock.now() + (opts.waitMs ?? STORE_WAIT_MS);
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!isInfrastructureFailure(err) || clock.now() > giveUpAt) throw err;
      opts.logger.warn({ ...opts.fields, attempt, err: errorMessage(err) }, `${opts.store} unavailable; waiting`);
      clock.heartbeat();
      await clock.sleep(Math.min(5_000, 200 * 2 ** attempt));
    }
  }
}
