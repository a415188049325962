import Table from 'cli-table3';
import type { Colors } from './io.js';

/**
 * Formatting shared by the commands: tables (cli-table3, drawn without its own colours so
 * NO_COLOR and pipes stay plain), scores, durations and statuses.
 */

/** No rule between rows: lists stay one line per item. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/**
 * A table of `head` and `rows`, as text; headers bold when colours are on. `ruled` draws a rule
 * between rows, for tables whose cells span several lines.
 */
export function table(c: Colors, head: string[], rows: Array<Array<string | number>>, opts: { ruled?: boolean } = {}): string {
  const t = new Table({ head: head.map((h) => c.bold(h)), style: { head: [], border: [] }, wordWrap: true, ...(opts.ruled ? {} : { chars: COMPACT }) });
  for (const row of rows) t.push(row.map(String));
  return t.toString();
}

/** 0.8333333 -> `0.83`; null or undefined -> `-`. */
export function score(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '-';
}

/** A signed delta: `+0.25`, `-0.10`, `0.00`. */
export function delta(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '-';
  const rounded = value.toFixed(2);
  return value > 0 && rounded !== '0.00' ? `+${rounded}` : rounded === '-0.00' ? '0.00' : rounded;
}

/** 1234 -> `1.2s`, 80 -> `80ms`, 125000 -> `2m05s`. */
export function duration(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** A status word coloured by what it means. */
export function status(c: Colors, value: string): string {
  switch (value) {
    case 'passed':
    case 'completed':
      return c.green(value);
    case 'failed':
      return c.red(value);
    case 'cancelled':
    case 'paused':
      return c.yellow(value);
    default:
      return c.cyan(value);
  }
}

/** An ISO time as `2026-11-22 23:57:40` (UTC), or `-`. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').slice(0, 19);
}

/** Cuts a one-line rendering of any value to `max` characters. */
export function short(value: unknown, max = 60): string {
  const text = (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `key: value` lines with the keys aligned. */
export function fields(c: Colors, entries: Array<[string, string]>): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${c.dim(`${k.padEnd(width)}`)}  ${v}`).join('\n');
}
