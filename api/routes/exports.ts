import fs from 'node:fs';
import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../core/errors.js';
import {
  CreateExportJobSchema,
  DEFAULT_EXPORT_ROWS,
  encodeExportCursor,
  EXPORT_CONTENT_TYPES,
  EXPORT_FILTERS,
  EXPORT_KINDS,
  exportCursorParam,
  exportFileName,
  MAX_EXPORT_ROWS,
  STREAMED_FORMATS,
  type ExportKind,
} from '../../core/model/export.js';
import { validate } from '../../core/validate.js';
import type { ExportJobs } from '../../core/exports/export-jobs.js';
import type { ApiDeps } from '../deps.js';
import { auditFrom } from '../audit-context.js';
import { operation } from '../middleware/errors.js';
import { requirePermission } from '../middleware/permission.js';

/** GET /api/exports/{kind}: the kind's filters, the format, the row limit and the cursor; an unknown parameter is a 422, not a silently wider export. */
export function streamQuery(kind: ExportKind) {
  return EXPORT_FILTERS[kind]
    .extend({
      format: z.enum(STREAMED_FORMATS).default('jsonl'),
      limit: z.coerce.number().int().min(1).max(MAX_EXPORT_ROWS).default(DEFAULT_EXPORT_ROWS),
      cursor: exportCursorParam(kind),
    })
    .strict();
}

const PARQUET_NEEDS_JOB =
  'Parquet is written whole before it can be read: ask for it as an export job (POST /api/exports {"kind", "format": "parquet", "filters"}), then download it';

/** Who may export what: traces, their spans and their scores are all trace data. */
const READ = requirePermission('traces:read');

function jobsOf(deps: { exportJobs?: ExportJobs }): ExportJobs {
  if (!deps.exportJobs) throw new AppError(409, 'EXPORT_JOBS_NOT_AVAILABLE', 'This process runs no export jobs (it has no API data dir)');
  return deps.exportJobs;
}

/**
 * Bulk export (docs/api.md, "Bulk export"): GET /api/exports/{traces|spans|scores} streams up to
 * `limit` rows as JSON Lines or CSV and names the next request's cursor in `X-Next-Cursor`;
 * POST /api/exports starts a background job writing one file (any format, Parquet only so),
 * GET /api/exports and /{id} show jobs, /{id}/download sends the file. Every export is in the
 * audit log (`data.exported`).
 */
export function exportsRouter(deps: Pick<ApiDeps, 'analytics' | 'audit' | 'logger'> & { exportJobs?: ExportJobs }): Router {
  const router = new Router({ prefix: '/api/exports' });

  for (const kind of EXPORT_KINDS) {
    router.get(`/${kind}`, operation(`export ${kind}`), READ, async (ctx) => {
      if (ctx.query.format === 'parquet') throw new BadRequestError(PARQUET_NEEDS_JOB, 'EXPORT_NEEDS_JOB');
      const { format, limit, cursor, ...filters } = validate(streamQuery(kind), ctx.query);
      const out = await deps.analytics.exports.stream(ctx.state.projectId, { kind, filters, limit, after: cursor }, format);
      ctx.status = 200;
      ctx.type = EXPORT_CONTENT_TYPES[format];
      ctx.set('content-disposition', `attachment; filename="agent-eval-${kind}.${format}"`);
      ctx.set('cache-control', 'no-store');
      ctx.set('x-export-rows', String(out.rows));
      if (out.next) ctx.set('x-next-cursor', encodeExportCursor(out.next));
      const body = Readable.from(out.body, { objectMode: false });
      // After the first byte a failure cannot change the status: the connection is cut instead, so
      // the client sees a broken transfer, never a short body that looks whole.
      body.once('error', (err) => {
        deps.logger.warn({ err, kind }, 'export stream failed after it started');
        ctx.res.destroy(err);
      });
      let sent = false;
      body.once('end', () => (sent = true));
      // Recorded once the response is over, whole or not: what left, and whether all of it did.
      body.once('close', () => {
        void deps.audit.record({
          ...auditFrom(ctx),
          action: 'data.exported',
          projectId: ctx.state.projectId,
          target: kind,
          details: {
            kind,
            format,
            rows: out.rows,
            filters: ctx.querystring.slice(0, 500),
            resumed: cursor !== undefined,
            sent_whole: sent,
            last: out.next === null,
          },
        });
      });
      ctx.body = body;
    });
  }

  router.post('/', operation('create export'), READ, (ctx) => {
    const body = validate(CreateExportJobSchema, ctx.request.body);
    const { filters } = validate(z.object({ filters: EXPORT_FILTERS[body.kind].strict() }), { filters: body.filters });
    const job = jobsOf(deps).create(ctx.state.projectId, {
      request: { kind: body.kind, filters, limit: body.limit },
      format: body.format,
      filters: body.filters,
    });
    ctx.status = 202;
    ctx.set('location', `/api/exports/${job.id}`);
    ctx.body = job;
  });

  router.get('/', operation('list exports'), READ, (ctx) => {
    ctx.body = { jobs: jobsOf(deps).list(ctx.state.projectId) };
  });

  const jobOr404 = (ctx: Context, id: string) => {
    const found = jobsOf(deps).file(ctx.state.projectId, id);
    if (!found) throw new NotFoundError(`Export '${id}' not found`, 'EXPORT_NOT_FOUND');
    return found;
  };

  router.get('/:id', operation('fetch export'), READ, (ctx) => {
    ctx.body = jobOr404(ctx, ctx.params.id).job;
  });

  router.get('/:id/download', operation('download export'), READ, async (ctx) => {
    const { path, job } = jobOr404(ctx, ctx.params.id);
    if (job.status !== 'succeeded') {
      const why = job.status === 'failed' ? `it failed: ${job.error}` : `it is ${job.status}`;
      throw new ConflictError(`Export '${job.id}' has no file: ${why}`, job.status === 'failed' ? 'EXPORT_FAILED' : 'EXPORT_NOT_READY');
    }
    await deps.audit.record({
      ...auditFrom(ctx),
      action: 'data.exported',
      projectId: ctx.state.projectId,
      target: job.id,
      details: { kind: job.kind, format: job.format, rows: job.rows, filters: job.filters, job: job.id },
    });
    ctx.status = 200;
    ctx.type = EXPORT_CONTENT_TYPES[job.format];
    ctx.length = fs.statSync(path).size;
    ctx.set('content-disposition', `attachment; filename="${exportFileName(job.kind, job.format, job.id)}"`);
    ctx.set('cache-control', 'no-store');
    ctx.set('x-export-rows', String(job.rows));
    ctx.body = fs.createReadStream(path);
  });

  return router;
}
