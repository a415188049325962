import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MetadataStore, Project } from '../metadata.js';
import { createRateLimitStore } from './rate-limit-store.js';
import { createDataDeletionStore } from './data-deletion-store.js';
import { createRunStore } from './run-store.js';
import { createAgentStore } from './agent-store.js';
import { createSuiteStore } from './suite-store.js';
import { createFeedbackStore } from './feedback-store.js';
import { createQueueStore } from './queue-store.js';
import { createAlertStore } from './alert-store.js';
import { createPromptStore } from './prompt-store.js';
import { createKeyStore } from './key-store.js';
import { createCustomScorerStore } from './scorer-store.js';
import { createJudgeStore } from './judge-store.js';
import { createOnlineEvalStore } from './online-eval-store.js';
import { createAuditStore } from './audit-store.js';
import { createProjectAdminStore } from './project-admin-store.js';
import { createUserStore } from './user-store.js';
import { createSessionStore } from './session-store.js';
import { createIdempotencyStore } from './idempotency-store.js';
import { createAuthFailureStore } from './auth-failure-store.js';
import { createRetentionStore } from './retention-store.js';
import { createFailureLabelStore } from './failure-label-store.js';

export type { MetadataStore, Project };

export function createPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

/** The PostgreSQL implementation of the metadata store (core/store/metadata.ts) over this pool. */
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
    rateLimits: createRateLimitStore(pool),
    dataDeletions: createDataDeletionStore(pool),
    authFailures: createAuthFailureStore(pool),
    retention: createRetentionStore(pool),
    failureLabels: createFailureLabelStore(pool),
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
