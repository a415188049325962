import { errorMessage } from '../errors.js';
import { ProviderError, type LlmProviderName } from './types.js';

/** Statuses that mean "try again": time-out, conflict, rate limit, and every server error. */
const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Most a provider's Retry-After is honoured (longer waits are the retry policy's business). */
const MAX_RETRY_AFTER_MS = 60_000;

function retryAfterMs(headers: unknown): number | undefined {
  if (!(headers instanceof Headers)) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS) || undefined;
}

/**
 * Any error an SDK threw, as a ProviderError. The three SDKs agree on the shape that matters: an
 * HTTP error carries a numeric `status` (and Anthropic's and OpenAI's carry `headers`); a
 * connection failure or a time-out has none and is retryable. A call the caller aborted is
 * rethrown as it is: it is a cancellation, not a provider failure.
 */
export function providerError(provider: LlmProviderName, err: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted) return err instanceof Error ? err : new Error(errorMessage(err));
  if (err instanceof ProviderError) return err;
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status > 0) {
    const retryable = RETRYABLE_STATUS(status);
    const message = bodyMessage(err) ?? firstLine(err).replace(new RegExp(`^${status}\\s*`), '');
    return new ProviderError(
      provider,
      `${status} ${message}`,
      retryable,
      status,
      retryable ? retryAfterMs((err as { headers?: unknown }).headers) : undefined,
      { cause: err },
    );
  }
  return new ProviderError(provider, `call failed: ${firstLine(err)}`, true, undefined, undefined, { cause: err });
}

/**
 * The provider's own words from an error body the SDK put in its message as JSON
 * (`{"type":"error","error":{"message":…}}`, `{"error":{"code":404,"message":…}}`).
 */
function bodyMessage(err: unknown): string | undefined {
  const json = /\{.*\}\s*$/s.exec(errorMessage(err))?.[0];
  if (!json) return undefined;
  try {
    const body = JSON.parse(json) as { message?: unknown; error?: { message?: unknown } | string };
    const message = typeof body.error === 'object' ? body.error?.message : (body.error ?? body.message);
    return typeof message === 'string' && message ? message.split('\n')[0].slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(err: unknown): string {
  let message = errorMessage(err);
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (cause && !message.includes(errorMessage(cause))) message = `${message} (${errorMessage(cause)})`;
  return message.split('\n')[0].slice(0, 500);
}
