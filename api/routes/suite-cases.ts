import Router from '@koa/router';
import { z } from 'zod';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { addTraceCases } from '../../core/datasets/add-traces.js';
import { importCases } from '../../core/datasets/case-import.js';
import { exportSuite } from '../../core/datasets/suite-export.js';
import type { SuiteAppendDeps } from '../../core/datasets/suite-append.js';
import { isUuid } from '../../core/model/agent.js';
import { EXPORT_FORMATS, FromTracesSchema, ImportSchema } from '../../core/model/dataset.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import { scorersFor } from '../project-scorers.js';

/**
 * Suites fed from production and files (docs/api.md "Datasets from production"): traces, spans,
 * sessions and filtered batches as cases, CSV and JSONL imports, a version exported. The domain
 * is core/datasets/; each addition is a new version through its one append path.
 */

export const ExportQuerySchema = z.object({ format: z.enum(EXPORT_FORMATS).default('jsonl') });

const CONTENT_TYPES = { jsonl: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8', yaml: 'application/yaml; charset=utf-8' } as const;

function suiteId(id: string | undefined): string {
  if (!isUuid(id ?? '')) throw new BadRequestError('Invalid suite ID format', 'INVALID_SUITE_ID');
  return id!;
}

/** The suite lock and checks every addition goes through (core/datasets/suite-append.ts). */
export async function suiteAppendDeps(deps: ApiDeps, projectId: string): Promise<SuiteAppendDeps> {
  const queues = deps.metadata.queues;
  return { suites: deps.metadata.suites, withLock: queues.withLock.bind(queues), scorers: await scorersFor(deps, projectId) };
}

export function suiteCasesRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/suites' });

  // Reads traces (traces:read) and writes a suite (evals:write).
  router.post(
    '/:id/cases/from-traces',
    operation('update suite', 'metadata'),
    requirePermission('evals:write'),
    requirePermission('traces:read'),
    async (ctx) => {
      const id = suiteId(ctx.params.id);
      const body = validate(FromTracesSchema, ctx.request.body ?? {});
      const projectId = ctx.state.projectId;
      const added = await addTraceCases({ analytics: deps.analytics, append: await suiteAppendDeps(deps, projectId) }, projectId, id, body);
      ctx.status = added.suite ? 201 : 200;
      ctx.body = added;
    },
  );

  router.post('/:id/cases/import', operation('update suite', 'metadata'), requirePermission('evals:write'), async (ctx) => {
    const id = suiteId(ctx.params.id);
    const body = validate(ImportSchema, ctx.request.body ?? {});
    const imported = await importCases(await suiteAppendDeps(deps, ctx.state.projectId), ctx.state.projectId, id, body);
    ctx.status = imported.suite ? 201 : 200;
    ctx.body = imported;
  });

  router.get('/:id/versions/:version/export', operation('fetch suite', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const id = suiteId(ctx.params.id);
    const version = Number(ctx.params.version);
    if (!Number.isSafeInteger(version) || version < 1) throw new BadRequestError('version must be a whole number from 1', 'INVALID_VERSION');
    const { format } = validate(ExportQuerySchema, ctx.query);
    const suite = await deps.metadata.suites.get(ctx.state.projectId, id, version);
    if (!suite) throw new NotFoundError('Suite not found', 'SUITE_NOT_FOUND');
    ctx.type = CONTENT_TYPES[format];
    ctx.set('Content-Disposition', `attachment; filename="suite-v${suite.version}.${format}"`);
    ctx.body = exportSuite(suite.definition, format);
  });

  return router;
}
