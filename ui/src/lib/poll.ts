/**
 * The one poller of the dashboard's live pages (traces, runs, a run, alerts): calls `tick` every
 * `ms` while the tab is visible and `active()` says so; a tick still running is not started
 * again, and a failed tick is tried again at the next one (what is on screen stays).
 */

export interface Poller {
  /** Stops for good. */
  stop(): void;
  /** Starts again after `active()` turned true (a no-op while a tick is scheduled). */
  kick(): void;
}

/**
 * Calls `tick` every `ms` while the tab is visible and `active()` says so. A hidden tab stops the
 * ticks until it is shown again; `active()` turning false stops them until `kick()`.
 */
export function pollWhileVisible(tick: () => Promise<void> | void, ms: number, active: () => boolean = () => true): Poller {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let ticking = false;
  let stopped = false;
  const schedule = () => {
    if (stopped || timer !== null || ticking) return;
    timer = setTimeout(() => void run(), ms);
  };
  const run = async () => {
    timer = null;
    if (stopped || document.visibilityState !== 'visible' || !active()) return;
    ticking = true;
    try {
      await tick();
    } catch {
      // A failed poll is retried at the next tick; what is on screen stays.
    } finally {
      ticking = false;
      schedule();
    }
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') schedule();
  };
  document.addEventListener('visibilitychange', onVisible);
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    },
    kick: schedule,
  };
}
