/** Helpers shared by the catalog pages (suites, agents, alerts): paging in the URL, folded values, errors in words. */
import { ApiError, fieldIssues, failureWords } from './api.js';

/** Rows per page of the suites and agents lists. */
export const PAGE_SIZE = 50;

/** `?offset=` as a page start: a non-negative integer, else 0. */
export function parseOffset(q: URLSearchParams): number {
  const n = Number(q.get('offset'));
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** The URL with some query parameters changed; undefined, null and '' remove one. */
export function withParams(url: URL, change: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams(url.searchParams);
  for (const [k, v] of Object.entries(change)) {
    if (v === undefined || v === null || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${url.pathname}?${s}` : url.pathname;
}

/** "Showing 51-100 of 230". */
export function rangeText(offset: number, shown: number, total: number, noun: string): string {
  const plural = total === 1 ? noun : `${noun}s`;
  if (shown === 0) return `${total.toLocaleString('en-US')} ${plural}`;
  if (offset === 0 && shown === total) return `${total.toLocaleString('en-US')} ${plural}`;
  return `${(offset + 1).toLocaleString('en-US')}-${(offset + shown).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${plural}`;
}

/** A JSON value for a table cell: a one-line preview, and the whole (pretty) text when the preview cuts it. */
export function foldValue(value: unknown, max = 80): { preview: string; full: string | null } {
  if (value === undefined) return { preview: '', full: null };
  const compact = typeof value === 'string' ? value : JSON.stringify(value);
  const pretty = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const oneLine = compact.replace(/\s+/g, ' ');
  if (oneLine.length <= max && !compact.includes('\n')) return { preview: compact, full: null };
  return { preview: `${oneLine.slice(0, max - 1)}…`, full: pretty };
}

/** The 422's problems grouped by field, for showing each next to its input. */
export function issuesByField(err: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { field, message } of fieldIssues(err)) (out[field] ??= []).push(message);
  return out;
}

/**
 * The sentence for a failed write. A 403 names what the key lacks (a viewer key reads but does
 * not write); a 422 says to look at the fields (listed next to them by the form); other errors
 * are the API's own message.
 */
export function describeWriteError(err: unknown, action: string, permission: string): string {
  if (err instanceof ApiError) {
    if (err.status === 403)
      return `Your key cannot ${action}: that needs a member or admin key of this project (permission ${permission}). A viewer key only reads.`;
    if (err.status === 422 && fieldIssues(err).length)
      return `The API refused some fields: ${fieldIssues(err)
        .map((i) => `${i.field}: ${i.message}`)
        .join('; ')}.`;
  }
  return failureWords(err);
}

/** The dashboard's own origin: the API answers on the same port, so examples use it as the endpoint. */
export function apiOrigin(): string {
  return typeof location === 'undefined' ? 'http://localhost:3000' : location.origin;
}
