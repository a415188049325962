import fs from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { createApp } from '../api/app.js';
import { createCollector, createOtlpHttpRouter, exportGate, startOtlpGrpcServer } from '../collector/index.js';
import { createAuthenticator } from '../core/auth/authenticator.js';
import { createSessions } from '../core/auth/sessions.js';
import { createOidcClient } from '../core/auth/oidc.js';
import { createRateLimiter } from '../core/limits/rate-limiter.js';
import { createAuthThrottle, type AuthThrottle } from '../core/auth/auth-throttle.js';
import { createProjectStates } from '../core/auth/project-states.js';
import { createAuditLog, type AuditLog } from '../core/audit/audit-log.js';
import { createProjectDeletion } from '../core/projects/project-deletion.js';
import { createDataDeletion } from '../core/deletion/data-deletion.js';
import { pruneMetadata } from '../core/retention/metadata-retention.js';
import type { Project } from '../core/store/metadata.js';
import type { AuthFailureStore } from '../core/store/auth-failures.js';
import type { KeyStore } from '../core/store/keys.js';
import { listen } from './http-server.js';
import { requiredServices, startRoleHealth } from './health-server.js';
import { openUi } from './ui.js';
import type { ClickHouseClient } from '../core/store/clickhouse/client.js';
import { openStores, runCleanups } from './stores.js';
import { createBackupSource } from '../core/backup/create-backup.js';
import { openWritePath, type WritePath } from './write-path.js';
import { startEngineInBackground } from './engine-start.js';
import type { RunEngine } from '../workflows/client.js';
import type { EngineStatus } from '../workflows/engine/engine-status.js';
import type { DevServer } from '../workflows/engine/dev-server.js';
import { createDataDirCheck } from '../core/os/data-dir-check.js';
import { createExportJobs } from '../core/exports/export-jobs.js';
import { defaultScorerRegistry } from '../core/scoring/index.js';
import { createProviders } from '../core/providers/index.js';
import { startAlertEvaluator } from '../core/alerts/evaluator.js';
import { startOnlineEvaluator } from '../core/online/evaluator.js';
import { projectRegistry } from '../core/scoring/http-scorer.js';
import { loadPriceTable } from '../core/cost/price-table.js';
import { judgeCallPricer } from '../core/cost/judge-pricing.js';
import { recordedUserTurns } from '../core/conversations/replay.js';
import { createEgressPolicy } from '../core/egress/policy.js';
import { createEgress } from '../core/egress/fetch.js';
import { configuredOwnEndpoints, endpointOfUrl } from './egress.js';

export interface RunningService {
  apiUrl?: string;
  otlpHttpUrl?: string;
  otlpGrpcAddress?: string;
  /** `/api/health` and `/metrics` on HEALTH_PORT, where this process has no api role (the API's port serves them otherwise). */
  healthUrl?: string;
  defaultProjectId: string;
  writePath: WritePath;
  /** The analytical store's client (see Stores.clickhouse). */
  clickhouse: ClickHouseClient;
  /** The workflow engine's address (embedded dev server or TEMPORAL_ADDRESS), where this process uses one. */
  temporalAddress?: string;
  /** This process's chDB over ClickHouse's HTTP interface (CLICKHOUSE_GATEWAY_PORT), without credentials. */
  clickhouseGatewayUrl?: string;
  /** Settles when the workflow engine is ready or cannot be prepared (where this process has one). */
  engineSettled?: Promise<void>;
  /** The embedded Temporal dev server, once started. */
  devServer?(): DevServer | undefined;
  /** The embedded PostgreSQL's postmaster pid (none with DATABASE_URL). */
  postgresPid?: () => number | undefined;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The evaluation worker could not reach the workflow engine through every reconnect attempt (SPEC: exit 1). */
  onFatal?(err: Error): void;
  /**
   * Return only once the workflow engine is ready or known unavailable (default). `agent-eval
   * serve` does not wait: the API answers at once and the engine comes up in the background.
   */
  waitForEngine?: boolean;
  /** Build a missing or stale dashboard in the background (`serve --build-ui`, as `npm start` runs it). */
  buildUi?: boolean;
}

/**
 * `$AGENT_EVAL_DATA_DIR/credentials.json` (mode 0600): what a local user needs to send traces.
 * The first start on empty stores creates an admin key for the default project and writes it
 * there; the key is never logged. Later starts keep the file as it is.
 */
export async function bootstrapCredentials(dataDir: string, project: Project, keys: KeyStore, logger: Logger): Promise<void> {
  const file = path.join(dataDir, 'credentials.json');
  fs.mkdirSync(dataDir, { recursive: true });
  if (await keys.anyKey()) {
    if (!fs.existsSync(file)) fs.writeFileSync(file, `${JSON.stringify({ project_id: project.id }, null, 2)}\n`, { mode: 0o600 });
    return;
  }
  // A server admin (docs/security.md, "Server admins and project governance"): it creates the other projects.
  const key = await keys.createKey(project.id, { name: 'bootstrap admin key', role: 'admin', env: 'live', createdBy: 'bootstrap', serverAdmin: true });
  fs.writeFileSync(file, `${JSON.stringify({ project_id: project.id, api_key: key.key }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  logger.info({ file, project_id: project.id, key_prefix: key.prefix }, 'created the first admin API key; it is in this file (keep it secret)');
}

/** How often an API process drops audit entries past AUDIT_RETENTION_DAYS. */
const AUDIT_PRUNE_EVERY_MS = 3600_000;

/**
 * Failed authentication, throttled per client address and key prefix across processes
 * (docs/security.md, "Failed authentication"); a subject crossing its limit is an audit entry.
 * None with AUTH_MODE=none (there are no credentials to fail), or with both limits 0.
 */
function authThrottle(config: Config, store: AuthFailureStore, audit: AuditLog, logger: Logger): AuthThrottle | undefined {
  const { perAddress, perPrefix } = config.authThrottle;
  if (config.auth.mode !== 'required' || (perAddress <= 0 && perPrefix <= 0)) return undefined;
  return createAuthThrottle({
    store,
    limits: config.authThrottle,
    logger,
    onThrottled: (kind, subject, failures) =>
      void audit.record({
        actor: { kind: 'anonymous', id: 'unauthenticated' },
        action: 'auth.throttled',
        target: subject,
        details: { kind, failures, per_minute: kind === 'address' ? perAddress : perPrefix },
        client: kind === 'address' ? { address: subject } : undefined,
      }),
  });
}

/**
 * Starts the roles of `config.roles` in this process, wired to real stores (STYLE 3: the only
 * place that does). `stop()` drains in reverse order of start: listeners stop accepting, the
 * write path flushes (and the ingester commits), then the stores close.
 */
export async function startService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  // Read before anything starts: a broken AGENT_EVAL_PRICES_FILE stops the service with its problems listed.
  const prices = loadPriceTable(config.prices.file);
  // Every URL a user supplies is called through this (docs/security.md, "Egress"); the service's
  // own endpoints join as they start, before anything could call them.
  const egressPolicy = createEgressPolicy({ allow: config.egress.allow, own: configuredOwnEndpoints(config) });
  const stores = await openStores(config, logger, { gateway: true });
  egressPolicy.addOwn(...stores.endpoints);
  const egress = createEgress(egressPolicy);
  const cleanups: Array<() => Promise<void>> = [() => stores.close(), () => egress.close()];
  try {
    const project = await stores.metadata.ensureDefaultProject();
    await bootstrapCredentials(config.dataDir, project, stores.metadata.keys, logger);
    const audit = createAuditLog(stores.metadata.audit, logger);
    const throttle = authThrottle(config, stores.metadata.authFailures, audit, logger);
    if (throttle) cleanups.push(() => throttle.close());
    const auth = createAuthenticator({
      mode: config.auth.mode,
      keys: stores.metadata.keys,
      jwtSecret: config.auth.jwtSecret,
      cacheTtlMs: config.auth.cacheTtlMs,
      ingestGraceMs: config.auth.ingestGraceMs,
      throttle,
      trustProxyHops: config.trustProxyHops,
    });
    cleanups.push(() => auth.close());
    const limiter = createRateLimiter(stores.metadata.rateLimits, config.rateLimits, logger);
    cleanups.push(() => limiter.close());
    // One cache of projects' statuses for the API and the receivers: an archive here is seen by both at once.
    const projectStates = createProjectStates(stores.metadata.projectAdmin, config.auth.cacheTtlMs, logger);
    const gate = exportGate(auth, limiter, project.id, projectStates);

    const writePath = await openWritePath(config, stores.analytics, logger);
    cleanups.push(() => writePath.close());
    const result: RunningService = {
      defaultProjectId: project.id,
      writePath,
      clickhouse: stores.clickhouse,
      clickhouseGatewayUrl: stores.clickhouseGatewayUrl,
      stop: () => runCleanups(cleanups, logger),
    };
    // Without the api role: health and metrics on HEALTH_PORT, once the roles are started.
    // The stores and the engine on local disk cannot write to a full or read-only data dir: health says so.
    const onDisk =
      !config.clickhouseUrl || !config.databaseUrl || (!config.temporal.address && (config.roles.includes('api') || config.roles.includes('worker')));
    const dataDir = onDisk ? createDataDirCheck(config.dataDir) : undefined;
    result.postgresPid = stores.postgresPid;
    const serveHealth = async (engine?: RunEngine, engineStatus?: () => EngineStatus) => {
      const health = await startRoleHealth({ config, stores, auth, writePath, engine, engineStatus, dataDir, logger });
      if (!health) return;
      cleanups.push(() => health.close());
      result.healthUrl = health.url;
      egressPolicy.addOwn(...endpointOfUrl(health.url).map((e) => ({ ...e, host: config.host })));
    };
    const sink = writePath.sink;
    if (!sink) {
      await serveHealth();
      return result;
    }

    const collector = createCollector({ sink, maxSpanBytes: config.maxSpanBytes, prices, retentionDays: config.retentionDays });
    // LLM judges call the providers configured from their own environment variables (docs/judges.md).
    const judges = { providers: createProviders(config.llm), maxAnswerAttempts: config.llm.maxAnswerAttempts, maxOutputTokens: config.llm.maxOutputTokens };
    const scorers = defaultScorerRegistry({ judges });
    let engine: RunEngine | undefined;
    let engineStatus: (() => EngineStatus) | undefined;
    if (config.roles.includes('api') || config.roles.includes('worker')) {
      // Prepared in the background (docs/deployment.md, "First start"): the API and the collector
      // answer meanwhile, run routes 503 with what is under way.
      const background = startEngineInBackground({
        config,
        logger,
        onEndpoint: (endpoint) => {
          egressPolicy.addOwn(...endpoint.ports.map((port) => ({ host: '127.0.0.1', port })));
          result.temporalAddress = endpoint.address;
        },
        onReady: async (endpoint) => {
          if (!config.roles.includes('worker')) return undefined;
          // The Temporal worker SDK (a native module) loads in the background too.
          const [{ startWorker }, { createActivities }] = await Promise.all([import('../workflows/worker.js'), import('../workflows/activities.js')]);
          return startWorker({
            address: endpoint.address,
            namespace: endpoint.namespace,
            taskQueue: config.temporal.taskQueue,
            activities: createActivities({
              priceJudgeCall: judgeCallPricer(prices),
              runs: stores.metadata.runs,
              agents: stores.metadata.agents,
              collector,
              analytics: stores.analytics,
              scorers,
              logger,
              judgeCalls: stores.metadata.judges,
              customScorers: { store: stores.metadata.scorers, timeoutMs: config.customScorers.timeoutMs },
              fetch: egress.fetch,
              // The simulated user plays through the judges' providers, budget and records (docs/evals.md, "Simulated users").
              simulator: {
                judges,
                judgeCalls: stores.metadata.judges,
                priceJudgeCall: judgeCallPricer(prices),
                recordedTurns: recordedUserTurns({ runs: stores.metadata.runs, judgeCalls: stores.metadata.judges }),
              },
            }),
            cacheDir: config.cacheDir,
            reconnect: config.reconnect,
            logger,
            onFatal: (err) => options.onFatal?.(err),
          });
        },
      });
      cleanups.push(() => background.stop());
      engine = background.gate.engine;
      engineStatus = () => background.gate.status();
      result.engineSettled = background.settled;
      result.devServer = () => background.devServer();
      if (options.waitForEngine ?? true) await background.settled;
    }
    if (config.roles.includes('worker')) {
      // Alert rules need no workflow engine: only the stores.
      const alerts = startAlertEvaluator({ store: stores.metadata.alerts, metrics: stores.analytics.alerts, logger, ...config.alerts, fetch: egress.fetch });
      cleanups.push(() => alerts.stop());
      // Online evaluation rules need the stores and the write path (judges' traces), not the engine.
      const online = startOnlineEvaluator({
        store: stores.metadata.onlineEvals,
        traces: stores.analytics.online,
        writeScores: (projectId, scores) => stores.analytics.writeScores(projectId, scores),
        writeTrace: async (projectId, body) => void (await collector.ingestTrace(projectId, body)),
        registryFor: (projectId) =>
          projectRegistry(scorers, stores.metadata.scorers, projectId, { timeoutMs: config.customScorers.timeoutMs, fetch: egress.fetch }),
        recordJudgeCall: (call) => stores.metadata.judges.record(call),
        priceJudgeCall: judgeCallPricer(prices),
        logger,
        retentionDays: config.retentionDays,
        ...config.onlineEvals,
      });
      cleanups.push(() => online.stop());
    }
    const otlpRouter = () => createOtlpHttpRouter({ collector, maxBodyBytes: config.otlpMaxMessageBytes, gate, logger });

    // The OTLP receivers' ports the dashboard names: the bound ones where this process runs them.
    const otlpPorts = { grpc: config.otlpGrpcPort, http: config.otlpHttpPort };
    if (config.roles.includes('collector')) {
      const grpc = await startOtlpGrpcServer({
        collector,
        port: config.otlpGrpcPort,
        host: config.host,
        maxMessageBytes: config.otlpMaxMessageBytes,
        gate,
        logger,
      });
      cleanups.push(() => grpc.close());
      result.otlpGrpcAddress = `127.0.0.1:${grpc.port}`;
      egressPolicy.addOwn({ host: config.host, port: grpc.port });
      const otlpApp = new Koa();
      otlpApp.silent = true;
      const router = otlpRouter();
      otlpApp.use(router.routes()).use(router.allowedMethods());
      const http = await listen(otlpApp, config.otlpHttpPort, config.host);
      cleanups.push(() => http.close());
      result.otlpHttpUrl = `http://127.0.0.1:${http.port}`;
      Object.assign(otlpPorts, { grpc: grpc.port, http: http.port });
      egressPolicy.addOwn({ host: config.host, port: http.port });
      logger.info({ grpc: grpc.port, http: http.port }, 'OTLP receivers listening');
    }

    if (config.roles.includes('api')) {
      // Deleted projects' data leaves both stores here; a deletion cut short (a crash, an outage) resumes.
      const projectDeletion = createProjectDeletion({
        projects: stores.metadata.projectAdmin,
        purgeAnalytics: (id) => stores.analytics.erasure.purgeProject(id),
        audit,
        logger,
      });
      cleanups.push(() => projectDeletion.close());
      void projectDeletion.resume();
      // Deletions of traces and of end users' or sessions' data (docs/api.md, "Deleting data"); one cut short resumes.
      const dataDeletion = createDataDeletion({
        store: stores.metadata.dataDeletions,
        tracesOf: (project, subject, value) => stores.analytics.erasure.tracesOf(project, subject, value),
        eraseTraces: (project, ids) => stores.analytics.erasure.eraseTraces(project, ids),
        audit,
        logger,
      });
      cleanups.push(() => dataDeletion.close());
      void dataDeletion.resume();
      const pruneAudit = () => {
        void audit.prune(config.auditRetentionDays).catch((err: unknown) => logger.warn({ err }, 'audit entries past their retention not pruned'));
        void pruneMetadata(stores.metadata.retention, config.metadataRetention).then(
          (removed) => Object.keys(removed).length > 0 && logger.info({ removed }, 'PostgreSQL data past its retention removed'),
          (err: unknown) => logger.warn({ err }, 'PostgreSQL data past its retention not removed'),
        );
      };
      pruneAudit();
      const pruneTimer = setInterval(pruneAudit, AUDIT_PRUNE_EVERY_MS);
      pruneTimer.unref();
      cleanups.push(() => Promise.resolve(clearInterval(pruneTimer)));
      // Export jobs run here and keep their files in the data dir (docs/api.md, "Bulk export").
      const exportJobs = createExportJobs({ dir: path.join(config.dataDir, 'exports'), exports: stores.analytics.exports, logger });
      cleanups.push(() => exportJobs.close());
      const app = createApp({
        config,
        logger,
        analytics: stores.analytics,
        metadata: stores.metadata,
        auth,
        audit,
        projectStates,
        projectDeletion,
        dataDeletion,
        // The dashboard's sign-in (docs/security.md, "Signing in"): nothing to sign in to with AUTH_MODE=none.
        sessions: config.auth.mode === 'required' ? createSessions({ store: stores.metadata.sessions, ...config.sessions }) : undefined,
        oidc: config.auth.mode === 'required' && config.oidc ? createOidcClient(config.oidc) : undefined,
        limiter,
        collector,
        scorers,
        judges,
        otlpPorts,
        egress,
        engine,
        engineStatus,
        dataDir,
        // Health counts what every role of this process needs (Kafka too, where the collector writes to it).
        required: requiredServices(config.roles, config.kafka !== undefined),
        prices,
        sinkStats: () => writePath.stats(),
        consumerLag: writePath.consumerLag,
        kafkaReachable: writePath.kafkaReachable,
        otlpRouter: otlpRouter(),
        // Backups need the write gate of the chDB this process owns (docs/operations.md, "Backup and restore").
        backup:
          stores.clickhouseWriteGate &&
          createBackupSource({ clickhouse: stores.clickhouse, gate: stores.clickhouseWriteGate, pool: stores.metadata.pool, dataDir: config.dataDir, logger }),
        ui: await openUi(logger, { build: options.buildUi ?? false }),
        exportJobs,
      });
      const server = await listen(app, config.port, config.host);
      cleanups.push(() => server.close());
      result.apiUrl = `http://127.0.0.1:${server.port}`;
      egressPolicy.addOwn({ host: config.host, port: server.port });
      logger.info({ port: server.port }, 'API listening');
    }
    await serveHealth(engine, engineStatus);
    return result;
  } catch (err) {
    await runCleanups(cleanups, logger);
    throw err;
  }
}
