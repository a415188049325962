import type { RateLimits } from '../config.js';

/** Endpoint groups with their own limit (SPEC Limits): trace ingestion, queries, eval runs. */
export type RateBucket = keyof RateLimits;

/** One project's count of requests in one bucket and one fixed window (its start). */
export interface WindowCount {
  projectId: string;
  bucket: RateBucket;
  windowStart: Date;
  count: number;
}

/**
 * The rate limiter's shared state (PostgreSQL: `rate_limit_windows`, `project_rate_limits`,
 * migration 005; store/postgres/rate-limit-store.ts implements it). core/limits/rate-limiter.ts
 * keeps the counting and its timing; this is only where processes meet.
 *
 * Promises:
 * - Durability: a call resolves once PostgreSQL committed it; counts and limits outlive every
 *   process, and every process sees the same totals.
 * - Counts are additions: `addCounts` is NOT idempotent (an add retried after a lost answer counts
 *   twice), which errs toward refusing, never toward letting more through. A deleted project's
 *   counts are never written (its deletion removed them; no later add brings one back).
 * - Limits: setting a project's limit is idempotent (the last write wins); clearing one that is not
 *   set is no error.
 * - Failures reject (a store that is down); the limiter counts locally meanwhile. What a caller
 *   gets is its own copy.
 */
export interface RateLimitStore {
  /** Adds each count to its window's total (0 adds nothing but reads it); the totals after, of the windows written. */
  addCounts(counts: readonly WindowCount[]): Promise<WindowCount[]>;
  /** A window's total so far across processes; 0 when nobody counted in it. */
  windowTotal(projectId: string, bucket: RateBucket, windowStart: Date): Promise<number>;
  /** Drops windows that ended long ago (more than ten minutes). */
  pruneWindows(): Promise<void>;
  /** The project's own limits per minute, only the buckets it has one for. */
  projectLimits(projectId: string): Promise<Partial<RateLimits>>;
  /** Sets (a number) or clears (null) the project's own limit of one bucket. */
  setProjectLimit(projectId: string, bucket: RateBucket, perMinute: number | null): Promise<void>;
}
