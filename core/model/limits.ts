/**
 * Bounds every value must meet before it may enter a write shared with other clients' data
 * (docs/api.md, "Limits"). They sit well inside what the stored types hold (DateTime64(3) spans
 * 1900..2299, UInt64 durations), so a value that passes can never fail an insert.
 */

/** Earliest accepted time: the day after the epoch (0 is what OTLP senders put for "unset"). */
export const MIN_TIME_MS = Date.UTC(1970, 0, 2);
/** Latest accepted time. */
export const MAX_TIME_MS = Date.UTC(2200, 0, 1);
/** Longest accepted trace duration of the JSON body: ten years. */
export const MAX_DURATION_MS = 10 * 365 * 86_400_000;
/** Longest trace, span and project id. */
export const MAX_ID_LENGTH = 128;

/** Whether `ms` is a time the store can hold and we accept. */
export function isAcceptedTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS;
}
