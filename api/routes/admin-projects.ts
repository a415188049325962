import Router from '@koa/router';
import type { Context } from 'koa';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { PROJECT_ID_PATTERN } from '../../core/project-context.js';
import type { ProjectChange } from '../../core/store/project-admin.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { operation } from '../middleware/errors.js';
import { requireServerAdmin } from '../middleware/permission.js';

const projectNotFound = () => new NotFoundError('Project not found', 'PROJECT_NOT_FOUND');

/** The answer of a refused change (docs/security.md, "Server admins and project governance"). */
function refused(id: string, change: Extract<ProjectChange, { ok: false }>): Error {
  switch (change.reason) {
    case 'not_found':
      return projectNotFound();
    case 'is_default':
      return new ConflictError(
        `Project ${id} is the default project (it holds the bootstrap key and AUTH_MODE=none's exports): it cannot be archived or deleted`,
        'PROJECT_IS_DEFAULT',
      );
    case 'not_archived':
      return new ConflictError(
        `Project ${id} is not archived: archive it first (POST /api/admin/projects/${id}/archive), then delete it`,
        'PROJECT_NOT_ARCHIVED',
      );
    case 'deleted':
      return new ConflictError(`Project ${id} is deleted`, 'PROJECT_DELETED');
  }
}

/**
 * /api/admin/projects: every project, for server admins only: list (with status), archive
 * (read-only), unarchive, delete (an archived project's data, from both stores, in the
 * background). Project creation stays POST /api/projects, also a server admin's.
 */
export function adminProjectsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/admin/projects' });
  const store = deps.metadata.projectAdmin;
  const serverAdmin = requireServerAdmin();

  /** The project id of the path: one that cannot be an id is not found. */
  function idOf(ctx: Context): string {
    const id = (ctx.params as { id: string }).id;
    if (!PROJECT_ID_PATTERN.test(id)) throw projectNotFound();
    return id;
  }

  router.get('/', operation('fetch projects', 'metadata'), serverAdmin, async (ctx) => {
    ctx.body = { projects: await store.listAll() };
  });

  // Archiving and unarchiving: the project's state changes for every credential at once.
  for (const [verb, action] of [
    ['archive', 'project.archived'],
    ['unarchive', 'project.unarchived'],
  ] as const) {
    router.post(`/:id/${verb}`, operation(`${verb} project`, 'metadata'), serverAdmin, async (ctx) => {
      const id = idOf(ctx);
      const change = await store[verb](id);
      if (!change.ok) throw refused(id, change);
      deps.projectStates.forget(id);
      await deps.audit.record({ ...auditFrom(ctx), action, projectId: id, target: id, details: { name: change.project.name } });
      ctx.body = change.project;
    });
  }

  // 202: the project is deleted for every credential at once (its keys revoked, its status
  // `deleting`); its data leaves both stores in the background, then its status is `deleted`.
  router.delete('/:id', operation('delete project', 'metadata'), serverAdmin, async (ctx) => {
    const id = idOf(ctx);
    const change = await store.requestDeletion(id);
    if (!change.ok) throw refused(id, change);
    deps.projectStates.forget(id);
    for (const prefix of change.revokedPrefixes ?? []) deps.auth.forget(prefix);
    // Its rate-limit counters would otherwise be written again by the next sync, after the purge.
    deps.limiter.forget(id);
    // Recorded once: a DELETE repeated while the data goes changes nothing.
    if (change.revokedPrefixes !== undefined) {
      await deps.audit.record({
        ...auditFrom(ctx),
        action: 'project.deleted',
        projectId: id,
        target: id,
        details: { name: change.project.name, keys_revoked: change.revokedPrefixes.length },
      });
    }
    if (change.project.status === 'deleting') deps.projectDeletion.start(id);
    ctx.status = 202;
    ctx.body = change.project;
  });

  return router;
}
