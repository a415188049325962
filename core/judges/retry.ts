import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError } from '../providers/types.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  initialMs: number;
  maxMs: number;
}

/**
 * SPEC "Activity time-outs and retries", LLM call: 5 retries, 1 s to 30 s. The workflow's LLM
 * call activity has this policy; `evaluate` outside the workflow engine (SDK, CLI) applies it
 * in process.
 */
export const LLM_CALL_RETRY: RetryPolicy = { maxAttempts: 6, initialMs: 1000, maxMs: 30_000 };

/**
 * `fn` again after a retryable ProviderError, waiting twice as long each time (at most `maxMs`,
 * at least the provider's Retry-After); anything else, and the last failure, is thrown.
 */
export async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || attempt >= policy.maxAttempts || signal?.aborted) throw err;
      const backoff = Math.min(policy.maxMs, policy.initialMs * 2 ** (attempt - 1));
      await sleep(Math.max(backoff, err.retryAfterMs ?? 0), undefined, signal ? { signal } : undefined);
    }
  }
}
