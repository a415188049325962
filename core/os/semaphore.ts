/** At most `limit` holders at once; the others wait in order, and a release hands its turn to the first. */
export interface Semaphore {
  /**
   * Resolves with a turn. With `signal`, a caller that has to wait gives up its place when the
   * signal aborts and rejects with `aborted()` (an already aborted one at once).
   */
  acquire(wait?: { signal: AbortSignal; aborted: () => Error }): Promise<void>;
  release(): void;
}

/**
 * A FIFO semaphore. With `queue`, at most `queue.max` callers wait: one more is refused at once
 * with `queue.full()` (the ClickHouse gateway's TOO_MANY_SIMULTANEOUS_QUERIES).
 */
export function semaphore(limit: number, queue?: { max: number; full: () => Error }): Semaphore {
  let free = limit;
  const waiting: Array<() => void> = [];
  return {
    async acquire(wait) {
      if (free > 0) {
        free--;
        return;
      }
      if (queue && waiting.length >= queue.max) throw queue.full();
      // A turn is handed over by the holder that releases: `free` stays as it is.
      await new Promise<void>((resolve, reject) => {
        if (!wait) return void waiting.push(resolve);
        const { signal, aborted } = wait;
        const go = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = waiting.indexOf(go);
          if (at >= 0) waiting.splice(at, 1);
          reject(aborted());
        };
        if (signal.aborted) return onAbort();
        waiting.push(go);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
