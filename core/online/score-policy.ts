/**
 * The SPEC's "score trace" activity policy, as the online evaluator applies it to a trace's and a
 * session's evaluation alike: each attempt bounded by 10 minutes, 3 retries 2 s to 1 min apart.
 */
export const SCORE_TRACE_TIMEOUT_MS = 10 * 60_000;
export const SCORE_TRACE_ATTEMPTS = 4;
const RETRY_INITIAL_MS = 2000;
const RETRY_MAX_MS = 60_000;

/** The wait before attempt `attempt + 1` (2 s, 4 s, 8 s... at most 1 min). */
export function retryDelayMs(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_INITIAL_MS * 2 ** (attempt - 1));
}
