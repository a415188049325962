import type { Context, Next } from 'koa';
import { AppError, ConflictError, ValidationError, classifyStoreError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { contentHash } from '../../core/ids/derived-ids.js';
import type { IdempotencyStore, IdempotentRequest } from '../../core/store/idempotency.js';

/** The creating POSTs that honour `Idempotency-Key` (docs/api.md, "Retries: Idempotency-Key"). */
export const IDEMPOTENT_ROUTES: ReadonlySet<string> = new Set(['POST /api/runs', 'POST /api/evals/runs', 'POST /api/scores', 'POST /api/feedback']);
/** Creating POSTs under a resource's path that honour it too: cases added to a suite (a retry must not add them twice). */
export const IDEMPOTENT_ROUTE_PATTERNS: readonly RegExp[] = [/^POST \/api\/suites\/[^/]+\/cases\/(?:from-traces|import)$/];

/** Whether `METHOD /path` (no trailing slash) takes an `Idempotency-Key`. */
export const takesIdempotencyKey = (route: string): boolean => IDEMPOTENT_ROUTES.has(route) || IDEMPOTENT_ROUTE_PATTERNS.some((re) => re.test(route));

/** How long a key is remembered after its first request. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/**
 * How long a request may hold its key without answering before its process is taken to be gone
 * and a retry may run it again; until then a retry is 409.
 */
export const IDEMPOTENCY_LEASE_MS = 2 * 60_000;
/** How often a process deletes expired keys (on a request's way, never waited for). */
const SWEEP_EVERY_MS = 60 * 60_000;

/** 422: the key was first used with another request (another body, or another caller). */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request');
  }
}

/** The optional `Idempotency-Key` header: 1-256 visible ASCII characters (422 naming it otherwise). */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const key = ctx.get('idempotency-key');
  if (key === '') return undefined;
  if (key.length > 256 || !/^[\x21-\x7e]+$/.test(key))
    throw new ValidationError([{ field: 'Idempotency-Key', message: 'must be 1-256 visible ASCII characters' }]);
  return key;
}

/** What the request asks, as far as a retry must match it: the caller and the body. */
function requestHash(ctx: Context): string {
  const principal = ctx.state.principal as { kind?: string; id?: string } | undefined;
  return contentHash({ caller: `${principal?.kind ?? ''}:${principal?.id ?? ''}`, body: ctx.request.body ?? null });
}

const metadataFailure = (err: unknown) => classifyStoreError('metadata', 'store idempotency key', err);

/**
 * `Idempotency-Key` on the creating POSTs (IDEMPOTENT_ROUTES), the one path for all of them,
 * placed after authentication and the body reader. A request with a key claims it in PostgreSQL
 * (per project and route, so every process sees it) and runs; a 2xx answer is stored and sent
 * again, status and body, to every retry with the same key and request (with
 * `Idempotent-Replayed: true`) for IDEMPOTENCY_KEY_TTL_MS; any other answer gives the key up, so
 * a retry runs again (nothing was created). The same key with another body or caller is 422
 * `IDEMPOTENCY_KEY_REUSED`; a retry while the first request runs is 409 `IDEMPOTENCY_KEY_IN_USE`
 * with `Retry-After: 1`. Without the header nothing changes.
 */
export function idempotency(store: IdempotencyStore, logger: Logger) {
  let lastSweep = 0;

  function sweep(): void {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    store.deleteExpired().catch((err: unknown) => logger.warn({ err }, 'expired idempotency keys not deleted'));
  }

  return async (ctx: Context, next: Next) => {
    const route = `${ctx.method} ${ctx.path.replace(/\/+$/, '')}`;
    if (!takesIdempotencyKey(route)) {
      await next();
      return;
    }
    const key = idempotencyKeyOf(ctx);
    if (key === undefined) {
      await next();
      return;
    }
    const request: IdempotentRequest = { projectId: ctx.state.projectId, route, key, requestHash: requestHash(ctx) };
    sweep();
    const claim = await store.claim(request, { leaseMs: IDEMPOTENCY_LEASE_MS, ttlMs: IDEMPOTENCY_KEY_TTL_MS }).catch((err: unknown) => {
      throw metadataFailure(err);
    });
    if (claim.kind === 'reused') throw new IdempotencyKeyReusedError();
    if (claim.kind === 'in_progress') {
      ctx.set('Retry-After', '1');
      throw new ConflictError('A request with this Idempotency-Key is still being processed; retry later', 'IDEMPOTENCY_KEY_IN_USE');
    }
    if (claim.kind === 'replay') {
      ctx.status = claim.answer.status;
      ctx.type = 'application/json';
      ctx.body = claim.answer.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    const release = () =>
      store
        .release(request, claim.owner)
        .catch((err: unknown) => logger.warn({ err, route, key }, 'idempotency key not released; a retry waits for its lease'));
    try {
      await next();
    } catch (err) {
      await release();
      throw err;
    }
    if (ctx.status < 200 || ctx.status >= 300) {
      await release();
      return;
    }
    const body = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body ?? null);
    // The work is done: an answer that cannot be stored is still sent (a retry after the lease would run again).
    await store
      .complete(request, claim.owner, { status: ctx.status, body })
      .catch((err: unknown) => logger.error({ err, route, key }, 'idempotent answer not stored'));
  };
}
