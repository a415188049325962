import type { Context } from 'koa';
import { ValidationError } from '../core/errors.js';
import { actorOf, type Actor } from '../core/principal.js';

/**
 * Who a record (feedback, an answer, a review) names for this request. A signed-in person is
 * recorded as themselves, id and name, and cannot name anyone else (`field` given with another id
 * is a 422). A key or token caller names whom it likes (`named`: an SDK recording its end users),
 * else its own id.
 */
export function actorFor(ctx: Context, named: string | null | undefined, field: string): Actor {
  const principal = ctx.state.principal;
  if (principal.kind === 'user') {
    if (named != null && named !== principal.id) throw new ValidationError([{ field, message: 'a signed-in person is recorded as themselves: leave it out' }]);
    return actorOf(principal);
  }
  return { id: named ?? principal.id, name: null };
}

/** The signed-in person of this request, or null for keys, tokens and AUTH_MODE=none. */
export function personOf(ctx: Context): Actor | null {
  return ctx.state.principal.kind === 'user' ? actorOf(ctx.state.principal) : null;
}
