import type { Context, Next } from 'koa';
import { AppError, classifyStoreError, errorMessage, ServiceUnavailableError } from '../../core/errors.js';

/**
 * The SPEC's error codes of correlation analysis (`GET /api/analytics/correlation`). The status
 * and body of each error are the API's as everywhere (docs/api.md, "Errors"); only `code` says,
 * in the SPEC's words, which of the five things went wrong:
 * - `INVALID_INPUT`: the query is refused (400 or 422, with the fields);
 * - `CONNECTION_ERROR`: the analytical store cannot be reached (503, Retry-After);
 * - `QUERY_TIMEOUT`: the store gave up on the query for its time (503, Retry-After);
 * - `PARSE_ERROR`: the store answered something that cannot be read as the result (500);
 * - `QUERY_FAILED`: the store failed the query otherwise (500).
 * Credentials, permissions and rate limits keep their own codes: they are not the analysis's.
 */
export const CORRELATION_ERROR_CODES = ['QUERY_FAILED', 'QUERY_TIMEOUT', 'PARSE_ERROR', 'CONNECTION_ERROR', 'INVALID_INPUT'] as const;
export type CorrelationErrorCode = (typeof CORRELATION_ERROR_CODES)[number];

const TIMEOUT = /TIMEOUT_EXCEEDED|SOCKET_TIMEOUT|timed? ?out|Timeout/i;

function correlationCode(thrown: unknown, err: AppError): CorrelationErrorCode | null {
  if (err.status === 400 || err.status === 422) return 'INVALID_INPUT';
  if (err instanceof ServiceUnavailableError)
    return TIMEOUT.test(`${errorMessage(thrown)} ${typeof err.details === 'string' ? err.details : ''}`) ? 'QUERY_TIMEOUT' : 'CONNECTION_ERROR';
  if (err.status >= 500) return thrown instanceof SyntaxError ? 'PARSE_ERROR' : 'QUERY_FAILED';
  return null;
}

/** Re-codes the errors of the correlation route (after `operation(...)`, before the handler). */
export async function correlationErrorCodes(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (thrown) {
    const err = classifyStoreError('analytics', ctx.state.operation?.name ?? 'fetch score correlation', thrown);
    const code = correlationCode(thrown, err);
    throw code ? err.withCode(code) : err;
  }
}
