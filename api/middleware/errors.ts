import type { Context, Next } from 'koa';
import { AppError, BackpressureError, classifyStoreError, ForbiddenError, UnauthorizedError, ValidationError, type StoreKind } from '../../core/errors.js';
import { toWireError } from '../../core/wire-error.js';
import type { Logger } from '../../core/logger.js';

/** What a route does, so an unexpected failure gets the SPEC's `Failed to <verb> <object>` text. */
export interface Operation {
  name: string;
  store: StoreKind;
}

/** Names the route's operation; the error middleware reads it. */
export function operation(name: string, store: StoreKind = 'analytics') {
  return async (ctx: Context, next: Next) => {
    ctx.state.operation = { name, store } satisfies Operation;
    await next();
  };
}

/** The SPEC's body shapes: validation (422), reference (404), general (everything else). */
export function errorBody(err: AppError): Record<string, unknown> {
  if (err instanceof ValidationError) {
    return { error: 'Validation error', code: err.code, message: err.message, details: err.issues };
  }
  if (err.status === 404) return { error: err.message, message: err.message, code: err.code, status: 404 };
  const out: Record<string, unknown> = { error: err.message, code: err.code, status: err.status };
  if (typeof err.details === 'string' && (err.status >= 500 || err.status === 401 || err.status === 403)) out.details = err.details;
  if (err instanceof UnauthorizedError || err instanceof ForbiddenError) out.hint = err.hint;
  if (err instanceof BackpressureError) out.retry_after = err.retryAfterSeconds;
  return out;
}

/**
 * The one place error bodies are built (STYLE 5): AppErrors keep their status and message;
 * anything else is classified by the route's operation (503 for an unreachable store, else 500).
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (thrown) {
      const op = ctx.state.operation;
      const wire = toWireError(thrown instanceof AppError ? thrown : classifyStoreError(op?.store ?? 'analytics', op?.name ?? 'process request', thrown));
      const err = wire.error;
      if (err.status >= 500) logger.error({ err: thrown, path: ctx.path, method: ctx.method }, err.message);
      ctx.status = wire.httpStatus;
      ctx.body = errorBody(err);
      if (wire.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(Math.ceil(wire.retryAfterSeconds)));
    }
  };
}
