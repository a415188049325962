import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defaultAllowList, parseAllowList } from './egress/policy.js';
import { ConfigError } from './errors.js';
import { oidcConfig, type OidcConfig } from './auth/oidc-settings.js';
import { DEFAULT_JUDGE_MODELS, LLM_PROVIDERS, llmSettings, type LlmSettings } from './providers/settings.js';

/**
 * The one typed view of the environment (STYLE 7): parsed once at start, every problem listed,
 * frozen and passed down. `process.env` is read here and nowhere else.
 */

const port = z.coerce.number().int().min(0).max(65535);
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().url().optional())
  .optional();
const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const ROLES = ['api', 'collector', 'worker', 'ingester'] as const;

/** Default MAX_SPAN_BYTES: 4 MiB, so a long answer (a 600 KB RAG summary, kept in its attributes too) is stored whole. */
export const DEFAULT_MAX_SPAN_BYTES = 4 * 1024 * 1024;

/**
 * Kafka's defaults, in one place (config and the Kafka code both read them). A message holds at
 * least one span of MAX_SPAN_BYTES and the summary rows of its trace (KAFKA_MESSAGE_HEADROOM). That
 * is more than a broker takes by default (`message.max.bytes`, 1,048,588, applies to a whole
 * record batch), so the spans topic is created with `max.message.bytes` to match
 * (collector/kafka/topics.ts).
 */
export const KAFKA_DEFAULTS = {
  topic: 'agent-eval.spans',
  deadLetterTopic: 'agent-eval.spans.dlq',
  groupId: 'agent-eval-ingester',
  partitions: 6,
  maxMessageBytes: DEFAULT_MAX_SPAN_BYTES + 64 * 1024,
} as const;

/** Room a Kafka message keeps beyond its largest span row: that span's trace summary rows (a few KiB). */
const KAFKA_MESSAGE_HEADROOM = 64 * 1024;
export type Role = (typeof ROLES)[number];

const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().default('0.0.0.0'),
  OTLP_GRPC_PORT: port.default(4317),
  OTLP_HTTP_PORT: port.default(4318),
  HEALTH_PORT: port.default(8081),
  AGENT_EVAL_DATA_DIR: z.string().default('./.agent-eval'),
  CLICKHOUSE_URL: optionalUrl,
  CLICKHOUSE_CLUSTER: optionalText.pipe(
    z
      .string()
      .regex(/^[\w.-]+$/, 'must be a cluster name of the remote_servers config')
      .optional(),
  ),
  CLICKHOUSE_GATEWAY_PORT: optionalText.pipe(
    z.string().regex(/^\d+$/, 'must be a port (0: any free one)').transform(Number).pipe(z.number().max(65535)).optional(),
  ),
  CLICKHOUSE_GATEWAY_HOST: z.string().trim().min(1).default('127.0.0.1'),
  CLICKHOUSE_GATEWAY_PASSWORD: optionalText,
  DATABASE_URL: optionalText,
  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1).default('agent-eval-runs'),
  TEMPORAL_CLI_PATH: optionalText,
  // Where the pinned Temporal CLI release is downloaded from (a mirror of GitHub's release layout); `none`: never download.
  TEMPORAL_CLI_DOWNLOAD_URL: z.string().trim().min(1).default('https://github.com/temporalio/cli/releases/download'),
  // The archive's SHA-256 for this platform, instead of the pinned one (a mirror serving its own build).
  TEMPORAL_CLI_SHA256: optionalText.pipe(
    z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex')
      .optional(),
  ),
  AGENT_EVAL_CACHE_DIR: optionalText,
  MAX_RECONNECT_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  RECONNECT_DELAY_MS: z.coerce.number().int().min(1).max(600_000).default(5000),
  EVAL_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  // SPEC bounds: a run pauses up to 24 hours; an approval waits up to 7 days. Shorter is allowed.
  EVAL_PAUSE_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600_000)
    .default(24 * 3600_000),
  EVAL_APPROVAL_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600_000)
    .default(7 * 24 * 3600_000),
  EVAL_RETRY_TIME_SCALE: z.coerce.number().min(0.001).max(1).default(1),
  EVAL_HISTORY_MAX_EVENTS: z.coerce.number().int().min(100).max(40_000).default(8_000),
  KAFKA_BROKERS: optionalText,
  KAFKA_TOPIC: z.string().default(KAFKA_DEFAULTS.topic),
  KAFKA_DLQ_TOPIC: z.string().default(KAFKA_DEFAULTS.deadLetterTopic),
  KAFKA_GROUP_ID: z.string().default(KAFKA_DEFAULTS.groupId),
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(KAFKA_DEFAULTS.partitions),
  KAFKA_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).default(KAFKA_DEFAULTS.maxMessageBytes),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(90),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  OTLP_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  MAX_SPAN_BYTES: z.coerce.number().int().min(16_384).default(DEFAULT_MAX_SPAN_BYTES),
  BATCH_MAX_SPANS: z.coerce.number().int().min(1).default(10_000),
  BATCH_MAX_WAIT_MS: z.coerce.number().int().min(0).default(20),
  BATCH_MAX_CONCURRENT_FLUSHES: z.coerce.number().int().min(1).max(16).default(1),
  BATCH_MAX_PENDING_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  AUTH_MODE: z.enum(['required', 'none']).default('required'),
  JWT_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (a strong random value)').optional()),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3600_000).default(10_000),
  /** Ingest only: how long a key verified before an outage of PostgreSQL keeps letting spans in (0: never). */
  AUTH_INGEST_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(900_000),
  METRICS_TOKEN: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (a strong random value)').optional()),
  // Failed authentication throttled, the client address, the audit log (docs/security.md).
  AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(20),
  AUTH_FAILURES_PER_KEY_PREFIX_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(10),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36500).default(365),
  // PostgreSQL's data about traces (default: RETENTION_DAYS) and finished runs (default: kept), docs/configuration.md.
  METADATA_RETENTION_DAYS: z.coerce.number().int().min(0).max(36500).optional(),
  RUN_RETENTION_DAYS: z.coerce.number().int().min(0).max(36500).default(0),
  // Signing in to the dashboard (docs/security.md, "Signing in").
  OIDC_ISSUER: optionalUrl,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_REDIRECT_URL: optionalUrl,
  OIDC_NAME: z.string().trim().min(1).max(60).default('OpenID Connect'),
  OIDC_SCOPES: z
    .string()
    .trim()
    .default('openid email profile')
    .refine((v) => v.split(/\s+/).includes('openid'), 'must include openid'),
  OIDC_ADMIN_EMAILS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean),
    ),
  OIDC_DEFAULT_ROLE: z.enum(['none', 'viewer', 'member', 'admin']).default('none'),
  SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(720),
  SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(8_760).default(168),
  RATE_LIMIT_INGEST_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  RATE_LIMIT_QUERY_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  RATE_LIMIT_EVAL_RUNS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  ALERT_TICK_MS: z.coerce.number().int().min(50).max(3600_000).default(10_000),
  ALERT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  ALERT_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  ALERT_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  ONLINE_EVAL_TICK_MS: z.coerce.number().int().min(50).max(3600_000).default(2000),
  ONLINE_EVAL_SCAN_BATCH: z.coerce.number().int().min(1).max(100_000).default(1000),
  ONLINE_EVAL_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  ONLINE_EVAL_LEASE_MS: z.coerce.number().int().min(500).max(3600_000).default(30_000),
  // LLM providers of the judges: each provider's own variables (docs/configuration.md, docs/judges.md).
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: optionalUrl,
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalUrl,
  GOOGLE_CLOUD_PROJECT: optionalText,
  GOOGLE_CLOUD_LOCATION: optionalText,
  GOOGLE_VERTEX_BASE_URL: optionalUrl,
  ANTHROPIC_VERTEX_PROJECT_ID: optionalText,
  CLOUD_ML_REGION: optionalText,
  ANTHROPIC_VERTEX_BASE_URL: optionalUrl,
  AGENT_EVAL_VERTEX_ACCESS_TOKEN: optionalText,
  JUDGE_PROVIDER: optionalText.pipe(z.enum(LLM_PROVIDERS).optional()),
  JUDGE_MODEL_ANTHROPIC: z.string().trim().min(1).default(DEFAULT_JUDGE_MODELS.anthropic),
  JUDGE_MODEL_OPENAI: z.string().trim().min(1).default(DEFAULT_JUDGE_MODELS.openai),
  JUDGE_MODEL_VERTEX_GEMINI: z.string().trim().min(1).default(DEFAULT_JUDGE_MODELS['vertex-gemini']),
  JUDGE_MODEL_VERTEX_ANTHROPIC: z.string().trim().min(1).default(DEFAULT_JUDGE_MODELS['vertex-anthropic']),
  JUDGE_OPENAI_STRUCTURED_OUTPUT: z.enum(['json_schema', 'tool']).default('json_schema'),
  JUDGE_MAX_ANSWER_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  JUDGE_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(64).max(64_000).default(4096),
  CUSTOM_SCORER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  EGRESS_ALLOW: optionalText.pipe(
    z
      .string()
      .transform((v, ctx) => {
        const entries = v
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
        for (const problem of parseAllowList(entries).problems) ctx.addIssue({ code: 'custom', message: problem });
        return entries;
      })
      .optional(),
  ),
  AGENT_EVAL_PRICES_FILE: optionalText,
  AGENT_EVAL_ROLES: z
    .string()
    .default(ROLES.join(','))
    .transform((v, ctx) => {
      const roles = v
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
      for (const r of roles) {
        if (!(ROLES as readonly string[]).includes(r)) {
          ctx.addIssue({ code: 'custom', message: `unknown role '${r}' (use ${ROLES.join(', ')})` });
        }
      }
      return roles as Role[];
    }),
});

/** The environment as EnvSchema reads it: what each section's own settings are built from. */
export type ConfigEnv = z.output<typeof EnvSchema>;

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

/** Kept equal to package.json's version by test/unit/config.test.ts. */
export const PACKAGE_VERSION = '0.1.0';
