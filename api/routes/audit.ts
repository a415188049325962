import Router from '@koa/router';
import { ForbiddenError, ValidationError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import { AuditListQuerySchema } from '../../core/model/audit.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';

/**
 * GET /api/audit (docs/security.md, "Audit log"): newest first, keyset pages (`next_cursor`).
 * A server admin reads every entry (`project` narrows them to one project); a project's admin
 * (`projects:admin`) the entries of the project of the call only; anyone else 403.
 */
export function auditRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/audit' });

  router.get('/', operation('fetch audit log', 'metadata'), async (ctx) => {
    const serverAdmin = ctx.state.principal.serverAdmin === true;
    if (!serverAdmin && !ctx.state.permissions.has('projects:admin')) throw new ForbiddenError('missing permission projects:admin');
    const q = validate(AuditListQuerySchema, ctx.query);
    if (q.cursor && !isUuid(q.cursor.id)) throw new ValidationError([{ field: 'cursor', message: 'must be a next_cursor of this endpoint' }]);
    ctx.body = await deps.audit.list(serverAdmin ? undefined : ctx.state.projectId, q);
  });

  return router;
}
