import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createRunStore, type RunStore } from './run-store.js';
import { createAgentStore, type AgentStore } from './agent-store.js';
import { createSuiteStore, type SuiteStore } from './suite-store.js';
import { createFeedbackStore, type FeedbackStore } from './feedback-store.js';
import { createQueueStore, type QueueStore } from './queue-store.js';
import { createAlertStore, type AlertStore } from './alert-store.js';
import { createPromptStore, type PromptStore } from './prompt-store.js';
import { createKeyStore, type KeyStore } from './key-store.js';
import { createCustomScorerStore, type CustomScorerStore } from './scorer-store.js';
import { createJudgeStore, type JudgeStore } from './judge-store.js';
import { createOnlineEvalStore, type OnlineEvalStore } from './online-eval-store.js';
import { createAuditStore, type AuditStore } from './audit-store.js';
import { createProjectAdminStore, type ProjectAdminStore } from './project-admin-store.js';
import { createUserStore, type UserStore } from './user-store.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { createIdempotencyStore, type IdempotencyStore } from './idempotency-store.js';

export interface Project {
  id: string;
  name: string;
  is_default: boolean;
  created_at: string;
}

/** The metadata store (PostgreSQL): projects now; suites, keys and eval configs later. */
export interface MetadataStore {
  pool: pg.Pool;
  /** The default project, created on first start. */
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
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function createPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

export function createMetadataStore(pool: pg.Pool): MetadataStore {
  return {
    pool,
    runs: createRunStore(pool),
    agents: createAgentStore(pool),
    suites: createSuiteStore(pool),
    feedback: createFeedbackStore(pool),
    queues: createQueueStore(pool),
    alerts: createAlertStore(pool),
    prompts: createPromptStore(pool),
    keys: createKeyStore(pool),
    scorers: createCustomScorerStore(pool),
    judges: createJudgeStore(pool),
    onlineEvals: createOnlineEvalStore(pool),
    audit: createAuditStore(pool),
    projectAdmin: createProjectAdminStore(pool),
    users: createUserStore(pool),
    sessions: createSessionStore(pool),
    idempotency: createIdempotencyStore(pool),
    async ensureDefaultProject() {
      await pool.query(
        `INSERT INTO projects (id, name, is_default) VALUES ($1, 'Default project', true)
         ON CONFLICT (is_default) WHERE is_default DO NOTHING`,
        [randomUUID()],
      );
      const { rows } = await pool.query<Project>('SELECT id, name, is_default, created_at FROM projects WHERE is_default');
      return rows[0];
    },
    async ping() {
      await pool.query('SELECT 1');
      return true;
    },
    close: () => pool.end(),
  };
}
