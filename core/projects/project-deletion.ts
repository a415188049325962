import { SYSTEM_ACTOR, type AuditLog } from '../audit/audit-log.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ProjectAdminStore } from '../store/project-admin.js';
import { resumableWork } from '../deletion/resumable.js';

/**
 * A project's data leaving both stores, after a server admin asked for it (DELETE
 * /api/admin/projects/{id}, docs/security.md "Deleting a project"). The request marks the
 * project deleted and revokes its keys at once; this removes the data in the background:
 * ClickHouse first (spans, summaries, scores), then every PostgreSQL row in one transaction,
 * which marks the project purged last. Until then the project stays `deleting` and is picked up
 * again: at start, every `RESUME_EVERY_MS`, or by another process, so a crash or a store outage
 * half-way leaves nothing behind for good. Both halves can run again without harm.
 */
export interface ProjectDeletion {
  /** Starts removing the data of a project whose deletion was requested (returns at once). */
  start(projectId: string): void;
  /** Starts every requested deletion not finished (this process's or another's). */
  resume(): Promise<void>;
  /** Resolves when the deletions under way in this process have ended. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ProjectDeletionDeps {
  projects: Pick<ProjectAdminStore, 'pendingDeletions' | 'purge'>;
  /** Removes the project's rows from the analytical store; the rows removed per table. */
  purgeAnalytics(projectId: string): Promise<Record<string, number>>;
  audit: Pick<AuditLog, 'record'>;
  logger: Logger;
  /** Run `resume` on this period (default RESUME_EVERY_MS); 0: never by itself. */
  resumeEveryMs?: number;
}

export const RESUME_EVERY_MS = 60_000;

export function createProjectDeletion(deps: ProjectDeletionDeps): ProjectDeletion {
  async function purge(projectId: string): Promise<void> {
    try {
      const analytics = await deps.purgeAnalytics(projectId);
      const metadata = await deps.projects.purge(projectId);
      // null: another process finished it and recorded it.
      if (metadata === null) return;
      deps.logger.info({ projectId, analytics, metadata }, 'project deleted: its data is gone from both stores');
      await deps.audit.record({
        actor: SYSTEM_ACTOR,
        action: 'project.purged',
        projectId,
        target: projectId,
        details: { rows_deleted: { analytics, metadata } },
      });
    } catch (err) {
      deps.logger.error({ err, projectId }, `project deletion not finished, will be retried: ${errorMessage(err)}`);
    }
  }

  // Not waited for on close: a purge cut short is resumed by the next process to start (or another one).
  const work = resumableWork({
    run: purge,
    open: () => deps.projects.pendingDeletions(),
    unread: (err) => deps.logger.warn({ err }, `pending project deletions not read: ${errorMessage(err)}`),
    everyMs: deps.resumeEveryMs ?? RESUME_EVERY_MS,
  });

  return {
    start(projectId) {
      void work.start(projectId);
    },
    resume: work.resume,
    idle: work.idle,
    close: work.close,
  };
}
