import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { AppError, BadRequestError, PayloadTooLargeError } from '../../core/errors.js';

/**
 * Reads a JSON body with a size limit: over the limit -> 413 (stops reading early), malformed
 * JSON -> 400, another content type -> 415. Sets `ctx.request.body`.
 */
export function jsonBody(limitBytes: number) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') {
      await next();
      return;
    }
    if (ctx.request.length === 0 || (!ctx.request.type && !ctx.request.length)) {
      ctx.request.body = undefined;
      await next();
      return;
    }
    if (!ctx.is('application/json', '+json')) {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    let text: string;
    try {
      text = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8', length: ctx.request.length ?? undefined });
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
      throw new BadRequestError('Could not read the request body', 'BAD_BODY');
    }
    try {
      ctx.request.body = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      throw new BadRequestError('Malformed JSON in request body', 'MALFORMED_JSON');
    }
    await next();
  };
}
