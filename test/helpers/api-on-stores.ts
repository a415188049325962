import { createDataDeletion } from '../../core/deletion/data-deletion.js';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { createApp } from '../../api/app.js';
import { createBatcher } from '../../collector/batcher.js';
import { createCollector } from '../../collector/index.js';
import { createLogger } from '../../core/logger.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { httpClickHouse } from '../../core/store/clickhouse/client.js';
import { createMetadataStore, createPool } from '../../core/store/postgres/metadata-store.js';
import { listen, type RunningServer } from '../../runtime/http-server.js';
import { defaultScorerRegistry } from '../../core/scoring/index.js';
import { createRunEngine } from '../../workflows/client.js';
import { createAuthenticator } from '../../core/auth/authenticator.js';
import { createRateLimiter } from '../../core/limits/rate-limiter.js';
import { createEgressPolicy } from '../../core/egress/policy.js';
import { createEgress } from '../../core/egress/fetch.js';
import { createAuditLog } from '../../core/audit/audit-log.js';
import { createProjectStates } from '../../core/auth/project-states.js';

/**
 * The real API, listening on loopback, wired to a ClickHouse HTTP URL and a PostgreSQL URL that
 * may be unreachable or hanging: for tests of how the service answers when a store is not there.
 */
export async function startApiOnStores(opts: {
  clickhouseUrl: string;
  postgresUrl: string;
  clickhouseTimeoutMs: number;
  temporalAddress?: string;
}): Promise<RunningServer & { base: string }> {
  const logger = createLogger('silent');
  const clickhouse = createClient({ url: opts.clickhouseUrl, request_timeout: opts.clickhouseTimeoutMs, log: { level: ClickHouseLogLevel.OFF } });
  const analytics = createAnalyticsStore(httpClickHouse(clickhouse));
  const metadata = createMetadataStore(createPool(opts.postgresUrl));
  const sink = createBatcher({ writer: analytics, maxSpans: 100, maxWaitMs: 0, maxPendingBytes: 1 << 20, logger });
  const collector = createCollector({ sink, maxSpanBytes: 1_000_000 });
  const engine = opts.temporalAddress
    ? createRunEngine({
        address: opts.temporalAddress,
        namespace: 'default',
        taskQueue: 'test',
        defaultConcurrency: 1,
        policy: { pauseMaxMs: 1000, approvalMaxMs: 1000, retryTimeScale: 1, historyMaxEvents: 8000 },
      })
    : undefined;
  // Without credentials (AUTH_MODE=none): these tests look at store outages, not at keys.
  const auth = createAuthenticator({ mode: 'none', keys: metadata.keys, cacheTtlMs: 0 });
  const limiter = createRateLimiter(metadata.rateLimits, { ingest: 1e9, query: 1e9, evalRuns: 1e9 }, logger);
  // Nothing here calls out: the default policy of a server not bound to loopback.
  const egress = createEgress(createEgressPolicy({ allow: [] }));
  const audit = createAuditLog(metadata.audit, logger);
  const projectStates = createProjectStates(metadata.projectAdmin, 0, logger);
  // No project is deleted here: the deletion is never started.
  const projectDeletion = { start: () => undefined };
  const dataDeletion = createDataDeletion({
    store: metadata.dataDeletions,
    tracesOf: (project, subject, value) => analytics.erasure.tracesOf(project, subject, value),
    eraseTraces: (project, ids) => analytics.erasure.eraseTraces(project, ids),
    audit,
    logger,
    resumeEveryMs: 0,
  });
  const app = createApp({
    config: { maxBodyBytes: 1 << 20, version: 'test' },
    logger,
    analytics,
    metadata,
    auth,
    limiter,
    collector,
    scorers: defaultScorerRegistry(),
    egress,
    engine,
    audit,
    projectStates,
    projectDeletion,
    dataDeletion,
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    ...server,
    base: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.close();
      await dataDeletion.close();
      await egress.close();
      await engine?.close();
      await limiter.close();
      await auth.close();
    },
  };
}
