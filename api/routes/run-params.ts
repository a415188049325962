import type Router from '@koa/router';
import { z } from 'zod';
import { BadRequestError } from '../../core/errors.js';
import { validate } from '../../core/validate.js';
import { idString } from '../../core/model/ids.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';
import type { RunService } from '../run-service.js';

export const CompareSchema = z.object({
  baseline_run_id: idString(128),
  candidate_run_id: idString(128),
  /** A score change within ±threshold is "unchanged". */
  threshold: z.number().min(0).max(1).default(0.05),
  /** Significance level of the permutation test (1 - confidence level; experiments set it). */
  alpha: z.number().gt(0).lt(1).default(0.05),
});

const missing = (v: unknown) => v === undefined || v === null || v === '';

/** `?failed_only=true` of both families' results routes. */
export const ResultsQuery = z.object({
  failed_only: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});

/** The comparison body of both families, with the SPEC's 400 texts for the run ids. */
export function compareBody(raw: unknown): z.output<typeof CompareSchema> {
  const body = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  if (missing(body.baseline_run_id)) throw new BadRequestError('baseline_run_id is required', 'BASELINE_REQUIRED');
  if (missing(body.candidate_run_id)) throw new BadRequestError('candidate_run_id is required', 'CANDIDATE_REQUIRED');
  if (body.baseline_run_id === body.candidate_run_id) throw new BadRequestError('baseline_run_id and candidate_run_id must be different', 'SAME_RUN');
  return validate(CompareSchema, body);
}

/** The routes both families answer alike: a run's results (`?failed_only=`) and the comparison of two runs. */
export function sharedRunRoutes(router: Router, service: RunService): void {
  router.get('/runs/:id/results', operation('get eval run', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const q = validate(ResultsQuery, ctx.query);
    ctx.body = { results: await service.results(ctx.state.projectId, ctx.params.id, q.failed_only) };
  });

  router.post('/compare', operation('compare runs', 'metadata'), requirePermission('evals:read'), async (ctx) => {
    const body = compareBody(ctx.request.body);
    ctx.body = await service.compare(ctx.state.projectId, body.baseline_run_id, body.candidate_run_id, body.threshold, body.alpha);
  });
}
