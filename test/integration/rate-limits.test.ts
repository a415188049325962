import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { createRateLimiter, type RateLimiter } from '../../core/limits/rate-limiter.js';
import { encodeRequest, grpcExport, postTraces } from '../fixtures/otlp/harness.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { sleep } from '../helpers/processes.js';
import { startTestService, type TestService } from '../helpers/server.js';

/** SPEC Limits: per project and endpoint group, fixed one-minute windows shared through PostgreSQL. */

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ RATE_LIMIT_QUERY_PER_MINUTE: '5', RATE_LIMIT_INGEST_PER_MINUTE: '3', RATE_LIMIT_EVAL_RUNS_PER_MINUTE: '2' });
});

afterAll(async () => {
  await svc?.stop();
});

/** Windows are fixed minutes: start a check with enough of the window left to finish in it. */
async function freshWindow(needMs = 8000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 50);
}

const limitHeaders = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

function recentRequest(): Buffer {
  const start = BigInt(Date.now() - 1000) * 1_000_000n;
  return encodeRequest({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              { traceId: Buffer.alloc(16, 7), spanId: Buffer.alloc(8, 1), name: 'x', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000n) },
            ],
          },
        ],
      },
    ],
  });
}

/**
 * Two processes' rate limiters (limits of 10 per minute) over the service's PostgreSQL, each with
 * its own connection pool, as two collectors would have; closed after `body`.
 */
async function withTwoProcesses(body: (first: RateLimiter, second: RateLimiter) => Promise<void>): Promise<void> {
  const a = openServiceMetadata(svc.dataDir);
  const b = openServiceMetadata(svc.dataDir);
  const logger = createLogger('silent');
  const limits = { ingest: 10, query: 10, evalRuns: 10 };
  const first = createRateLimiter(a.rateLimits, limits, logger);
  const second = createRateLimiter(b.rateLimits, limits, logger);
  try {
    await body(first, second);
  } finally {
    await first.close();
    await second.close();
    await a.close();
    await b.close();
  }
}

describe('rate limits', () => {
  it('counts queries per project: X-RateLimit-* on every answer, 429 with Retry-After past the limit, other projects untouched', async () => {
    await freshWindow();
    const seen = [];
    for (let i = 0; i < 5; i++) {
      const res = await svc.api('/api/traces', { project: 'rl-query' });
      expect(res.status).toBe(200);
      seen.push(limitHeaders(res));
    }
    expect(seen.map((h) => h.remaining)).toEqual(['4', '3', '2', '1', '0']);
    for (const h of seen) {
      expect(h.limit).toBe('5');
      expect(Number(h.reset)).toBeGreaterThanOrEqual(1);
      expect(Number(h.reset)).toBeLessThanOrEqual(60);
    }
    const over = await svc.api('/api/agents', { project: 'rl-query' });
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ error: 'Rate limit exceeded', status: 429 });
    expect(Number(over.headers.get('retry-after'))).toBe(Number(over.headers.get('x-ratelimit-reset')));
    expect(limitHeaders(over)).toMatchObject({ limit: '5', remaining: '0' });
    // Another project, health and the eval-run group have their own budgets.
    expect((await svc.api('/api/traces', { project: 'rl-other' })).status).toBe(200);
    expect((await svc.api('/api/health', { key: null, project: null })).status).toBe(200);
    const run = await svc.api('/api/runs', { method: 'POST', project: 'rl-query', json: {} });
    expect(run.status).toBe(400);
    expect(limitHeaders(run).limit).toBe('2');
  });

  it('counts an OTLP export as one request whatever its size, over HTTP and gRPC', async () => {
    await freshWindow();
    const key = await svc.keyFor('rl-otlp');
    for (let i = 0; i < 3; i++) {
      const res = await postTraces(svc.otlpHttpUrl!, recentRequest(), { project: null, headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const over = await postTraces(svc.otlpHttpUrl!, recentRequest(), { project: null, headers: { 'x-api-key': key } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await grpcExport(svc.otlpGrpcAddress!, recentRequest(), { 'x-api-key': key })).error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // JSON ingest shares the group.
    expect((await svc.api('/api/traces/ingest', { method: 'POST', project: 'rl-otlp', json: {} })).status).toBe(429);
  });

  it("takes a project's own limits (PUT /api/projects/{id}/rate-limits), and null restores the default", async () => {
    await freshWindow();
    await svc.keyFor('rl-own');
    const set = await svc.api('/api/projects/rl-own/rate-limits', { method: 'PUT', project: 'rl-own', json: { query: 50 } });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ query: 50, ingest: 3, eval_runs: 2 });
    expect(limitHeaders(await svc.api('/api/traces', { project: 'rl-own' })).limit).toBe('50');
    expect((await svc.api('/api/projects/rl-own/rate-limits', { method: 'PUT', project: 'rl-own', json: { query: 0 } })).status).toBe(422);
    expect((await svc.api('/api/projects/rl-own/rate-limits', { method: 'PUT', project: 'rl-own', json: { query: null } })).status).toBe(200);
    expect(limitHeaders(await svc.api('/api/traces', { project: 'rl-own' })).limit).toBe('5');
  });

  it('holds across processes: counts are shared through PostgreSQL within about a second', async () => {
    await freshWindow(15_000);
    await withTwoProcesses(async (first, second) => {
      for (let i = 0; i < 6; i++) await first.take('rl-shared', 'query');
      await second.take('rl-shared', 'query');
      // Both sync (once a second): the second now knows the first's six.
      await sleep(2500);
      let allowed = 0;
      for (let i = 0; i < 10; i++) {
        try {
          await second.take('rl-shared', 'query');
          allowed++;
        } catch (err) {
          expect(err).toMatchObject({ status: 429 });
        }
      }
      expect(allowed).toBe(3);
    });
  });

  it('counts its own requests while a sync of them is under way (the store slow to answer)', async () => {
    await freshWindow(15_000);
    const a = openServiceMetadata(svc.dataDir);
    const blocker = openServiceMetadata(svc.dataDir);
    const limiter = createRateLimiter(a.rateLimits, { ingest: 10, query: 5, evalRuns: 10 }, createLogger('silent'));
    const lock = await blocker.pool.connect();
    try {
      const remaining = [];
      for (let i = 0; i < 3; i++) remaining.push((await limiter.take('rl-slow-sync', 'query')).remaining);
      // The next sync's INSERT waits on this lock: the three are in flight, not yet known.
      await lock.query('BEGIN; LOCK TABLE rate_limit_windows IN EXCLUSIVE MODE');
      await sleep(1500);
      remaining.push((await limiter.take('rl-slow-sync', 'query')).remaining);
      remaining.push((await limiter.take('rl-slow-sync', 'query')).remaining);
      await expect(limiter.take('rl-slow-sync', 'query')).rejects.toMatchObject({ status: 429 });
      expect(remaining).toEqual([4, 3, 2, 1, 0]);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
      await limiter.close();
      await a.close();
      await blocker.close();
    }
  });

  it('a process joining mid-window starts from the total the others counted, not from zero', async () => {
    await freshWindow(15_000);
    await withTwoProcesses(async (first, joining) => {
      for (let i = 0; i < 7; i++) await first.take('rl-join', 'query');
      await sleep(2500); // the first process has synced its seven
      // The joining process has never seen this project: its first requests, at once, get only the rest.
      const verdicts = await Promise.allSettled(Array.from({ length: 6 }, () => joining.take('rl-join', 'query')));
      expect(verdicts.filter((v) => v.status === 'fulfilled')).toHaveLength(3);
      for (const v of verdicts) if (v.status === 'rejected') expect(v.reason).toMatchObject({ status: 429 });
    });
  });
});
