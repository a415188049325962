import type Router from '@koa/router';
import type { z } from 'zod';
import type { NotFoundError } from '../../core/errors.js';
import { validate } from '../../core/validate.js';
import { urlForAudit } from '../../core/audit/audit-log.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { assertEgressAllowed } from '../egress-check.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { pageQuery } from './page-query.js';

/** Something a project registers to be called over HTTP (an agent, a custom scorer), as its routes answer it. */
interface EndpointResource {
  id: string;
  name: string;
  endpoint: string;
  header_names: string[];
}

/** What the routes need of the resource's store: lookups by id or name. */
interface EndpointResourceStore<T, I> {
  create(projectId: string, input: I): Promise<T>;
  list(projectId: string, page: { limit: number; offset: number }): Promise<unknown>;
  resolve(projectId: string, idOrName: string): Promise<T | null>;
  delete(projectId: string, idOrName: string): Promise<boolean>;
}

export interface EndpointResourceSpec<T, S extends z.ZodType> {
  /** The operations' names and the audit log's actions (`agent.created`). */
  noun: 'agent' | 'scorer';
  plural: string;
  store: EndpointResourceStore<T, z.output<S>>;
  createSchema: S;
  maxPage: number;
  notFound(): NotFoundError;
  /** Checks of a create beyond its schema, before its endpoint is checked against the egress policy. */
  checkCreate?(input: z.output<S>): void;
}

/**
 * The routes every registered HTTP endpoint has (agents, custom scorers): POST / (the endpoint
 * checked against the egress policy, audited), GET / (a page), GET /:id and DELETE /:id (audited),
 * `:id` an id or a name.
 */
export function endpointResourceRoutes<T extends EndpointResource, S extends z.ZodType<{ endpoint: string }>>(
  router: Router,
  deps: ApiDeps,
  spec: EndpointResourceSpec<T, S>,
): void {
  const { noun, plural, store } = spec;
  const ListQuerySchema = pageQuery(spec.maxPage);

  router.post('/', operation(`create ${noun}`, 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const input = validate(spec.createSchema, ctx.request.body);
    spec.checkCreate?.(input);
    await assertEgressAllowed(deps, [{ field: 'endpoint', url: input.endpoint }]);
    const made = await store.create(ctx.state.projectId, input);
    await deps.audit.record({
      ...auditFrom(ctx),
      action: `${noun}.created`,
      projectId: ctx.state.projectId,
      target: made.id,
      details: { name: made.name, endpoint: urlForAudit(made.endpoint), header_names: made.header_names },
    });
    ctx.body = made;
    ctx.status = 201;
  });

  router.get('/', operation(`fetch ${plural}`, 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await store.list(ctx.state.projectId, q);
  });

  router.get('/:id', operation(`fetch ${noun}`, 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const found = await store.resolve(ctx.state.projectId, ctx.params.id);
    if (!found) throw spec.notFound();
    ctx.body = found;
  });

  router.delete('/:id', operation(`delete ${noun}`, 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const found = await store.resolve(ctx.state.projectId, ctx.params.id);
    if (!found || !(await store.delete(ctx.state.projectId, ctx.params.id))) throw spec.notFound();
    await deps.audit.record({
      ...auditFrom(ctx),
      action: `${noun}.deleted`,
      projectId: ctx.state.projectId,
      target: found.id,
      details: { name: found.name, endpoint: urlForAudit(found.endpoint) },
    });
    ctx.status = 204;
  });
}
