import Router from '@koa/router';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { OnlineEvalStore } from '../../core/store/postgres/online-eval-store.js';
import type { HealthDeps } from './health.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';
import { registerOnlineEvalMetrics } from './online-metrics.js';

/** What GET /metrics reads: the API's deps, or those a process without the API builds (runtime/health-server.ts). */
export interface MetricsDeps extends Pick<HealthDeps, 'sinkStats' | 'consumerLag'> {
  metadata: { onlineEvals: Pick<OnlineEvalStore, 'metrics'> };
}

/**
 * GET /metrics in the Prometheus text format: the write path's buffer and, with Kafka, the
 * ingester group's consumer lag, plus the process's default metrics. Kafka is given
 * DEPENDENCY_TIMEOUT_MS: a hung broker shows as lag -1 (unknown), and the scrape still succeeds.
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

  registerOnlineEvalMetrics(registry, deps.metadata.onlineEvals);

  const router = new Router();
  router.get('/metrics', async (ctx) => {
    const lag = deps.consumerLag ? await withDeadline(deps.consumerLag, DEPENDENCY_TIMEOUT_MS) : undefined;
    consumerLag = lag?.ok ? lag.value : -1;
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}
