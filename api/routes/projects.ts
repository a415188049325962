import Router from '@koa/router';
import type { Context } from 'koa';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import { CreateKeySchema, CreateProjectSchema, RateLimitsSchema } from '../../core/model/project.js';
import { validate } from '../../core/validate.js';
import type { RateLimits } from '../../core/config.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { operation } from '../middleware/errors.js';
import { requirePermission, requireServerAdmin } from '../middleware/permission.js';

const projectNotFound = () => new NotFoundError('Project not found', 'PROJECT_NOT_FOUND');

/** A project the caller cannot reach is not found (SPEC: 404, never 403, so ids cannot be probed). */
function reachable(ctx: Context, id: string): boolean {
  return ctx.state.reach === null || ctx.state.reach.includes(id);
}

const limitsView = (l: RateLimits) => ({ ingest: l.ingest, query: l.query, eval_runs: l.evalRuns, window: 'fixed 60 s' });

/** What an audit entry keeps of a key: never its secret. */
const keyDetails = (k: { name: string; role: string; prefix: string; server_admin: boolean }) => ({
  name: k.name,
  role: k.role,
  prefix: k.prefix,
  server_admin: k.server_admin,
});

/** /api/projects: projects, their API keys (shown once) and their rate limits. */
export function projectsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/projects' });
  const keys = deps.metadata.keys;
  const admin = requirePermission('projects:admin');

  // A server admin's (docs/security.md, "Server admins and project governance"): anyone else gets
  // the same 403 whatever id the body names, so nothing about other projects' ids shows; a server
  // admin, who may list every project anyway, gets 409 for an id taken (by a deleted project too).
  router.post('/', operation('create project', 'metadata'), requireServerAdmin(), async (ctx) => {
    const input = validate(CreateProjectSchema, ctx.request.body);
    const project = await keys.createProject({ id: input.id, name: input.name });
    if (!project) throw new ConflictError(`Project ${input.id} already exists`, 'PROJECT_EXISTS');
    const apiKey = await keys.createKey(project.id, { name: input.key_name, role: 'admin', env: input.env, createdBy: ctx.state.principal.id });
    const who = auditFrom(ctx);
    await deps.audit.record({ ...who, action: 'project.created', projectId: project.id, target: project.id, details: { name: project.name } });
    await deps.audit.record({ ...who, action: 'key.created', projectId: project.id, target: apiKey.id, details: keyDetails(apiKey) });
    ctx.status = 201;
    ctx.body = { ...project, api_key: apiKey };
  });

  router.get('/', operation('fetch projects', 'metadata'), async (ctx) => {
    ctx.body = { projects: await keys.listProjects(ctx.state.reach ?? undefined) };
  });

  router.get('/:id', operation('fetch project', 'metadata'), async (ctx) => {
    const project = reachable(ctx, ctx.params.id) ? await keys.getProject(ctx.params.id) : null;
    if (!project) throw projectNotFound();
    ctx.body = { ...project, rate_limits: limitsView(await deps.limiter.limitsOf(project.id)) };
  });

  /** The project of a key route, which must be reachable and exist. */
  async function keyProject(ctx: Context): Promise<string> {
    const id = (ctx.params as { id: string }).id;
    if (!reachable(ctx, id) || !(await keys.getProject(id))) throw projectNotFound();
    return id;
  }

  router.post('/:id/keys', operation('create key', 'metadata'), admin, async (ctx) => {
    const projectId = await keyProject(ctx);
    const input = validate(CreateKeySchema, ctx.request.body);
    if (input.server_admin && ctx.state.principal.serverAdmin !== true) {
      throw new ForbiddenError('missing permission server:admin (only a server admin creates server-admin keys)');
    }
    const created = await keys.createKey(projectId, {
      name: input.name,
      role: input.role,
      env: input.env,
      serverAdmin: input.server_admin,
      createdBy: ctx.state.principal.id,
    });
    await deps.audit.record({ ...auditFrom(ctx), action: 'key.created', projectId, target: created.id, details: keyDetails(created) });
    ctx.status = 201;
    ctx.body = created;
  });

  router.get('/:id/keys', operation('fetch keys', 'metadata'), admin, async (ctx) => {
    ctx.body = { keys: await keys.listKeys(await keyProject(ctx)) };
  });

  router.delete('/:id/keys/:keyId', operation('revoke key', 'metadata'), admin, async (ctx) => {
    const projectId = await keyProject(ctx);
    if (ctx.state.principal.serverAdmin !== true && isUuid(ctx.params.keyId)) {
      // A project's admin cannot take a server admin's key away (nor a server admin's power).
      const target = (await keys.listKeys(projectId)).find((k) => k.id === ctx.params.keyId);
      if (target?.server_admin && target.revoked_at === null)
        throw new ForbiddenError('missing permission server:admin (only a server admin revokes a server-admin key)');
    }
    const revoked = isUuid(ctx.params.keyId) ? await keys.revokeKey(projectId, ctx.params.keyId) : null;
    if (!revoked) throw new NotFoundError('API key not found', 'API_KEY_NOT_FOUND');
    // This process forgets it at once; others within AUTH_CACHE_TTL_MS (docs/security.md).
    deps.auth.forget(revoked.prefix);
    await deps.audit.record({ ...auditFrom(ctx), action: 'key.revoked', projectId, target: revoked.id, details: keyDetails(revoked) });
    ctx.status = 204;
  });

  router.get('/:id/rate-limits', operation('fetch rate limits', 'metadata'), async (ctx) => {
    ctx.body = limitsView(await deps.limiter.limitsOf(await keyProject(ctx)));
  });

  router.put('/:id/rate-limits', operation('update rate limits', 'metadata'), admin, async (ctx) => {
    const projectId = await keyProject(ctx);
    const input = validate(RateLimitsSchema, ctx.request.body);
    const before = limitsView(await deps.limiter.limitsOf(projectId));
    const after = limitsView(await deps.limiter.setLimits(projectId, { ingest: input.ingest, query: input.query, evalRuns: input.eval_runs }));
    await deps.audit.record({ ...auditFrom(ctx), action: 'rate_limits.changed', projectId, target: projectId, details: { requested: input, before, after } });
    ctx.body = after;
  });

  return router;
}
