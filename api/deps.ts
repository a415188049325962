import type Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { MetadataStore } from '../core/store/metadata.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import type { Collector } from '../collector/index.js';
import type { RunEngine } from '../workflows/client.js';
import type { Authenticator } from '../core/auth/authenticator.js';
import type { Sessions } from '../core/auth/sessions.js';
import type { OidcClient } from '../core/auth/oidc.js';
import type { RateLimiter } from '../core/limits/rate-limiter.js';
import type { AuditLog } from '../core/audit/audit-log.js';
import type { ProjectStates } from '../core/auth/project-states.js';
import type { ProjectDeletion } from '../core/projects/project-deletion.js';
import type { DataDeletion } from '../core/deletion/data-deletion.js';
import type { UiSource } from './ui.js';
import type { PriceTable } from '../core/cost/price-table.js';
import type { Egress } from '../core/egress/fetch.js';
import type { HealthDeps } from './routes/health.js';
import type { MetricsDeps } from './routes/metrics.js';
import type { BackupSource } from '../core/backup/create-backup.js';
import type { JudgeRuntime } from '../core/judges/judge-scorer.js';
import type { ExportJobs } from '../core/exports/export-jobs.js';

/**
 * Everything the API needs, passed in by the entry point (STYLE 3). Health and metrics read only
 * their part (HealthDeps, MetricsDeps), which a process without the API builds too.
 */
export interface ApiDeps extends HealthDeps, MetricsDeps {
  config: Pick<Config, 'maxBodyBytes' | 'version' | 'metricsToken' | 'oidc'>;
  logger: Logger;
  analytics: AnalyticsStore;
  metadata: MetadataStore;
  /** Who is calling (API keys, JWTs, or `AUTH_MODE=none`). */
  auth: Authenticator;
  /** The dashboard's sessions (a cookie instead of a key); absent with AUTH_MODE=none. */
  sessions?: Sessions;
  /** Sign-in with OpenID Connect, when OIDC_* is configured. */
  oidc?: OidcClient;
  limiter: RateLimiter;
  /** The audit log: `audit.record({...})` after every security-relevant action (core/audit/audit-log.ts). */
  audit: AuditLog;
  /** Projects' statuses: archived ones refuse writes, deleted ones everything (one cache per process, shared with the OTLP gate). */
  projectStates: ProjectStates;
  /** Removes a deleted project's data from both stores, in the background. */
  projectDeletion: Pick<ProjectDeletion, 'start'>;
  /** Deletions of traces, end users' and sessions' data, carried out in the background (core/deletion/data-deletion.ts). */
  dataDeletion: DataDeletion;
  collector: Collector;
  /** The scorers this process knows: suites and runs are checked against them when created. */
  scorers: ScorerRegistry;
  /** The egress policy: URLs users register (agents, custom scorers, webhooks) are refused here when literal addresses it refuses. */
  egress: Pick<Egress, 'refusalOfUrl' | 'fetch'>;
  /** The workflow engine's run calls; absent where this process has no engine (run routes answer 503). */
  engine?: RunEngine;
  /** The price table (docs/costs.md): POST /api/admin/recompute-costs reprices stored spans with it; the shipped one when absent. */
  prices?: PriceTable;
  /** Backups of the stores this process owns (embedded chDB): POST /api/admin/backup; absent, 409. */
  backup?: BackupSource;
  /** The OTLP/HTTP route, so one port can serve everything. */
  otlpRouter?: Router;
  /** The dashboard on this port (api/ui.ts): `handler` null when it is not built; absent, no dashboard paths. */
  ui?: UiSource;
  /** Background export jobs of this process (docs/api.md, "Bulk export"); absent, POST /api/exports answers 409. */
  exportJobs?: ExportJobs;
  /** The process's LLM judge providers: failure groups are labelled with them on request; absent, they are not. */
  judges?: JudgeRuntime;
  /** The OTLP receivers' ports the dashboard tells exporters to use (GET /api/auth/session's `ingest`); absent, none is named. */
  otlpPorts?: { grpc: number; http: number };
}
