import os from 'node:os';
import path from 'node:path';
import { defaultAllowList } from './egress/policy.js';
import { ConfigError } from './errors.js';
import { oidcConfig, type OidcConfig } from './auth/oidc-settings.js';
import { llmSettings, type LlmSettings } from './providers/settings.js';
import { EnvSchema, KAFKA_MESSAGE_HEADROOM, type ConfigEnv, type Role } from './config-env.js';

export { DEFAULT_MAX_SPAN_BYTES, KAFKA_DEFAULTS, type ConfigEnv, type Role } from './config-env.js';

/**
 * The one typed view of the environment (STYLE 7): parsed once at start, every problem listed,
 * frozen and passed down. `process.env` is read here and nowhere else.
 */

export interface Config {
  port: number;
  host: string;
  otlpGrpcPort: number;
  otlpHttpPort: number;
  /**
   * `/api/health` and `/metrics` of a process without the api role (a process with it serves them
   * on `port` and does not listen here).
   */
  healthPort: number;
  dataDir: string;
  clickhouseUrl?: string;
  /** A ClickHouse cluster (`remote_servers`): migrations create replicated, sharded tables ON CLUSTER (docs/deployment.md). */
  clickhouseCluster?: string;
  /** Embedded chDB served to other processes over ClickHouse's HTTP interface (docs/deployment.md, the gateway). */
  clickhouseGateway?: { port: number; host: string; password: string };
  databaseUrl?: string;
  /** The workflow engine: an external cluster at `address`, else an embedded dev server. */
  temporal: { address?: string; namespace: string; taskQueue: string; cliPath?: string; downloadUrl: string; sha256?: string };
  /** Where scripts/ keep built tools (the Temporal CLI, Kafka jars) and the worker its workflow bundle. */
  cacheDir: string;
  /** Worker reconnects to the workflow engine (SPEC: exponential backoff, then exit 1). */
  reconnect: { maxAttempts: number; delayMs: number };
  /** Evaluation run bounds (SPEC Limits); shorter values serve tests. */
  evals: { maxConcurrency: number; pauseMaxMs: number; approvalMaxMs: number; retryTimeScale: number; historyMaxEvents: number };
  kafka?: { brokers: string[]; topic: string; deadLetterTopic: string; groupId: string; partitions: number; maxMessageBytes: number };
  retentionDays: number;
  logLevel: string;
  maxBodyBytes: number;
  otlpMaxMessageBytes: number;
  /** Largest span row accepted, in every write path (a larger span is refused alone). */
  maxSpanBytes: number;
  batch: { maxSpans: number; maxWaitMs: number; maxPendingBytes: number; maxConcurrentFlushes: number };
  roles: Role[];
  /** The alert evaluator of the worker role (docs/alerts.md). */
  alerts: { tickMs: number; webhook: { timeoutMs: number; maxAttempts: number; backoffMs: number } };
  /** The online evaluator of the worker role (docs/online-evals.md). */
  onlineEvals: { tickMs: number; scanBatch: number; concurrency: number; leaseMs: number };
  /** Who may call (docs/security.md). */
  auth: { mode: 'required' | 'none'; jwtSecret?: string; cacheTtlMs: number; ingestGraceMs: number };
  /** A bearer token for Prometheus: `GET /metrics` with every series (docs/security.md, "Metrics"). */
  metricsToken?: string;
  /** Failed authentications per minute before 429, per client address and per key prefix; 0: no limit (docs/security.md, "Failed authentication"). */
  authThrottle: { perAddress: number; perPrefix: number };
  /** How many proxies of the operator's own add to X-Forwarded-For (0: the connection's peer is the client). */
  trustProxyHops: number;
  /** Days the audit log keeps an entry; 0: forever (docs/security.md, "Audit log"). */
  auditRetentionDays: number;
  /** Days PostgreSQL keeps data about traces, and finished runs; 0: forever (core/retention/metadata-retention.ts). */
  metadataRetention: { days: number; runDays: number };
  /** Sign-in with OpenID Connect (OIDC_*), when configured (docs/security.md, "Signing in"). */
  oidc?: OidcConfig;
  /** The dashboard's sessions: idle and absolute lifetimes. */
  sessions: { idleMs: number; maxMs: number };
  /** Requests per minute per project and endpoint group (SPEC Limits), unless a project has its own. */
  rateLimits: RateLimits;
  /** LLM providers and judge settings (docs/judges.md); a provider is absent when its credentials are not set. */
  llm: LlmSettings;
  /** HTTP custom scorers (docs/scorers.md). */
  customScorers: { timeoutMs: number };
  /**
   * The egress policy of calls to URLs users supply (docs/security.md, "Egress"): `allow` holds
   * EGRESS_ALLOW's CIDRs and host names, or, unset, loopback when HOST is loopback and nothing
   * otherwise (`none`: nothing).
   */
  egress: { allow: readonly string[] };
  /** A price file merged over the shipped price table (docs/costs.md). */
  prices: { file?: string };
  version: string;
}

export interface RateLimits {
  ingest: number;
  query: number;
  evalRuns: number;
}

/** Parses the environment; throws a ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || 'env'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.KAFKA_BROKERS && e.KAFKA_MAX_MESSAGE_BYTES < e.MAX_SPAN_BYTES + KAFKA_MESSAGE_HEADROOM) {
    throw new ConfigError(
      `Invalid configuration:\n  KAFKA_MAX_MESSAGE_BYTES: must be at least MAX_SPAN_BYTES + ${KAFKA_MESSAGE_HEADROOM} (${e.MAX_SPAN_BYTES + KAFKA_MESSAGE_HEADROOM}), so every accepted span fits a message`,
    );
  }
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL) {
    throw new ConfigError("Invalid configuration:\n  CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL (a cluster is a ClickHouse server's; embedded chDB is one node)");
  }
  const gateway = clickhouseGateway(e);
  const llm = llmSettings(e);
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    otlpGrpcPort: e.OTLP_GRPC_PORT,
    otlpHttpPort: e.OTLP_HTTP_PORT,
    healthPort: e.HEALTH_PORT,
    dataDir: path.resolve(e.AGENT_EVAL_DATA_DIR),
    clickhouseUrl: e.CLICKHOUSE_URL,
    clickhouseCluster: e.CLICKHOUSE_CLUSTER,
    clickhouseGateway: gateway,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
      downloadUrl: e.TEMPORAL_CLI_DOWNLOAD_URL,
      sha256: e.TEMPORAL_CLI_SHA256,
    },
    cacheDir: path.resolve(e.AGENT_EVAL_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'agent-eval')),
    reconnect: { maxAttempts: e.MAX_RECONNECT_ATTEMPTS, delayMs: e.RECONNECT_DELAY_MS },
    evals: {
      maxConcurrency: e.EVAL_MAX_CONCURRENCY,
      pauseMaxMs: e.EVAL_PAUSE_MAX_MS,
      approvalMaxMs: e.EVAL_APPROVAL_MAX_MS,
      retryTimeScale: e.EVAL_RETRY_TIME_SCALE,
      historyMaxEvents: e.EVAL_HISTORY_MAX_EVENTS,
    },
    kafka: e.KAFKA_BROKERS
      ? {
          brokers: e.KAFKA_BROKERS.split(',')
            .map((b) => b.trim())
            .filter(Boolean),
          topic: e.KAFKA_TOPIC,
          deadLetterTopic: e.KAFKA_DLQ_TOPIC,
          groupId: e.KAFKA_GROUP_ID,
          partitions: e.KAFKA_PARTITIONS,
          maxMessageBytes: e.KAFKA_MAX_MESSAGE_BYTES,
        }
      : undefined,
    retentionDays: e.RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    maxBodyBytes: e.MAX_BODY_BYTES,
    otlpMaxMessageBytes: e.OTLP_MAX_MESSAGE_BYTES,
    maxSpanBytes: e.MAX_SPAN_BYTES,
    batch: {
      maxSpans: e.BATCH_MAX_SPANS,
      maxWaitMs: e.BATCH_MAX_WAIT_MS,
      maxPendingBytes: e.BATCH_MAX_PENDING_BYTES,
      maxConcurrentFlushes: e.BATCH_MAX_CONCURRENT_FLUSHES,
    },
    roles: e.AGENT_EVAL_ROLES,
    alerts: {
      tickMs: e.ALERT_TICK_MS,
      webhook: { timeoutMs: e.ALERT_WEBHOOK_TIMEOUT_MS, maxAttempts: e.ALERT_WEBHOOK_MAX_ATTEMPTS, backoffMs: e.ALERT_WEBHOOK_BACKOFF_MS },
    },
    onlineEvals: {
      tickMs: e.ONLINE_EVAL_TICK_MS,
      scanBatch: e.ONLINE_EVAL_SCAN_BATCH,
      concurrency: e.ONLINE_EVAL_CONCURRENCY,
      leaseMs: e.ONLINE_EVAL_LEASE_MS,
    },
    auth: { mode: e.AUTH_MODE, jwtSecret: e.JWT_SECRET, cacheTtlMs: e.AUTH_CACHE_TTL_MS, ingestGraceMs: e.AUTH_INGEST_GRACE_MS },
    metricsToken: e.METRICS_TOKEN,
    authThrottle: { perAddress: e.AUTH_FAILURES_PER_ADDRESS_PER_MINUTE, perPrefix: e.AUTH_FAILURES_PER_KEY_PREFIX_PER_MINUTE },
    trustProxyHops: e.TRUST_PROXY_HOPS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    metadataRetention: { days: e.METADATA_RETENTION_DAYS ?? e.RETENTION_DAYS, runDays: e.RUN_RETENTION_DAYS },
    oidc: oidcConfig(e),
    sessions: { idleMs: e.SESSION_IDLE_MINUTES * 60_000, maxMs: e.SESSION_MAX_HOURS * 3_600_000 },
    rateLimits: { ingest: e.RATE_LIMIT_INGEST_PER_MINUTE, query: e.RATE_LIMIT_QUERY_PER_MINUTE, evalRuns: e.RATE_LIMIT_EVAL_RUNS_PER_MINUTE },
    llm,
    customScorers: { timeoutMs: e.CUSTOM_SCORER_TIMEOUT_MS },
    egress: { allow: e.EGRESS_ALLOW ?? defaultAllowList(e.HOST) },
    prices: { file: e.AGENT_EVAL_PRICES_FILE === undefined ? undefined : path.resolve(e.AGENT_EVAL_PRICES_FILE) },
    version: PACKAGE_VERSION,
    ...overrides,
  };
  return Object.freeze(config);
}

/** CLICKHOUSE_GATEWAY_*: only where this process runs chDB, and never without a password (it serves any SQL). */
function clickhouseGateway(e: ConfigEnv): Config['clickhouseGateway'] {
  if (e.CLICKHOUSE_GATEWAY_PORT === undefined) return undefined;
  const problems: string[] = [];
  if (e.CLICKHOUSE_URL)
    problems.push(
      "  CLICKHOUSE_GATEWAY_PORT: cannot be used with CLICKHOUSE_URL (the gateway shares this process's embedded chDB; there is none with a ClickHouse server)",
    );
  if (!e.CLICKHOUSE_GATEWAY_PASSWORD)
    problems.push('  CLICKHOUSE_GATEWAY_PASSWORD: required with CLICKHOUSE_GATEWAY_PORT (the gateway runs any SQL it is sent)');
  if (problems.length > 0 || !e.CLICKHOUSE_GATEWAY_PASSWORD) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return { port: e.CLICKHOUSE_GATEWAY_PORT, host: e.CLICKHOUSE_GATEWAY_HOST, password: e.CLICKHOUSE_GATEWAY_PASSWORD };
}

/** Kept equal to package.json's version by test/unit/config/load-config.test.ts. */
export const PACKAGE_VERSION = '0.1.0';
