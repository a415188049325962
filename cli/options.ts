import { CliError } from './io.js';

/** Option values the commands share, checked with a message naming the option. */

/** An integer option within [min, max]; undefined when not given. */
export function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new CliError(`${name} must be an integer between ${min} and ${max}: ${value}`);
  return n;
}

/** `--min-score`: a number 0..1 or a percentage. */
export function parseMinScore(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const n = text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text);
  if (text === '' || text === '%' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new CliError(`--min-score must be a number between 0 and 1 (or 0% to 100%): ${value}`);
  return n;
}
