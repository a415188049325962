import Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../../core/errors.js';
import type { Collector } from '../collector.js';
import { toWireError } from '../../core/wire-error.js';
import { OtlpDecodeError } from './errors.js';
import type { ExportGate } from './project.js';
import { RateLimitedError, rateLimitHeaders } from '../../core/limits/rate-limiter.js';
import { readBody } from './read-body.js';
import { encodeExportResponse, encodeStatus, partialSuccessOf, type OtlpEncoding } from './response.js';

/** What the OTLP/HTTP receiver needs (STYLE 3: dependencies come in). */
export interface OtlpHttpDeps {
  collector: Pick<Collector, 'admit' | 'ingestOtlp'>;
  /** Limit on the request body, on the wire and again after gunzip. */
  maxBodyBytes: number;
  /** Who may export into which project (authentication, permission, rate limit). */
  gate: ExportGate;
  logger: Logger;
}

/** The default OTLP/HTTP path for traces (OTLP spec, "OTLP/HTTP Request"). */
export const OTLP_HTTP_TRACES_PATH = '/v1/traces';

const CONTENT_TYPES: Record<string, OtlpEncoding> = {
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
  'application/json': 'json',
};
const MIME: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

function contentCoding(ctx: Context): 'gzip' | 'identity' | undefined {
  const coding = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
  if (coding === 'identity') return 'identity';
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  return undefined;
}

function declaredLength(ctx: Context): number | undefined {
  const raw = ctx.get('Content-Length');
  return raw && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function reply(ctx: Context, status: number, encoding: OtlpEncoding, body: Buffer): void {
  ctx.status = status;
  ctx.type = MIME[encoding];
  ctx.body = body;
}

/**
 * `POST /v1/traces`, the OTLP/HTTP trace receiver for binary protobuf and OTLP/JSON. It reads
 * the body itself (no body parser), answers every outcome in the OTLP shape and never lets an
 * error escape, so it can be mounted on the API port and on the dedicated OTLP port alike.
 *
 * - 200 ExportTraceServiceResponse, with partial_success when ingest rejected some spans
 * - 400 google.rpc.Status: undecodable payload or broken gzip (not retryable), no project
 * - 413 body over `maxBodyBytes`; 415 unsupported Content-Type or Content-Encoding
 * - 429/503 + Retry-After on backpressure, 503 + Retry-After when a store is down; 500 otherwise
 */
export function createOtlpHttpRouter(deps: OtlpHttpDeps): Router {
  const router = new Router();
  router.post(OTLP_HTTP_TRACES_PATH, async (ctx) => {
    const encoding = CONTENT_TYPES[(ctx.request.type || '').toLowerCase()];
    // Errors before the encoding is known are answered in JSON.
    const errorEncoding: OtlpEncoding = encoding ?? 'json';
    try {
      if (!encoding) {
        throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/x-protobuf or application/json');
      }
      const coding = contentCoding(ctx);
      if (!coding) throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding must be gzip or identity');
      const { projectId, headers } = await deps.gate(ctx.headers, ctx.query, ctx.req.socket.remoteAddress);
      ctx.set(headers);
      deps.collector.admit();
      const body = await readBody(ctx.req, { limitBytes: deps.maxBodyBytes, gzip: coding === 'gzip', declaredLength: declaredLength(ctx) });
      const outcome = await deps.collector.ingestOtlp(projectId, body, encoding);
      const partial = outcome && partialSuccessOf(outcome);
      if (partial) deps.logger.debug({ projectId, rejected: partial.rejectedSpans }, 'OTLP/HTTP export partially accepted');
      reply(ctx, 200, encoding, encodeExportResponse(partial, encoding));
    } catch (err) {
      const failure = toWireError(err);
      if (err instanceof RateLimitedError) ctx.set(rateLimitHeaders(err.verdict));
      logFailure(deps.logger, err, failure.httpStatus);
      reply(ctx, failure.httpStatus, errorEncoding, encodeStatus(failure.grpcCode, failure.message, errorEncoding));
      if (failure.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(Math.ceil(failure.retryAfterSeconds)));
      // An oversized body is drained rather than read; closing spares the rest of the upload.
      if (failure.httpStatus === 413) ctx.set('Connection', 'close');
    }
  });
  return router;
}

function logFailure(logger: Logger, err: unknown, status: number): void {
  if (status >= 500 && status !== 503) logger.error({ err }, 'OTLP/HTTP export failed');
  else if (status === 503 || status === 429) logger.warn({ status, reason: (err as Error).message }, 'OTLP/HTTP export refused, client should retry');
  else if (err instanceof OtlpDecodeError) logger.debug({ status, reason: err.message }, 'OTLP/HTTP export undecodable');
  else logger.debug({ status, reason: (err as Error).message }, 'OTLP/HTTP export rejected');
}
