import type { Context, Next } from 'koa';
import { ForbiddenError } from '../../core/errors.js';
import type { Permission } from '../../core/principal.js';

/** Route guard: 403 `Forbidden` with details `missing permission {permission}` (SPEC) unless the caller has it. */
export function requirePermission(permission: Permission) {
  return async (ctx: Context, next: Next) => {
    if (!ctx.state.permissions.has(permission)) throw new ForbiddenError(`missing permission ${permission}`);
    await next();
  };
}
