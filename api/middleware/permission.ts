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

/** An area whose permissions come as a pair, `<area>:read` and `<area>:write` (core/principal.ts). */
type ReadWriteArea = 'evals' | 'prompts' | 'feedback' | 'alerts';

/** The read and write guards of one area: `readWriteGuards('alerts')` guards with `alerts:read` and `alerts:write`. */
export function readWriteGuards(area: ReadWriteArea) {
  return { read: requirePermission(`${area}:read`), write: requirePermission(`${area}:write`) };
}

/** What a server admin is, for the 403 of a caller who is not one. */
const SERVER_ADMIN_HINT =
  'Use a server admin credential: the bootstrap key in credentials.json, a key a server admin created with server_admin: true, or a token with server_admin: true';

/**
 * Route guard of the server's governance (creating projects, /api/admin/projects, server-admin
 * keys): 403 `missing permission server:admin` unless the caller is a server admin
 * (docs/security.md, "Server admins and project governance"). Answered before the body is looked
 * at, so the answer says nothing of the project ids it names.
 */
export function requireServerAdmin() {
  return async (ctx: Context, next: Next) => {
    if (ctx.state.principal.serverAdmin !== true) throw new ForbiddenError('missing permission server:admin', SERVER_ADMIN_HINT);
    await next();
  };
}
