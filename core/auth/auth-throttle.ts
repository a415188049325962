import { createHash } from 'node:crypto';
import { BackpressureError, type AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AuthFailureStore, ThrottleKind } from '../store/auth-failures.js';
import { windowSync, type WindowCounter } from '../limits/window-sync.js';

/** Failed authentications allowed per minute before 429; 0 turns a limit off. */
export interface AuthThrottleLimits {
  /** Per client address (AUTH_FAILURES_PER_ADDRESS_PER_MINUTE). */
  perAddress: number;
  /** Per API key prefix, from any address (AUTH_FAILURES_PER_KEY_PREFIX_PER_MINUTE). */
  perPrefix: number;
}

export type { ThrottleKind };

/**
 * Failed authentication, throttled (docs/security.md, "Failed authentication"):
 *
 * - **Per address.** Once an address has `perAddress` failures in the current minute, its further
 *   requests get 429 *before* their credentials are checked, so guessing from there stops, and a
 *   spray costs no key lookup. Except a credential that authenticated from that address within
 *   REMEMBER_MS (remembered by this process, as a hash): it is checked as usual, so a valid
 *   client behind the same NAT as a misconfigured one keeps working.
 * - **Per key prefix.** Once a prefix has `perPrefix` failures, wrong keys with it get 429
 *   instead of 401, from any address; the key of that prefix is still checked and a valid one
 *   passes: someone who learned a prefix (it is listed, and logged) must not lock its key out.
 *   Guessing the other 24 random characters (~143 bits) is out of reach at any rate.
 *
 * Counted like the rate limiter (core/limits/rate-limiter.ts): fixed one-minute windows, each
 * process counting locally and, once a second, adding its new failures to the shared counts
 * (core/store/auth-failures.ts) and reading back the totals of its subjects and every subject
 * over a limit, in one round trip (none per request, so valid keys are never slowed). A process learns of an address or a
 * prefix throttled by the others within a second; one process is exact, several overshoot by at
 * most what each counted within one sync. When PostgreSQL is down counting goes on locally.
 */
export interface AuthThrottle {
  /** Before a credential is checked: throws 429 when `address` is over its limit and `credential` is not remembered from it. */
  admit(address: string | undefined, credential: string): void;
  /** After a credential failed: counts it; returns what to answer: 429 when the address or `prefix` was already over, else `failure`. */
  failed(address: string | undefined, prefix: string | undefined, failure: AppError): AppError;
  /** After a credential authenticated: remembered for its address. */
  succeeded(address: string | undefined, credential: string): void;
  close(): Promise<void>;
}

/** 429 in the SPEC's body (`retry_after`), with Retry-After until the window ends; gRPC RESOURCE_EXHAUSTED with RetryInfo. */
export class AuthThrottledError extends BackpressureError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 429, 'Too many failed authentication attempts');
  }
}

export const THROTTLE_WINDOW_MS = 60_000;
const SYNC_EVERY_MS = 1000;
/** How long a credential that authenticated from an address passes that address's throttle. */
export const REMEMBER_MS = 10 * 60_000;
const MAX_REMEMBERED = 50_000;
const MAX_COUNTERS = 100_000;

interface Counter extends WindowCounter {
  /** Whether this process reported the subject crossing its limit in this window. */
  reported?: boolean;
}

export interface AuthThrottleOptions {
  /** Where processes meet: the shared counts (`MetadataStore.authFailures`). */
  store: AuthFailureStore;
  limits: AuthThrottleLimits;
  logger: Logger;
  /** Told once per subject, window and process when a subject crosses its limit (the audit log's `auth.throttled`). */
  onThrottled?(kind: ThrottleKind, subject: string, failures: number): void;
}

const windowOf = (now: number) => now - (now % THROTTLE_WINDOW_MS);
const keyOf = (kind: ThrottleKind, subject: string) => `${kind}\u0000${subject}`;
const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

export function createAuthThrottle(opts: AuthThrottleOptions): AuthThrottle {
  const { store, limits, logger } = opts;
  const counters = new Map<string, Counter>();
  const remembered = new Map<string, number>();
  /** Until when this process keeps learning other processes' counts (it saw a credential lately). */
  let activeUntil = 0;
  const syncs = windowSync(store, (err) => logger.warn({ err }, 'failed-authentication counts not synced; counting locally'));
  const timer = setInterval(() => void sync(), SYNC_EVERY_MS);
  timer.unref();

  const limitOf = (kind: ThrottleKind) => (kind === 'address' ? limits.perAddress : limits.perPrefix);

  function counter(kind: ThrottleKind, subject: string, windowStart: number): Counter {
    const key = keyOf(kind, subject);
    let c = counters.get(key);
    if (!c || c.windowStart !== windowStart) {
      if (!c && counters.size >= MAX_COUNTERS) counters.delete(counters.keys().next().value!);
      c = { windowStart, known: 0, pending: 0, syncing: 0 };
      counters.set(key, c);
    }
    return c;
  }

  function total(kind: ThrottleKind, subject: string | undefined, windowStart: number): number {
    if (subject === undefined) return 0;
    const c = counters.get(keyOf(kind, subject));
    return c && c.windowStart === windowStart ? c.known + c.syncing + c.pending : 0;
  }

  function over(kind: ThrottleKind, subject: string | undefined, windowStart: number): boolean {
    const limit = limitOf(kind);
    return limit > 0 && subject !== undefined && total(kind, subject, windowStart) >= limit;
  }

  function throttled(now: number): AuthThrottledError {
    return new AuthThrottledError(Math.max(1, Math.ceil((windowOf(now) + THROTTLE_WINDOW_MS - now) / 1000)));
  }

  function report(kind: ThrottleKind, subject: string, c: Counter): void {
    if (c.reported || c.known + c.syncing + c.pending < limitOf(kind)) return;
    c.reported = true;
    logger.warn(
      { kind, subject, failures: c.known + c.syncing + c.pending },
      `failed authentication throttled for this ${kind === 'address' ? 'address' : 'key prefix'}`,
    );
    opts.onThrottled?.(kind, subject, c.known + c.syncing + c.pending);
  }

  function count(kind: ThrottleKind, subject: string | undefined, windowStart: number): void {
    if (subject === undefined || limitOf(kind) <= 0) return;
    const c = counter(kind, subject, windowStart);
    c.pending++;
    report(kind, subject, c);
  }

  async function sync(): Promise<void> {
    if (syncs.running) return syncs.running;
    const now = Date.now();
    const current = windowOf(now);
    for (const [key, c] of counters) if (c.windowStart < current) counters.delete(key);
    for (const [key, until] of remembered) if (until < now) remembered.delete(key);
    const due = [...counters.entries()].filter(([, c]) => c.pending > 0);
    if (!due.length && activeUntil < now) return;
    const batch = due.map(([key, c]) => {
      const [kind, subject] = key.split('\u0000') as [ThrottleKind, string];
      return { kind, subject, c, add: c.pending };
    });
    return syncs.start(batch, async () => {
      const rows = await store.addFailures(
        batch.map(({ c, kind, subject, add }) => ({ kind, subject, windowStart: new Date(c.windowStart), count: add })),
        new Date(current),
        { address: limits.perAddress, prefix: limits.perPrefix },
      );
      for (const row of rows) {
        const windowStart = row.windowStart.getTime();
        if (windowStart !== windowOf(Date.now())) continue;
        const c = counter(row.kind, row.subject, windowStart);
        c.known = Math.max(c.known, row.count);
      }
    });
  }

  return {
    admit(address, credential) {
      const now = Date.now();
      activeUntil = now + THROTTLE_WINDOW_MS;
      if (!over('address', address, windowOf(now))) return;
      const until = remembered.get(`${address}\u0000${digest(credential)}`);
      if (until !== undefined && until >= now) return;
      throw throttled(now);
    },

    failed(address, prefix, failure) {
      const now = Date.now();
      const windowStart = windowOf(now);
      const wasOver = over('address', address, windowStart) || over('prefix', prefix, windowStart);
      count('address', address, windowStart);
      count('prefix', prefix, windowStart);
      return wasOver ? throttled(now) : failure;
    },

    succeeded(address, credential) {
      if (address === undefined || limits.perAddress <= 0) return;
      const now = Date.now();
      const key = `${address}\u0000${digest(credential)}`;
      const until = remembered.get(key);
      // Written at most once a minute per credential and address.
      if (until !== undefined && until - now > REMEMBER_MS - 60_000) return;
      if (until === undefined && remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
      remembered.set(key, now + REMEMBER_MS);
    },

    async close() {
      clearInterval(timer);
      await sync();
    },
  };
}
