/**
 * What a process counts in one fixed window of counts shared through a store (the rate limiter's
 * requests, the failed-authentication throttle's failures).
 */
export interface WindowCounter {
  windowStart: number;
  /** The window's total across processes, as of this process's last sync (its own synced counts included). */
  known: number;
  /** Counts this process added since its last sync. */
  pending: number;
  /** Counts this process is adding to the store in the sync under way (counted until its answer is known). */
  syncing: number;
}

/** One counter's share of a sync: what it adds to the store. */
export interface SyncedCount {
  c: WindowCounter;
  add: number;
}

export interface WindowSync {
  /** The sync under way, if any: a new one waits for it instead of starting. */
  readonly running: Promise<void> | undefined;
  /**
   * Sends the batch's pending counts once: they move to `syncing` while `send` runs (it writes them
   * and reads the totals back), leave it when it succeeds, and go back to `pending` when it fails,
   * so the next sync sends them again and the process goes on counting locally. Every 60th sync
   * prunes the store's old windows.
   */
  start<B extends SyncedCount>(batch: B[], send: (batch: B[]) => Promise<void>): Promise<void>;
}

/** One sync at a time of a process's counters with the store (`pruneWindows` drops windows past). */
export function windowSync(store: { pruneWindows(): Promise<unknown> }, onFailure: (err: unknown) => void): WindowSync {
  let running: Promise<void> | undefined;
  let syncs = 0;
  return {
    get running() {
      return running;
    },
    start(batch, send) {
      for (const b of batch) {
        b.c.syncing += b.add;
        b.c.pending = 0;
      }
      running = (async () => {
        try {
          try {
            await send(batch);
          } catch (err) {
            for (const b of batch) {
              b.c.syncing -= b.add;
              b.c.pending += b.add;
            }
            onFailure(err);
            return;
          }
          for (const b of batch) b.c.syncing -= b.add;
          // Apart from the counts: a prune that fails after they were stored must not send them twice.
          if (++syncs % 60 === 0) await store.pruneWindows().catch(onFailure);
        } finally {
          running = undefined;
        }
      })();
      return running;
    },
  };
}
