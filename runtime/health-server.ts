import Koa from 'koa';
import type { Config, Role } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { NotFoundError } from '../core/errors.js';
import type { Authenticator } from '../core/auth/authenticator.js';
import { errorMiddleware, healthRouter, metricsRouter, securityHeaders, type HealthDeps, type MetricsDeps, type ServiceName } from '../api/health-routes.js';
import type { RunEngine } from '../workflows/client.js';
import { listen, type RunningServer } from './http-server.js';
import type { Stores } from './stores.js';
import type { WritePath } from './write-path.js';

const ORDER: readonly ServiceName[] = ['analytical_store', 'metadata_store', 'streaming_buffer', 'workflow_engine'];

/**
 * The services a process's `/api/health` status counts (docs/deployment.md, "Health per role"):
 * what each of its roles cannot work without, together.
 * - api: both stores (SPEC);
 * - collector: PostgreSQL (API keys, rate limits) and where its spans go: Kafka with
 *   KAFKA_BROKERS, else ClickHouse (the in-process batcher);
 * - ingester: Kafka (it consumes) and ClickHouse (it inserts);
 * - worker: both stores (runs, cases, scores, alerts, online rules).
 * The workflow engine (api, worker) and the data dir (embedded stores or engine) are added by
 * the health route where the process has them (HealthDeps.engineStatus, dataDir): an outage of
 * either is `degraded` (200), so no probe restarts a worker that reconnects on its own and exits
 * after MAX_RECONNECT_ATTEMPTS.
 */
export function requiredServices(roles: readonly Role[], kafka: boolean): ServiceName[] {
  const needs = new Set<ServiceName>();
  for (const role of roles) {
    if (role === 'api' || role === 'worker') {
      needs.add('analytical_store');
      needs.add('metadata_store');
    } else if (role === 'collector') {
      needs.add('metadata_store');
      needs.add(kafka ? 'streaming_buffer' : 'analytical_store');
    } else if (role === 'ingester') {
      needs.add('analytical_store');
      if (kafka) needs.add('streaming_buffer');
    }
  }
  return ORDER.filter((name) => needs.has(name));
}

export interface RoleHealthOptions {
  config: Pick<Config, 'roles' | 'kafka' | 'version' | 'healthPort' | 'host' | 'metricsToken'>;
  stores: Pick<Stores, 'analytics' | 'metadata'>;
  /** `mode` for health; /metrics checks credentials with it (docs/security.md, "Metrics"). */
  auth: Pick<Authenticator, 'mode' | 'authenticate'>;
  writePath: Pick<WritePath, 'stats' | 'consumerLag' | 'kafkaReachable'>;
  /** The workflow engine's client, where this process has one (worker). */
  engine?: Pick<RunEngine, 'ping'>;
  /** Its state while prepared in the background (runtime/engine-start.ts); the engine then counts. */
  engineStatus?: HealthDeps['engineStatus'];
  /** The data dir's write probe, where this process keeps data on local disk; it then counts. */
  dataDir?: HealthDeps['dataDir'];
  logger: Logger;
}

/** What this process's health and metrics read, from what it opened. */
export function processHealthDeps(opts: Omit<RoleHealthOptions, 'logger'>): HealthDeps & MetricsDeps {
  const { config, stores, writePath } = opts;
  return {
    config,
    auth: opts.auth,
    analytics: stores.analytics,
    metadata: stores.metadata,
    engine: opts.engine,
    engineStatus: opts.engineStatus,
    dataDir: opts.dataDir,
    sinkStats: () => writePath.stats(),
    consumerLag: writePath.consumerLag,
    kafkaReachable: writePath.kafkaReachable,
    required: requiredServices(config.roles, config.kafka !== undefined),
  };
}

/**
 * The health listener of a process without the api role, on HEALTH_PORT: the API's own
 * `GET /api/health` (unauthenticated) and `GET /metrics` (with credentials) routers, as on the
 * API's port, with the API's security headers, and nothing else. A process with the api role
 * serves both on its API port and gets none: the result is then undefined.
 */
export async function startRoleHealth(opts: RoleHealthOptions): Promise<(RunningServer & { url: string }) | undefined> {
  if (opts.config.roles.includes('api')) return undefined;
  const deps = processHealthDeps(opts);
  const app = new Koa();
  // Koa would log every thrown error to stderr; the error middleware logs what matters.
  app.silent = true;
  app.use(securityHeaders());
  app.use(errorMiddleware(opts.logger));
  for (const router of [healthRouter(deps), metricsRouter(deps)]) app.use(router.routes()).use(router.allowedMethods());
  app.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}`, 'ROUTE_NOT_FOUND');
  });
  const server = await listen(app, opts.config.healthPort, opts.config.host);
  opts.logger.info({ port: server.port }, 'health and metrics listening');
  return { ...server, url: `http://127.0.0.1:${server.port}` };
}
