import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../../core/config.js';
import type { AuthContext, Authenticator } from '../../core/auth/authenticator.js';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import type { OnlineEvalStore } from '../../core/store/online-evals.js';
import type { HealthDeps } from './health.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';
import { onlineEvalRegistry } from './online-metrics.js';
import { droppedLogWrites } from '../../core/log-destination.js';

/** What GET /metrics reads: the API's deps, or those a process without the API builds (runtime/health-server.ts). */
export interface MetricsDeps extends Pick<HealthDeps, 'sinkStats' | 'consumerLag'> {
  /** METRICS_TOKEN: the scrape token, which sees every project's series. */
  config: Pick<Config, 'metricsToken'>;
  auth: Pick<Authenticator, 'mode' | 'authenticate'>;
  metadata: { onlineEvals: Pick<OnlineEvalStore, 'metrics'> };
}

/** The projects whose per-project series a scrape may read: `all`, or the listed ones. */
export type MetricsScope = 'all' | ReadonlySet<string>;

function sameSecret(presented: string, expected: string): boolean {
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * Who may scrape, and what they see (docs/security.md, "Metrics"): the scrape token
 * (`Authorization: Bearer <METRICS_TOKEN>`) sees every project's series; a credential with
 * `projects:admin` (a project's admin key or an admin token) sees the series of the projects it
 * reaches; with `AUTH_MODE=none` anyone sees all, as anyone may do anything. Anything else: 401
 * without valid credentials, 403 without the permission.
 */
export async function metricsScope(ctx: Context, deps: Pick<MetricsDeps, 'config' | 'auth'>): Promise<MetricsScope> {
  if (deps.auth.mode === 'none') return 'all';
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  const token = deps.config.metricsToken;
  if (bearer && token !== undefined && sameSecret(bearer[1], token)) return 'all';
  // Anything else is a key or a token to check, a wrong scrape token included: its failure is
  // throttled like any other (docs/security.md, "Failed authentication").
  let caller: AuthContext;
  try {
    caller = await deps.auth.authenticate(ctx.headers, ctx.query, undefined, ctx.req.socket.remoteAddress);
  } catch (err) {
    // Not the scrape token and not shaped like a JWT (header.payload.signature): a wrong token, said plainly.
    if (err instanceof UnauthorizedError && bearer && token !== undefined && bearer[1].split('.').length !== 3) throw new UnauthorizedError();
    throw err;
  }
  if (!caller.permissions.has('projects:admin')) throw new ForbiddenError('missing permission projects:admin');
  return caller.reach === null ? 'all' : new Set(caller.reach);
}

/**
 * GET /metrics in the Prometheus text format: the write path's buffer and, with Kafka, the
 * ingester group's consumer lag, plus the process's default metrics, then the online rules'
 * series the caller may see (metricsScope). Kafka is given DEPENDENCY_TIMEOUT_MS: a hung broker
 * shows as lag -1 (unknown), and the scrape still succeeds. Never rate limited.
 */
export function metricsRouter(deps: MetricsDeps): Router {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_eval_' });
  let consumerLag = -1;
  new Gauge({
    name: 'agent_eval_ingest_pending_spans',
    help: 'Spans accepted but not yet durable in the write path',
    registers: [registry],
    collect() {
      this.set(deps.sinkStats?.()?.pendingSpans ?? 0);
    },
  });
  new Gauge({
    name: 'agent_eval_ingest_pending_bytes',
    help: 'Estimated bytes buffered or in flight in the write path',
    registers: [registry],
    collect() {
      this.set(deps.sinkStats?.()?.pendingBytes ?? 0);
    },
  });
  new Gauge({
    name: 'agent_eval_kafka_consumer_lag',
    help: 'Messages on the spans topic not yet committed by the ingester group (-1: no Kafka, or Kafka did not answer in time)',
    registers: [registry],
    collect() {
      this.set(consumerLag);
    },
  });

  new Counter({
    name: 'agent_eval_log_writes_dropped_total',
    help: 'Log lines dropped because their write failed (a full disk: ENOSPC, a closed stdout: EPIPE), by error code',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [code, count] of droppedLogWrites()) this.inc({ code }, count);
    },
  });

  const router = new Router();
  router.get('/metrics', async (ctx) => {
    const scope = await metricsScope(ctx, deps);
    const [lag, online] = await Promise.all([
      deps.consumerLag ? withDeadline(deps.consumerLag, DEPENDENCY_TIMEOUT_MS) : undefined,
      onlineEvalRegistry(deps.metadata.onlineEvals, (project) => scope === 'all' || scope.has(project)),
    ]);
    consumerLag = lag?.ok ? lag.value : -1;
    ctx.type = registry.contentType;
    ctx.body = await Registry.merge([registry, online]).metrics();
  });
  return router;
}
