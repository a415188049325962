import { createLogger } from '../../core/logger.js';
import { createOnlineEvaluator } from '../../core/online/evaluator.js';
import { defaultScorerRegistry } from '../../core/scoring/index.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { httpClickHouse } from '../../core/store/clickhouse/client.js';
import { createOnlineTraceReads } from '../../core/store/clickhouse/online-trace-reads.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import type { TestService } from './server.js';

/**
 * `count` more online evaluators beside the service's own, on its ClickHouse and on `metadata`
 * (its Postgres), racing for the same rules' work; each scans `scanBatch` items a tick, writes no
 * judge traces, and ticks only when the test calls `tick()`.
 */
export function extraOnlineEvaluators(svc: Pick<TestService, 'clickhouse'>, metadata: MetadataStore, count: number, scanBatch: number) {
  const analytics = createAnalyticsStore(httpClickHouse(svc.clickhouse));
  const logger = createLogger('silent');
  return Array.from({ length: count }, () =>
    createOnlineEvaluator({
      store: metadata.onlineEvals,
      traces: createOnlineTraceReads(svc.clickhouse),
      writeScores: (projectId, scores) => analytics.writeScores(projectId, scores),
      writeTrace: () => Promise.resolve(),
      registryFor: () => Promise.resolve(defaultScorerRegistry()),
      logger,
      tickMs: 50,
      scanBatch,
      concurrency: 3,
      leaseMs: 30_000,
      retentionDays: 90,
    }),
  );
}
