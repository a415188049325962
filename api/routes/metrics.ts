import Router from '@koa/router';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiDeps } from '../deps.js';

/**
 * GET /metrics in the Prometheus text format: the write path's buffer and, with Kafka, the
 * ingester group's consumer lag, plus the process's default metrics.
 */
export function metricsRouter(deps: ApiDeps): Router {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_eval_' });
  let last: Awaited<ReturnType<NonNullable<ApiDeps['sinkStats']>>>;
  const refresh = async () => {
    last = await deps.sinkStats?.().catch(() => undefined);
  };
  new Gauge({
    name: 'agent_eval_ingest_pending_spans',
    help: 'Spans accepted but not yet durable in the write path',
    registers: [registry],
    collect() {
      this.set(last?.pendingSpans ?? 0);
    },
  });
  new Gauge({
    name: 'agent_eval_ingest_pending_bytes',
    help: 'Estimated bytes buffered or in flight in the write path',
    registers: [registry],
    collect() {
      this.set(last?.pendingBytes ?? 0);
    },
  });
  new Gauge({
    name: 'agent_eval_kafka_consumer_lag',
    help: 'Messages on the spans topic not yet committed by the ingester group (-1 without Kafka)',
    registers: [registry],
    collect() {
      this.set(last?.consumerLag ?? -1);
    },
  });

  const router = new Router();
  router.get('/metrics', async (ctx) => {
    await refresh();
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}
