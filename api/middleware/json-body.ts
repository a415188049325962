import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { AppError, BadRequestError, PayloadTooLargeError } from '../../core/errors.js';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../../core/model/limits.js';

/** Content types of a YAML body (suite files). */
export const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml'];

export interface BodyOptions {
  /**
   * Paths that also take a YAML body. Such a body is left unread here, so it is never parsed as
   * JSON: the route reads it with {@link readBodyText} and parses it as YAML.
   */
  yamlPaths?: RegExp;
}

/** Whether the request carries a YAML body (by its Content-Type). */
export function isYamlBody(ctx: Context): boolean {
  return Boolean(ctx.request.type) && ctx.is(YAML_TYPES) !== false;
}

/** The body as UTF-8 text, read up to `limitBytes`: over the limit -> 413 (stops reading early). */
export async function readBodyText(ctx: Context, limitBytes: number): Promise<string> {
  try {
    return await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8', length: ctx.request.length ?? undefined });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
    throw new BadRequestError('Could not read the request body', 'BAD_BODY');
  }
}

/** A JSON body's text parsed: malformed -> 400, nested deeper than MAX_BODY_DEPTH -> 400; blank -> undefined. */
function parseJsonText(text: string): unknown {
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    throw new BadRequestError('Malformed JSON in request body', 'MALFORMED_JSON');
  }
  if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw new BadRequestError(`Request body is nested more than ${MAX_BODY_DEPTH} levels deep`, 'BODY_TOO_DEEP');
  return body;
}

/**
 * Reads a JSON body with a size limit: over the limit -> 413 (stops reading early), malformed
 * JSON -> 400, nested deeper than MAX_BODY_DEPTH -> 400 (the one bound for every route: deeper
 * bodies overflowed the stack of the code that checks and stores them), another content type ->
 * 415 (YAML too, except on `options.yamlPaths`). Sets `ctx.request.body`.
 */
export function jsonBody(limitBytes: number, options: BodyOptions = {}) {
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
    const takesYaml = options.yamlPaths?.test(ctx.path) ?? false;
    if (takesYaml && isYamlBody(ctx)) {
      ctx.request.body = undefined;
      await next();
      return;
    }
    if (!ctx.is('application/json', '+json')) {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json${takesYaml ? ' or application/yaml' : ''}`);
    }
    // No local holds the text or the parsed body across `next()`: a route may wait long for its
    // answer (an ingest waits for its insert) while its body, garbage to this frame, would survive
    // every young-generation collection (issue 33).
    ctx.request.body = parseJsonText(await readBodyText(ctx, limitBytes));
    await next();
  };
}
