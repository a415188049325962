import type { Context } from 'koa';
import { auditActor, type AuditActor, type AuditClient } from '../core/audit/audit-log.js';

/**
 * Who made the request and from where, as an audit entry records it: spread into
 * `deps.audit.record({ ...auditFrom(ctx), action, projectId, target, details })`.
 */
export function auditFrom(ctx: Context): { actor: AuditActor; client: AuditClient } {
  return {
    actor: auditActor(ctx.state.principal),
    client: { address: ctx.state.clientAddress ?? ctx.request.socket?.remoteAddress ?? null, userAgent: ctx.get('user-agent') || null },
  };
}
