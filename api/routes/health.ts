import Router from '@koa/router';
import type { Config } from '../../core/config.js';
import type { Authenticator } from '../../core/auth/authenticator.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import type { MetadataStore } from '../../core/store/metadata.js';
import type { SinkStats } from '../../collector/index.js';
import type { RunEngine } from '../../workflows/client.js';
import type { EngineStatus } from '../../workflows/engine/engine-status.js';
import type { DataDirCheck } from '../../core/os/data-dir-check.js';
import { errorMessage } from '../../core/errors.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';

/** `starting`: the workflow engine is being prepared in the background (counts as not ok). */
export type ServiceStatus = 'ok' | 'unavailable' | 'starting' | 'not_configured';
export type ServiceName = 'analytical_store' | 'metadata_store' | 'workflow_engine' | 'streaming_buffer' | 'data_dir';
export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

/** The stores the API cannot answer without (SPEC, Health). */
export const API_REQUIRED: readonly ServiceName[] = ['analytical_store', 'metadata_store'];

/** What GET /api/health reads: the API's deps, or those a process without the API builds (runtime/health-server.ts). */
export interface HealthDeps {
  config: Pick<Config, 'version'>;
  /** Reported as `auth` (whether calls need credentials), as the dashboard asks here unauthenticated. */
  auth: Pick<Authenticator, 'mode'>;
  analytics: Pick<AnalyticsStore, 'ping'>;
  metadata: Pick<MetadataStore, 'ping'>;
  /** The workflow engine's round trip, where this process has an engine. */
  engine?: Pick<RunEngine, 'ping'>;
  /** Write-path buffer state for /api/health and /metrics: local, answers at once. */
  sinkStats?: () => SinkStats | undefined;
  /**
   * The Kafka consumer group's lag, where this process runs the ingester: a round trip to Kafka,
   * so health and metrics bound it and report Kafka down when it does not answer in time.
   */
  consumerLag?: () => Promise<number>;
  /** Where this process produces to Kafka: whether the sink's brokers answer (read when there is no consumerLag). */
  kafkaReachable?: () => Promise<boolean>;
  /** The services `status` counts (runtime/health-server.ts, requiredServices); default the API's stores. */
  required?: readonly ServiceName[];
  /**
   * Where this process prepares or uses a workflow engine (runtime/service.ts): its state, and
   * the engine then counts (a process that runs evaluations is not healthy without it).
   */
  engineStatus?: () => EngineStatus;
  /** Where this process keeps data on local disk (embedded stores or engine): a write probe and free space; it then counts. */
  dataDir?: DataDirCheck;
}

/** A dependency that fails, says no, or does not answer within DEPENDENCY_TIMEOUT_MS is down, with why (shown in `reasons`). */
async function probe(ping: () => Promise<boolean>): Promise<{ status: ServiceStatus; reason?: string }> {
  const result = await withDeadline(ping, DEPENDENCY_TIMEOUT_MS);
  if (result.ok && result.value) return { status: 'ok' };
  const reason =
    !result.ok && result.reason === 'timeout'
      ? `no answer within ${DEPENDENCY_TIMEOUT_MS} ms`
      : !result.ok && result.error !== undefined
        ? errorMessage(result.error).split('\n')[0].slice(0, 300)
        : 'not reachable';
  return { status: 'unavailable', reason };
}

/**
 * `healthy` when every required service is `ok`, `unhealthy` when none is, else `degraded`. A
 * required service the process does not report counts as down.
 */
export function healthStatus(services: Partial<Record<ServiceName, ServiceStatus>>, required: readonly ServiceName[]): HealthStatus {
  const up = required.filter((name) => services[name] === 'ok').length;
  return up === required.length ? 'healthy' : up === 0 ? 'unhealthy' : 'degraded';
}

/**
 * GET /api/health: 200 `healthy` when the required services answer (the API's stores, plus the
 * workflow engine and the data dir where the process has them), 200 `degraded` when some of
 * them do not, 503 `unhealthy` when none does (healthStatus). The API requires its two stores; a
 * process without the API requires what its roles need (docs/deployment.md). The others are
 * reported, not required. Every dependency is asked at once and given DEPENDENCY_TIMEOUT_MS, so a
 * hung one makes the answer `unavailable` for it, never a slow health check.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = new Router();
  router.get('/api/health', async (ctx) => {
    const { engine, consumerLag, kafkaReachable, engineStatus, dataDir } = deps;
    const reasons: Partial<Record<ServiceName, string>> = {};
    const engineState = engineStatus?.();
    const store = async (name: ServiceName, ping: () => Promise<boolean>): Promise<ServiceStatus> => {
      const result = await probe(ping);
      if (result.reason) reasons[name] = result.reason;
      return result.status;
    };
    const workflowCheck = async (): Promise<ServiceStatus> => {
      if (engineState && engineState.state !== 'ready') {
        reasons.workflow_engine =
          engineState.state === 'starting'
            ? `starting: ${engineState.detail ?? ''}`
            : `${engineState.detail ?? 'not available'}; to fix: ${engineState.fix ?? 'see agent-eval doctor'}`;
        return engineState.state === 'starting' ? 'starting' : 'unavailable';
      }
      if (!engine) return 'not_configured';
      return store('workflow_engine', () => engine.ping());
    };
    const diskCheck = async (): Promise<ServiceStatus | undefined> => {
      if (!dataDir) return undefined;
      const result = await withDeadline(() => dataDir.check(), DEPENDENCY_TIMEOUT_MS);
      if (result.ok && result.value.ok) return 'ok';
      reasons.data_dir = result.ok ? (result.value.reason ?? 'not writable') : `no write within ${DEPENDENCY_TIMEOUT_MS} ms`;
      return 'unavailable';
    };
    const [analytics, metadata, workflow, lag, kafka, disk] = await Promise.all([
      store('analytical_store', () => deps.analytics.ping()),
      store('metadata_store', () => deps.metadata.ping()),
      workflowCheck(),
      consumerLag ? withDeadline(consumerLag, DEPENDENCY_TIMEOUT_MS) : undefined,
      // The consumer lag already is a round trip to Kafka: no second one where it is asked.
      !consumerLag && kafkaReachable ? store('streaming_buffer', kafkaReachable) : undefined,
      diskCheck(),
    ]);
    const services: Partial<Record<ServiceName, ServiceStatus>> = {
      analytical_store: analytics,
      metadata_store: metadata,
      workflow_engine: workflow,
    };
    // Kafka is reported where this process reads it (the ingester's consumer lag) or writes it (the sink).
    if (lag) services.streaming_buffer = lag.ok ? 'ok' : 'unavailable';
    else if (kafka) services.streaming_buffer = kafka;
    if (disk) services.data_dir = disk;
    if (lag && !lag.ok) reasons.streaming_buffer = lag.reason === 'timeout' ? `no answer within ${DEPENDENCY_TIMEOUT_MS} ms` : errorMessage(lag.error);
    const stats = deps.sinkStats?.();
    const ingest = stats && { ...stats, ...(lag?.ok ? { consumerLag: lag.value } : {}) };
    const required = [...(deps.required ?? API_REQUIRED), ...(engineStatus ? (['workflow_engine'] as const) : []), ...(dataDir ? (['data_dir'] as const) : [])];
    const status = healthStatus(services, required);
    ctx.status = status === 'unhealthy' ? 503 : 200;
    // auth: whether calls need credentials (a client such as the dashboard asks here, unauthenticated).
    // reasons: why each service that is not ok is not (the engine starting, a full disk...).
    const why = Object.keys(reasons).length > 0 ? { reasons } : {};
    ctx.body = { status, version: deps.config.version, services, ...why, auth: deps.auth.mode, ...(ingest ? { ingest } : {}) };
  });
  return router;
}
