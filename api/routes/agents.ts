import Router from '@koa/router';
import { NotFoundError } from '../../core/errors.js';
import { CreateAgentSchema, UpdateAgentSchema } from '../../core/model/agent.js';
import { validate } from '../../core/validate.js';
import { urlForAudit } from '../../core/audit/audit-log.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { assertEgressAllowed } from '../egress-check.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { endpointResourceRoutes } from './endpoint-resource.js';

/** Largest page of GET /api/agents. */
export const MAX_AGENT_PAGE = 1000;

function agentNotFound(): NotFoundError {
  return new NotFoundError('Agent not found', 'AGENT_NOT_FOUND');
}

/** /api/agents: the HTTP endpoints runs call. `:id` is an agent's id or its name. */
export function agentsRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/agents' });
  const agents = deps.metadata.agents;

  endpointResourceRoutes(router, deps, {
    noun: 'agent',
    plural: 'agents',
    store: agents,
    createSchema: CreateAgentSchema,
    maxPage: MAX_AGENT_PAGE,
    notFound: agentNotFound,
  });

  router.put('/:id', operation('update agent', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const input = validate(UpdateAgentSchema, ctx.request.body);
    await assertEgressAllowed(deps, [{ field: 'endpoint', url: input.endpoint }]);
    const before = await agents.resolve(ctx.state.projectId, ctx.params.id);
    const agent = before && (await agents.update(ctx.state.projectId, ctx.params.id, input));
    if (!agent) throw agentNotFound();
    // Where the agent's calls (and its secret headers) go: recorded when it changes.
    if (before.endpoint !== agent.endpoint) {
      await deps.audit.record({
        ...auditFrom(ctx),
        action: 'agent.endpoint_changed',
        projectId: ctx.state.projectId,
        target: agent.id,
        details: {
          name: agent.name,
          from: urlForAudit(before.endpoint),
          to: urlForAudit(agent.endpoint),
          header_names: agent.header_names,
          headers_dropped: before.header_names.filter((h) => !agent.header_names.includes(h)),
        },
      });
    }
    ctx.body = agent;
  });

  return router;
}
