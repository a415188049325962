import type { Context, Next } from 'koa';
import { BadRequestError, ValidationError } from '../../core/errors.js';
import { hasControlCharacter, NO_CONTROL_CHARACTERS } from '../../core/model/ids.js';

/** One path segment as the router decodes it; a malformed escape stays as it is (the router keeps it raw too). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The id rule (core/model/ids.ts) on everything of an /api/* URL: every path parameter is an id
 * (a run, a queue, an agent, a prompt's name...), and a query value is an id or a filter on
 * stored text, so neither may hold a control character. Refused before any store sees it
 * (PostgreSQL cannot hold U+0000 and answered such lookups with a 500): a path with one is a 400,
 * a query value the 422 of every other bad query parameter, naming it.
 */
export function requestText() {
  return async (ctx: Context, next: Next) => {
    if (ctx.path.includes('%')) {
      for (const segment of ctx.path.split('/')) {
        if (segment.includes('%') && hasControlCharacter(decoded(segment))) {
          throw new BadRequestError(`Path parameters ${NO_CONTROL_CHARACTERS}`, 'CONTROL_CHARACTERS');
        }
      }
    }
    if (ctx.querystring !== '') {
      const issues: Array<{ field: string; message: string }> = [];
      for (const [name, value] of Object.entries(ctx.query)) {
        if (hasControlCharacter(name)) {
          issues.push({ field: '(query)', message: `parameter names ${NO_CONTROL_CHARACTERS}` });
          continue;
        }
        const values = Array.isArray(value) ? value : [value ?? ''];
        if (values.some(hasControlCharacter)) issues.push({ field: name, message: NO_CONTROL_CHARACTERS });
      }
      if (issues.length > 0) throw new ValidationError(issues);
    }
    await next();
  };
}
