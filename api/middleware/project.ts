import type { Context, Next } from 'koa';
import { requireProjectId } from '../../core/project-context.js';

/**
 * Resolves the caller's project into `ctx.state.projectId`. API-key and JWT authentication will
 * run before this and may set the project from the credential; this only fills it when unset.
 */
export async function projectContext(ctx: Context, next: Next) {
  if (!ctx.state.projectId) ctx.state.projectId = requireProjectId(ctx.headers, ctx.query);
  await next();
}
