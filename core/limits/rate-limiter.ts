import { BackpressureError } from '../errors.js';
import type { RateLimits } from '../config.js';
import type { Logger } from '../logger.js';
import type { RateBucket, RateLimitStore } from '../store/rate-limits.js';
import { windowSync, type WindowCounter } from './window-sync.js';

export type { RateBucket };

export interface RateVerdict {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `projectId` in `bucket`; throws 429 (BackpressureError, Retry-After) over the limit. */
  take(projectId: string, bucket: RateBucket): Promise<RateVerdict>;
  /** This project's limits now (its own, else the defaults). */
  limitsOf(projectId: string): Promise<RateLimits>;
  /** Sets or clears (null) a project's own limits; effective at once in this process. */
  setLimits(projectId: string, limits: Partial<Record<RateBucket, number | null>>): Promise<RateLimits>;
  /** Drops this process's counters and limits of a project being deleted, so no sync writes its counters again. */
  forget(projectId: string): void;
  close(): Promise<void>;
}

export const WINDOW_MS = 60_000;
const SYNC_EVERY_MS = 1000;
const LIMITS_TTL_MS = 30_000;
const BUCKETS: readonly RateBucket[] = ['ingest', 'query', 'evalRuns'];

interface Counter extends WindowCounter {
  /** While the window's total so far is read, on this process's first request of the window. */
  loading?: Promise<void>;
}

/** How long a first request of a window waits for the window's total before counting from what it knows. */
const FIRST_READ_WAIT_MS = 250;

/**
 * Fixed one-minute windows per project and endpoint group, shared by every process through
 * PostgreSQL without a database round trip per request: each process counts locally and, once a
 * second, adds its new requests (possibly none) to the windows it has seen and reads the totals
 * back (one call of the store, core/store/rate-limits.ts). A request is refused when the total this
 * process knows plus its own unsynced requests reach the limit. A process's first request of a
 * window reads the window's total first, so a process joining mid-window starts from what the
 * others counted. One process is exact; with several, the overshoot is at most what the others
 * accepted within one sync interval.
 * docs/security.md states this.
 */
export function createRateLimiter(store: RateLimitStore, defaults: RateLimits, logger: Logger): RateLimiter {
  const counters = new Map<string, Counter>();
  const limits = new Map<string, { value: RateLimits; until: number; loading?: Promise<RateLimits> }>();
  // A store that is down keeps nothing back: its counts wait for the next sync and this process counts locally.
  const syncs = windowSync(store, (err) => logger.warn({ err }, 'rate limit counters not synced; counting locally'));
  const timer = setInterval(() => void sync(), SYNC_EVERY_MS);
  timer.unref();

  async function sync(): Promise<void> {
    if (syncs.running) return syncs.running;
    // Every counter of the current window, not only those with new requests: a process learns
    // what the others counted even while its own traffic for that project has stopped.
    const now = Date.now();
    const current = now - (now % WINDOW_MS);
    for (const [key, c] of counters) if (c.windowStart < current) counters.delete(key);
    const due = [...counters.entries()];
    if (!due.length) return;
    const batch = due.map(([key, c]) => ({ key, c, add: c.pending, windowStart: c.windowStart }));
    const keyOf = (projectId: string, bucket: string) => `${projectId}\u0000${bucket}`;
    // A deleted project's counts are dropped by the store: no flush brings one back.
    return syncs.start(batch, async () => {
      const totals = await store.addCounts(
        batch.map((b) => {
          const [projectId, bucket] = b.key.split('\u0000');
          return { projectId, bucket: bucket as RateBucket, windowStart: new Date(b.windowStart), count: b.add };
        }),
      );
      for (const total of totals) {
        const c = counters.get(keyOf(total.projectId, total.bucket));
        if (c && c.windowStart === total.windowStart.getTime()) c.known = Math.max(c.known, total.count);
      }
    });
  }

  /**
   * A window's total across processes so far, read once when this process first sees the window:
   * a process joining mid-window (a new collector, or a project's first request here) starts from
   * what the others counted instead of from zero. A store that is down or slow leaves it to the
   * next sync.
   */
  function loadKnown(projectId: string, bucket: RateBucket, c: Counter): Promise<void> {
    const read = store
      .windowTotal(projectId, bucket, new Date(c.windowStart))
      .then((total) => {
        c.known = Math.max(c.known, total);
      })
      .catch((err: unknown) => logger.warn({ err }, 'rate limit window not read; counting locally'));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FIRST_READ_WAIT_MS);
      timer.unref();
    });
    return Promise.race([read, waited]).finally(() => {
      clearTimeout(timer);
      c.loading = undefined;
    });
  }

  async function loadLimits(projectId: string): Promise<RateLimits> {
    const own = await store.projectLimits(projectId);
    return Object.fromEntries(BUCKETS.map((b) => [b, own[b] ?? defaults[b]])) as unknown as RateLimits;
  }

  async function limitsOf(projectId: string): Promise<RateLimits> {
    const hit = limits.get(projectId);
    if (hit && hit.until > Date.now()) return hit.value;
    if (hit?.loading) return hit.loading;
    const loading = loadLimits(projectId).then(
      (value) => {
        limits.set(projectId, { value, until: Date.now() + LIMITS_TTL_MS });
        return value;
      },
      // A store outage must not stop traffic: the defaults (or the last known limits) apply.
      () => {
        const value = hit?.value ?? defaults;
        limits.set(projectId, { value, until: Date.now() + SYNC_EVERY_MS });
        return value;
      },
    );
    limits.set(projectId, { value: hit?.value ?? defaults, until: 0, loading });
    return loading;
  }

  return {
    async take(projectId, bucket) {
      const limit = (await limitsOf(projectId))[bucket];
      const now = Date.now();
      const windowStart = now - (now % WINDOW_MS);
      const key = `${projectId}\u0000${bucket}`;
      let c = counters.get(key);
      if (!c || c.windowStart !== windowStart) {
        c = { windowStart, known: 0, pending: 0, syncing: 0 };
        c.loading = loadKnown(projectId, bucket, c);
        counters.set(key, c);
      }
      if (c.loading) await c.loading;
      const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      const used = c.known + c.syncing + c.pending;
      if (used >= limit) throw new RateLimitedError({ limit, remaining: 0, resetSeconds });
      c.pending++;
      return { limit, remaining: Math.max(0, limit - used - 1), resetSeconds };
    },

    limitsOf,

    async setLimits(projectId, changes) {
      for (const bucket of BUCKETS) {
        const value = changes[bucket];
        if (value === undefined) continue;
        await store.setProjectLimit(projectId, bucket, value);
      }
      limits.delete(projectId);
      return limitsOf(projectId);
    },

    forget(projectId) {
      for (const key of counters.keys()) if (key.startsWith(`${projectId}\u0000`)) counters.delete(key);
      limits.delete(projectId);
    },

    async close() {
      clearInterval(timer);
      await sync();
    },
  };
}

/** 429 with the window's headers (SPEC: X-RateLimit-*; Retry-After until the window resets). */
export class RateLimitedError extends BackpressureError {
  constructor(readonly verdict: RateVerdict) {
    super(verdict.resetSeconds, 429, 'Rate limit exceeded');
  }
}

/** The SPEC's headers for a verdict. */
export function rateLimitHeaders(v: RateVerdict): Record<string, string> {
  return { 'X-RateLimit-Limit': String(v.limit), 'X-RateLimit-Remaining': String(v.remaining), 'X-RateLimit-Reset': String(v.resetSeconds) };
}
