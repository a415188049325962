import path from 'node:path';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { createApp } from '../../api/app.js';
import { createBatcher } from '../../collector/batcher.js';
import { createCollector, createOtlpHttpRouter, exportGate } from '../../collector/index.js';
import { createAuditLog } from '../../core/audit/audit-log.js';
import { createAuthenticator } from '../../core/auth/authenticator.js';
import { createOidcClient } from '../../core/auth/oidc.js';
import { createProjectStates } from '../../core/auth/project-states.js';
import { createSessions } from '../../core/auth/sessions.js';
import { loadConfig, type Config } from '../../core/config.js';
import { loadPriceTable } from '../../core/cost/price-table.js';
import { createDataDeletion } from '../../core/deletion/data-deletion.js';
import { createExportJobs } from '../../core/exports/export-jobs.js';
import { createEgress } from '../../core/egress/fetch.js';
import { createEgressPolicy } from '../../core/egress/policy.js';
import { createRateLimiter } from '../../core/limits/rate-limiter.js';
import { createLogger, type Logger } from '../../core/logger.js';
import { createDataDirCheck } from '../../core/os/data-dir-check.js';
import { createProjectDeletion } from '../../core/projects/project-deletion.js';
import { createProviders } from '../../core/providers/index.js';
import { defaultScorerRegistry } from '../../core/scoring/index.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { httpClickHouse } from '../../core/store/clickhouse/client.js';
import type { MetadataStore } from '../../core/store/metadata.js';
import { createMetadataStore, createPool } from '../../core/store/postgres/metadata-store.js';
import { configuredOwnEndpoints } from '../../runtime/egress.js';
import { requiredServices } from '../../runtime/health-server.js';
import { listen, type RunningServer } from '../../runtime/http-server.js';
import { openUi } from '../../runtime/ui.js';
import type { OwnEndpoint } from '../../core/egress/policy.js';
import type { WritePath } from '../../runtime/write-path.js';
import { createRunEngine, type RunEngine } from '../../workflows/client.js';
import { TEST_SERVICE_ENV, UNLIMITED } from './processes.js';
import { checkAnswersAgainstOpenApi } from './openapi-responses.js';

/** The stores and the write path an API in a test runs on. */
export interface ApiStores {
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  writePath: Pick<WritePath, 'sink' | 'stats'>;
  /** Where the stores listen: the egress policy refuses them, as the service's does. */
  endpoints?: OwnEndpoint[];
}

/**
 * The service's API as runtime/service.ts wires it for the api role (the same createApp
 * dependencies, from the same config), on stores a test opened, in this process. What it leaves
 * out: the workflow engine unless one is passed (run routes then answer 503 and health does not
 * count it), the worker's evaluators (alerts, online rules), the OTLP receivers' own ports (the
 * API's port serves OTLP/HTTP as the service's does), failed-authentication throttling (refused
 * here: test/integration/auth-throttling.test.ts runs the whole service) and the hourly pruning.
 */
export function appOnStores(
  config: Config,
  stores: ApiStores,
  opts: { defaultProjectId: string; logger: Logger; engine?: RunEngine; ui?: Awaited<ReturnType<typeof openUi>> },
) {
  const { logger } = opts;
  const { perAddress, perPrefix } = config.authThrottle;
  if (config.auth.mode === 'required' && (perAddress > 0 || perPrefix > 0))
    throw new Error('failed-authentication throttling is not wired in process: start the whole service (startTestService)');
  const { analytics, metadata } = stores;
  const egressPolicy = createEgressPolicy({ allow: config.egress.allow, own: configuredOwnEndpoints(config) });
  egressPolicy.addOwn(...(stores.endpoints ?? []));
  const egress = createEgress(egressPolicy);
  const prices = loadPriceTable(config.prices.file);
  const audit = createAuditLog(metadata.audit, logger);
  const auth = createAuthenticator({
    mode: config.auth.mode,
    keys: metadata.keys,
    jwtSecret: config.auth.jwtSecret,
    cacheTtlMs: config.auth.cacheTtlMs,
    ingestGraceMs: config.auth.ingestGraceMs,
    trustProxyHops: config.trustProxyHops,
  });
  const limiter = createRateLimiter(metadata.rateLimits, config.rateLimits, logger);
  const projectStates = createProjectStates(metadata.projectAdmin, config.auth.cacheTtlMs, logger);
  const collector = createCollector({ sink: stores.writePath.sink!, maxSpanBytes: config.maxSpanBytes, prices, retentionDays: config.retentionDays });
  const judges = { providers: createProviders(config.llm), maxAnswerAttempts: config.llm.maxAnswerAttempts, maxOutputTokens: config.llm.maxOutputTokens };
  const projectDeletion = createProjectDeletion({ projects: metadata.projectAdmin, purgeAnalytics: (id) => analytics.erasure.purgeProject(id), audit, logger });
  const dataDeletion = createDataDeletion({
    store: metadata.dataDeletions,
    tracesOf: (project, subject, value) => analytics.erasure.tracesOf(project, subject, value),
    eraseTraces: (project, ids) => analytics.erasure.eraseTraces(project, ids),
    audit,
    logger,
  });
  const exportJobs = createExportJobs({ dir: path.join(config.dataDir, 'exports'), exports: analytics.exports, logger });
  const app = createApp({
    config,
    logger,
    analytics,
    metadata,
    auth,
    audit,
    projectStates,
    projectDeletion,
    dataDeletion,
    sessions: config.auth.mode === 'required' ? createSessions({ store: metadata.sessions, ...config.sessions }) : undefined,
    oidc: config.auth.mode === 'required' && config.oidc ? createOidcClient(config.oidc) : undefined,
    limiter,
    collector,
    scorers: defaultScorerRegistry({ judges }),
    judges,
    egress,
    engine: opts.engine,
    dataDir: config.clickhouseUrl && config.databaseUrl ? undefined : createDataDirCheck(config.dataDir),
    required: requiredServices(config.roles, false),
    prices,
    sinkStats: () => stores.writePath.stats(),
    otlpRouter: createOtlpHttpRouter({
      collector,
      maxBodyBytes: config.otlpMaxMessageBytes,
      gate: exportGate(auth, limiter, opts.defaultProjectId, projectStates),
      logger,
    }),
    ui: opts.ui,
    exportJobs,
  });
  // Every answer checked against the OpenAPI document (docs/api.md, "OpenAPI").
  checkAnswersAgainstOpenApi(app);
  return {
    app,
    /** Resumes deletions cut short, as the service does when it starts. */
    resume() {
      void projectDeletion.resume();
      void dataDeletion.resume();
    },
    async close() {
      await exportJobs.close();
      await projectDeletion.close();
      await dataDeletion.close();
      await egress.close();
      await limiter.close();
      await auth.close();
    },
  };
}

/**
 * The real API, listening on loopback, wired to a ClickHouse HTTP URL and a PostgreSQL URL that
 * may be unreachable or hanging: for tests of how the service answers when a store is not there.
 * Without credentials (AUTH_MODE=none: these tests look at store outages, not at keys), with
 * nothing cached (keys, projects' statuses) and spans flushed as they come.
 */
export async function startApiOnStores(opts: {
  clickhouseUrl: string;
  postgresUrl: string;
  clickhouseTimeoutMs: number;
  temporalAddress?: string;
}): Promise<RunningServer & { base: string }> {
  const logger = createLogger('silent');
  const config = loadConfig({
    ...TEST_SERVICE_ENV,
    ...UNLIMITED,
    AUTH_MODE: 'none',
    AUTH_CACHE_TTL_MS: '0',
    BATCH_MAX_SPANS: '100',
    BATCH_MAX_WAIT_MS: '0',
    BATCH_MAX_PENDING_BYTES: String(1 << 20),
    CLICKHOUSE_URL: opts.clickhouseUrl,
    DATABASE_URL: opts.postgresUrl,
  });
  const clickhouse = createClient({ url: opts.clickhouseUrl, request_timeout: opts.clickhouseTimeoutMs, log: { level: ClickHouseLogLevel.OFF } });
  const analytics = createAnalyticsStore(httpClickHouse(clickhouse));
  const metadata = createMetadataStore(createPool(opts.postgresUrl));
  const sink = createBatcher({ writer: analytics, logger, ...config.batch });
  const engine = opts.temporalAddress
    ? createRunEngine({
        address: opts.temporalAddress,
        namespace: 'default',
        taskQueue: 'test',
        defaultConcurrency: 1,
        policy: { pauseMaxMs: 1000, approvalMaxMs: 1000, retryTimeScale: 1, historyMaxEvents: 8000 },
      })
    : undefined;
  // No deletion is resumed: the stores may not be there.
  const api = appOnStores(config, { analytics, metadata, writePath: { sink, stats: () => sink.stats() } }, { defaultProjectId: 'default', logger, engine });
  const server = await listen(api.app, 0, '127.0.0.1');
  return {
    ...server,
    base: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.close();
      await api.close();
      await engine?.close();
    },
  };
}
