import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { BadRequestError, NotFoundError, ValidationError } from '../../core/errors.js';
import { isUuid } from '../../core/model/agent.js';
import { pgText } from '../../core/model/pg-json.js';
import { normalizeSuiteKeys, parseSuiteDefinition, type SuiteDefinition } from '../../core/model/suite.js';
import { MAX_SUITE_YAML_BYTES, parseSuiteYaml, withSuiteFileLines } from '../../core/model/suite-yaml.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { isYamlBody, readBodyText } from '../middleware/json-body.js';
import { pageQuery } from './page-query.js';
import { scorersFor } from '../project-scorers.js';
import { orNotFound } from './or-not-found.js';

/** The paths whose POST / PUT also take a YAML body (see jsonBody's `yamlPaths`). */
export const SUITE_BODY_PATHS = /^\/api\/suites(?:\/[^/]+)?\/?$/;

/** Largest page of GET /api/suites. */
export const MAX_SUITE_PAGE = 1000;

export const ListQuerySchema = pageQuery(MAX_SUITE_PAGE).extend({
  name: pgText(256).min(1).optional(),
});

export const VersionQuerySchema = z.object({
  version: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
});

function suiteNotFound(): NotFoundError {
  return new NotFoundError('Suite not found', 'SUITE_NOT_FOUND');
}

/** The SPEC's 400 for an id that cannot be a suite's. */
function suiteId(params: Record<string, string | undefined>): string {
  const id = params.id ?? '';
  if (!isUuid(id)) throw new BadRequestError('Invalid suite ID format', 'INVALID_SUITE_ID');
  return id;
}

/**
 * The body as a checked definition: JSON, or YAML by Content-Type (never one read as the
 * other). `agent_id` must name an agent of the project and is stored as that agent's id.
 */
async function readDefinition(ctx: Context, deps: ApiDeps): Promise<SuiteDefinition> {
  const yaml = isYamlBody(ctx) ? await readBodyText(ctx, Math.min(deps.config.maxBodyBytes, MAX_SUITE_YAML_BYTES)) : undefined;
  const raw = yaml === undefined ? normalizeSuiteKeys(ctx.request.body) : parseSuiteYaml(yaml);
  const scorers = await scorersFor(deps, ctx.state.projectId);
  let def: SuiteDefinition;
  try {
    def = parseSuiteDefinition(raw, scorers);
  } catch (err) {
    // A YAML body's problems name their line and case too.
    throw yaml === undefined ? err : withSuiteFileLines(yaml, err);
  }
  if (!def.agent_id) return def;
  const agent = await deps.metadata.agents.resolve(ctx.state.projectId, def.agent_id);
  if (!agent) throw new ValidationError([{ field: 'agent_id', message: `no agent with this id or name in the project` }]);
  return { ...def, agent_id: agent.id };
}

/** /api/suites: test suites and their immutable versions. */
export function suitesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/suites' });
  const suites = deps.metadata.suites;

  router.post('/', operation('create suite', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const def = await readDefinition(ctx, deps);
    ctx.body = await suites.create(ctx.state.projectId, def);
    ctx.status = 201;
  });

  router.get('/', operation('fetch suite', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const q = validate(ListQuerySchema, ctx.query);
    ctx.body = await suites.list(ctx.state.projectId, q);
  });

  router.get('/:id', operation('fetch suite', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const id = suiteId(ctx.params);
    const { version } = validate(VersionQuerySchema, ctx.query);
    ctx.body = orNotFound(await suites.get(ctx.state.projectId, id, version), suiteNotFound);
  });

  router.get('/:id/versions', operation('fetch suite', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const id = suiteId(ctx.params);
    const versions = await suites.versions(ctx.state.projectId, id);
    if (!versions) throw suiteNotFound();
    ctx.body = { id, versions };
  });

  router.put('/:id', operation('update suite', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const id = suiteId(ctx.params);
    const def = await readDefinition(ctx, deps);
    ctx.body = orNotFound(await suites.update(ctx.state.projectId, id, def), suiteNotFound);
  });

  router.delete('/:id', operation('delete suite', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const id = suiteId(ctx.params);
    if (!(await suites.delete(ctx.state.projectId, id))) throw suiteNotFound();
    ctx.status = 204;
  });

  return router;
}
