/** What a failed authentication is counted against: the client's address, or the API key prefix it named. */
export type ThrottleKind = 'address' | 'prefix';

/** One subject's count of failed authentications in one fixed window (its start). */
export interface FailureCount {
  kind: ThrottleKind;
  subject: string;
  windowStart: Date;
  count: number;
}

/**
 * The failed-authentication throttle's shared counts (PostgreSQL: `auth_failure_windows`,
 * migration 013; store/postgres/auth-failure-store.ts implements it). core/auth/auth-throttle.ts
 * keeps the counting, its limits and its timing; this is only where processes meet.
 *
 * Promises:
 * - Durability: a call resolves once PostgreSQL committed it; every process sees the same totals.
 * - Counts are additions: `addFailures` is NOT idempotent (an add retried after a lost answer
 *   counts twice), which errs toward throttling, never toward letting more guesses through.
 * - Failures reject (a store that is down); the throttle counts locally meanwhile and adds the
 *   same counts on its next try. What a caller gets is its own copy.
 */
export interface AuthFailureStore {
  /**
   * Adds each count to its window's total, and answers, in one round trip: the totals after of
   * the windows written, and every subject whose total in the window starting at `window` is at
   * or over its kind's limit (a limit of 0 or less: none is).
   */
  addFailures(counts: readonly FailureCount[], window: Date, limits: Record<ThrottleKind, number>): Promise<FailureCount[]>;
  /** Drops windows that ended long ago (more than ten minutes). */
  pruneWindows(): Promise<void>;
}
