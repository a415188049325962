import type { Context, Next } from 'koa';
import { ALL_PERMISSIONS, ANONYMOUS } from '../../core/principal.js';
import { requireProjectId } from '../../core/project-context.js';

/**
 * Resolves the caller into the typed request state: principal, permissions and project. API-key
 * and JWT authentication will run before this and set all three from the credential; this fills
 * what is unset (an anonymous caller with every permission, the project from header or query).
 */
export async function projectContext(ctx: Context, next: Next) {
  ctx.state.principal ??= ANONYMOUS;
  ctx.state.permissions ??= ALL_PERMISSIONS;
  if (!ctx.state.projectId) ctx.state.projectId = requireProjectId(ctx.headers, ctx.query);
  await next();
}
