import Router from '@koa/router';
import type { Context } from 'koa';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import { CreateKeySchema, CreateProjectSchema, RateLimitsSchema } from '../../core/model/project.js';
import { validate } from '../../core/validate.js';
import type { RateLimits } from '../../core/config.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

const projectNotFound = () => new NotFoundError('Project not found', 'PROJECT_NOT_FOUND');

/** A project the caller cannot reach is not found (SPEC: 404, never 403, so ids cannot be probed). */
function reachable(ctx: Context, id: string): boolean {
  return ctx.state.reach === null || ctx.state.reach.includes(id);
}

const limitsView = (l: RateLimits) => ({ ingest: l.ingest, query: l.query, eval_runs: l.evalRuns, window: 'fixed 60 s' });

/** /api/projects: projects, their API keys (shown once) and their rate limits. */
export function projectsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/projects' });
  const keys = deps.metadata.keys;
  const admin = requirePermission('projects:admin');

  router.post('/', operation('create project', 'metadata'), admin, async (ctx) => {
    const input = validate(CreateProjectSchema, ctx.request.body);
    const project = await keys.createProject({ id: input.id, name: input.name });
    if (!project) throw new ConflictError(`Project ${input.id} already exists`, 'PROJECT_EXISTS');
    const apiKey = await keys.createKey(project.id, { name: input.key_name, role: 'admin', env: input.env, createdBy: ctx.state.principal.id });
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
    ctx.status = 201;
    ctx.body = await keys.createKey(projectId, { ...input, createdBy: ctx.state.principal.id });
  });

  router.get('/:id/keys', operation('fetch keys', 'metadata'), admin, async (ctx) => {
    ctx.body = { keys: await keys.listKeys(await keyProject(ctx)) };
  });

  router.delete('/:id/keys/:keyId', operation('revoke key', 'metadata'), admin, async (ctx) => {
    const projectId = await keyProject(ctx);
    const prefix = isUuid(ctx.params.keyId) ? await keys.revokeKey(projectId, ctx.params.keyId) : null;
    if (!prefix) throw new NotFoundError('API key not found', 'API_KEY_NOT_FOUND');
    // This process forgets it at once; others within AUTH_CACHE_TTL_MS (docs/security.md).
    deps.auth.forget(prefix);
    ctx.status = 204;
  });

  router.get('/:id/rate-limits', operation('fetch rate limits', 'metadata'), async (ctx) => {
    ctx.body = limitsView(await deps.limiter.limitsOf(await keyProject(ctx)));
  });

  router.put('/:id/rate-limits', operation('update rate limits', 'metadata'), admin, async (ctx) => {
    const projectId = await keyProject(ctx);
    const input = validate(RateLimitsSchema, ctx.request.body);
    ctx.body = limitsView(await deps.limiter.setLimits(projectId, { ingest: input.ingest, query: input.query, evalRuns: input.eval_runs }));
  });

  return router;
}
