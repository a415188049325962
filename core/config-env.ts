import { z } from 'zod';
import { parseAllowList } from './egress/policy.js';
import { DEFAULT_JUDGE_MODELS, LLM_PROVIDERS } from './providers/settings.js';

/**
 * The environment's schema: every variable the service reads, its type, default and bounds
 * (docs/configuration.md). core/config.ts parses it once and builds the Config from it.
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
export const KAFKA_MESSAGE_HEADROOM = 64 * 1024;
export type Role = (typeof ROLES)[number];

export const EnvSchema = z.object({
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
