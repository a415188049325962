import Router from '@koa/router';
import type { Config } from '../../core/config.js';
import type { Authenticator } from '../../core/auth/authenticator.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import type { SinkStats } from '../../collector/index.js';
import type { RunEngine } from '../../workflows/client.js';
import { DEPENDENCY_TIMEOUT_MS, withDeadline } from '../deadline.js';

export type ServiceStatus = 'ok' | 'unavailable' | 'not_configured';
export type ServiceName = 'analytical_store' | 'metadata_store' | 'workflow_engine' | 'streaming_buffer';
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
}

/** A dependency that fails, says no, or does not answer within DEPENDENCY_TIMEOUT_MS is down. */
async function check(ping: () => Promise<boolean>): Promise<ServiceStatus> {
  const result = await withDeadline(ping, DEPENDENCY_TIMEOUT_MS);
  return result.ok && result.value ? 'ok' : 'unavailable';
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
 * GET /api/health: 200 `healthy` when the required services answer, 200 `degraded` when some of
 * them do not, 503 `unhealthy` when none does (healthStatus). The API requires its two stores; a
 * process without the API requires what its roles need (docs/deployment.md). The others are
 * reported, not required. Every dependency is asked at once and given DEPENDENCY_TIMEOUT_MS, so a
 * hung one makes the answer `unavailable` for it, never a slow health check.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = new Router();
  router.get('/api/health', async (ctx) => {
    const { engine, consumerLag, kafkaReachable } = deps;
    const [analytics, metadata, workflow, lag, kafka] = await Promise.all([
      check(() => deps.analytics.ping()),
      check(() => deps.metadata.ping()),
      engine ? check(() => engine.ping()) : Promise.resolve<ServiceStatus>('not_configured'),
      consumerLag ? withDeadline(consumerLag, DEPENDENCY_TIMEOUT_MS) : undefined,
      // The consumer lag already is a round trip to Kafka: no second one where it is asked.
      !consumerLag && kafkaReachable ? check(kafkaReachable) : undefined,
    ]);
    const services: Partial<Record<ServiceName, ServiceStatus>> = {
      analytical_store: analytics,
      metadata_store: metadata,
      workflow_engine: workflow,
    };
    // Kafka is reported where this process reads it (the ingester's consumer lag) or writes it (the sink).
    if (lag) services.streaming_buffer = lag.ok ? 'ok' : 'unavailable';
    else if (kafka) services.streaming_buffer = kafka;
    const stats = deps.sinkStats?.();
    const ingest = stats && { ...stats, ...(lag?.ok ? { consumerLag: lag.value } : {}) };
    const status = healthStatus(services, deps.required ?? API_REQUIRED);
    ctx.status = status === 'unhealthy' ? 503 : 200;
    // auth: whether calls need credentials (a client such as the dashboard asks here, unauthenticated).
    ctx.body = { status, version: deps.config.version, services, auth: deps.auth.mode, ...(ingest ? { ingest } : {}) };
  });
  return router;
}
