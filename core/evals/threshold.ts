/**
 * The SPEC's threshold validation ("Client-side and CLI errors"): the regression threshold a user
 * types (`compare --fail-on-regression 5%`, `0.05`) as the fraction the compare endpoints take.
 * An empty value is refused; the value is a number (a fraction, `0.05`) or a percentage (`5%`);
 * it must be positive and at most 100%.
 */

export class ThresholdError extends Error {}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** `"5%"` -> 0.05, `"0.05"` -> 0.05; throws a ThresholdError with the SPEC's rule it breaks. */
export function parseThreshold(input: string): number {
  const text = input.trim();
  if (text === '') throw new ThresholdError('Threshold value cannot be empty');
  const percent = text.endsWith('%');
  const digits = percent ? text.slice(0, -1).trim() : text;
  if (!NUMBER.test(digits)) throw new ThresholdError(`Invalid threshold value: "${input}"`);
  const value = percent ? Number(digits) / 100 : Number(digits);
  if (!Number.isFinite(value)) throw new ThresholdError(`Invalid threshold value: "${input}"`);
  if (value <= 0) throw new ThresholdError('Threshold must be positive');
  if (value > 1) throw new ThresholdError('Threshold cannot exceed 100%');
  return value;
}

/** 0.05 -> `5%`, for messages. */
export function formatThreshold(value: number): string {
  return `${Number((value * 100).toFixed(4))}%`;
}
