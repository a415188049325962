import Router from '@koa/router';
import type { ApiDeps } from '../deps.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';

type ServiceStatus = 'ok' | 'unavailable' | 'not_configured';

/** A dependency that fails, says no, or does not answer within DEPENDENCY_TIMEOUT_MS is down. */
async function check(ping: () => Promise<boolean>): Promise<ServiceStatus> {
  const result = await withDeadline(ping, DEPENDENCY_TIMEOUT_MS);
  return result.ok && result.value ? 'ok' : 'unavailable';
}

/**
 * GET /api/health: 200 `healthy` when the required stores answer, 200 `degraded` when one of
 * them does not, 503 `unhealthy` when none does. The workflow engine and Kafka are reported, not
 * required. Every dependency is asked at once and given DEPENDENCY_TIMEOUT_MS, so a hung one
 * makes the answer `unavailable` for it, never a slow health check.
 */
export function healthRouter(deps: ApiDeps): Router {
  const router = new Router();
  router.get('/api/health', async (ctx) => {
    const engine = deps.engine;
    const consumerLag = deps.consumerLag;
    const [analytics, metadata, workflow, lag] = await Promise.all([
      check(() => deps.analytics.ping()),
      check(() => deps.metadata.ping()),
      engine ? check(() => engine.ping()) : Promise.resolve<ServiceStatus>('not_configured'),
      consumerLag ? withDeadline(consumerLag, DEPENDENCY_TIMEOUT_MS) : undefined,
    ]);
    const services: Record<string, ServiceStatus> = {
      analytical_store: analytics,
      metadata_store: metadata,
      workflow_engine: workflow,
    };
    // Kafka is reported where this process reads it (the ingester's consumer lag).
    if (lag) services.streaming_buffer = lag.ok ? 'ok' : 'unavailable';
    const stats = deps.sinkStats?.();
    const ingest = stats && { ...stats, ...(lag?.ok ? { consumerLag: lag.value } : {}) };
    const required = [analytics, metadata];
    const up = required.filter((s) => s === 'ok').length;
    const status = up === required.length ? 'healthy' : up === 0 ? 'unhealthy' : 'degraded';
    ctx.status = status === 'unhealthy' ? 503 : 200;
    // auth: whether calls need credentials (a client such as the dashboard asks here, unauthenticated).
    ctx.body = { status, version: deps.config.version, services, auth: deps.auth.mode, ...(ingest ? { ingest } : {}) };
  });
  return router;
}
