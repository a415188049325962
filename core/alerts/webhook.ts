import { EgressRefusedError, isRedirect, type EgressFetch } from '../egress/fetch.js';
import { errorMessage } from '../errors.js';
import type { AlertNotification } from '../model/alert.js';
import { pgSafeText } from '../model/pg-json.js';

export interface WebhookSettings {
  /** Each attempt is abandoned after this long. */
  timeoutMs: number;
  /** Attempts in all, the first included; then the event's delivery is `failed`. */
  maxAttempts: number;
  /** Wait before the second attempt; doubles after each failure, at most {@link MAX_BACKOFF_MS}. */
  backoffMs: number;
}

/** Longest wait between two attempts. */
export const MAX_BACKOFF_MS = 10 * 60_000;

/** Longest response text kept in an event's delivery_error. */
const MAX_ERROR_CHARS = 500;

/** `final`: trying again cannot help (the egress policy refuses the URL), so the delivery fails now. */
export type DeliveryResult = { ok: true } | { ok: false; error: string; final?: boolean };

/** The wait after failed attempt `attempt` (from 1): backoffMs * 2^(attempt - 1), capped. */
export function retryDelayMs(attempt: number, backoffMs: number): number {
  return Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/**
 * POSTs the notification as JSON through the egress policy (`fetchFn`). Any 2xx answer is a
 * delivery; anything else, a network error or the time-out is a failure to retry. A redirect is
 * such a failure: not followed, its body not kept. A URL the policy refuses is a final failure,
 * with nothing sent. Never throws.
 */
export async function postNotification(url: string, notification: AlertNotification, timeoutMs: number, fetchFn: EgressFetch): Promise<DeliveryResult> {
  try {
    const res = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'agent-eval-alerts' },
      body: JSON.stringify(notification),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    if (res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: true };
    }
    if (isRedirect(res.status)) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, error: `HTTP ${res.status}, a redirect (not followed)` };
    }
    const text = await readPrefix(res, MAX_ERROR_CHARS);
    return { ok: false, error: pgSafeText(`HTTP ${res.status}${text ? `: ${text}` : ''}`) };
  } catch (err) {
    if (err instanceof EgressRefusedError) return { ok: false, error: pgSafeText(`webhook refused by the egress policy: ${err.reason}`), final: true };
    const name = (err as { name?: unknown } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, error: `no answer within ${timeoutMs} ms` };
    const cause = (err as { cause?: unknown } | null)?.cause;
    return {
      ok: false,
      error: pgSafeText((cause === undefined ? errorMessage(err) : `${errorMessage(err)}: ${errorMessage(cause)}`).slice(0, MAX_ERROR_CHARS)),
    };
  }
}

/** The first `maxChars` characters of the answer's text: a hostile endpoint cannot make us buffer megabytes. */
async function readPrefix(res: Response, maxChars: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < maxChars) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The text only explains the failure; a broken body leaves what was read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, maxChars);
}
