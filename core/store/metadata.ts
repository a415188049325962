import type pg from 'pg';
import type { AgentStore } from './agents.js';
import type { AlertStore } from './alerts.js';
import type { AuditStore } from './audit.js';
import type { AuthFailureStore } from './auth-failures.js';
import type { CustomScorerStore } from './custom-scorers.js';
import type { DataDeletionStore } from './data-deletions.js';
import type { IdempotencyStore } from './idempotency.js';
import type { JudgeStore } from './judges.js';
import type { KeyStore } from './keys.js';
import type { OnlineEvalStore } from './online-evals.js';
import type { ProjectAdminStore } from './project-admin.js';
import type { PromptStore } from './prompts.js';
import type { RateLimitStore } from './rate-limits.js';
import type { RetentionStore } from './retention.js';
import type { FailureLabelStore } from './failure-labels.js';
import type { SessionStore } from './sessions.js';
import type { SuiteStore } from './suites.js';
import type { UserStore } from './users.js';
import type { FeedbackStore } from './feedback.js';
import type { QueueStore } from './queues.js';
import type { RunStore } from './runs.js';
import type { StoreConnection } from './store-connection.js';

export interface Project {
  id: string;
  name: string;
  is_default: boolean;
  created_at: string;
}

/**
 * The contract of the metadata store (PostgreSQL, embedded or DATABASE_URL:
 * store/postgres/metadata-store.ts implements it): projects, keys, agents, suites, runs and their
 * results, prompts, feedback, queues, alerts, online rules, the audit log, sessions, limits.
 *
 * Promises, for every store below unless its own contract says more:
 * - Durability: a write resolves once PostgreSQL committed it; a write that spans rows (a run and
 *   its cases, a feedback and its scores) is one transaction, all or nothing.
 * - Isolation: calls that take a project id read and change only that project's rows.
 * - Idempotency is per call and said where it holds (creates keyed by a client's id or a derived
 *   id, results recorded once per (run, case, trial), Idempotency-Key answers); a plain create
 *   retried after a lost answer may create twice.
 * - Failures: an unreachable store rejects with the driver's error (503 by core/wire-error.ts); a
 *   row that is not there is null or false, not an error.
 * - What a caller gets is its own copy (rows are mapped to fresh objects); no store caches, so
 *   every read sees every committed write, of any process.
 */
export interface MetadataStore extends StoreConnection {
  /**
   * The connection pool, for backups only (core/backup: the database copied as it is on disk).
   * Everything else goes through a store below; new code adds a store.
   */
  pool: pg.Pool;
  /** The default project, created on first start; idempotent, safe under concurrent starts. */
  ensureDefaultProject(): Promise<Project>;
  runs: RunStore;
  agents: AgentStore;
  suites: SuiteStore;
  feedback: FeedbackStore;
  queues: QueueStore;
  alerts: AlertStore;
  prompts: PromptStore;
  /** Projects' API keys (and projects beyond the default one). */
  keys: KeyStore;
  /** HTTP custom scorers (docs/scorers.md). */
  scorers: CustomScorerStore;
  /** LLM judges' calls and runs' judge spend (docs/judges.md). */
  judges: JudgeStore;
  /** Online evaluation rules and their evaluations (docs/online-evals.md). */
  onlineEvals: OnlineEvalStore;
  /** The audit log's table (docs/security.md, "Audit log"); written through core/audit. */
  audit: AuditStore;
  /** Every project as server admins govern them: list, archive, delete (docs/security.md). */
  projectAdmin: ProjectAdminStore;
  /** People signed in with OpenID Connect and their roles per project (docs/security.md, "Signing in"). */
  users: UserStore;
  /** The dashboard's server-side sessions. */
  sessions: SessionStore;
  /** Idempotency-Key claims and stored answers of the creating POSTs (docs/api.md). */
  idempotency: IdempotencyStore;
  /** The rate limiter's shared windows and projects' own limits (core/store/rate-limits.ts). */
  rateLimits: RateLimitStore;
  /** Deletions of data clients asked for, and their PostgreSQL half (core/store/data-deletions.ts). */
  dataDeletions: DataDeletionStore;
  /** The failed-authentication throttle's shared counts (core/store/auth-failures.ts). */
  authFailures: AuthFailureStore;
  /** Retention's deletes of what PostgreSQL holds (core/store/retention.ts). */
  retention: RetentionStore;
  /** Judges' labels of failure groups by signature (core/store/failure-labels.ts). */
  failureLabels: FailureLabelStore;
}
