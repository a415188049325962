import { ForbiddenError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ProjectStatus } from '../model/project.js';
import type { ProjectAdminStore } from '../store/project-admin.js';

/** What a request does to its project's data. */
export type ProjectAccess = 'read' | 'write';

/**
 * Whether a project takes a request, by its status (docs/security.md, "Archiving"): an archived
 * project is read-only (writes are 403 `PROJECT_ARCHIVED`), a deleted one, or one being deleted,
 * takes nothing (403 `PROJECT_DELETED`: a token naming it may still verify). A project no row
 * names (any id under AUTH_MODE=none) takes everything, as before.
 *
 * Statuses are cached per process for `ttlMs` (AUTH_CACHE_TTL_MS), like keys: an archive takes
 * effect at once in the process that made it (`forget`), within the TTL (and one read) in the
 * others. A status older than the TTL is still used while it is read again in the background, and
 * a store that cannot be read keeps the last status known (else active): an outage is not made
 * worse, and no request waits for PostgreSQL but the first of a project in a process (250 ms at most).
 */
export interface ProjectStates {
  check(projectId: string, access: ProjectAccess): Promise<void>;
  forget(projectId: string): void;
}

const MAX_CACHED = 10_000;
/** How long a status is trusted after a failed read, before the store is asked again. */
const FAILED_READ_TTL_MS = 1000;
/** How long a request waits for a status never read before: past it, the project counts as active until the read answers. */
const FIRST_READ_WAIT_MS = 250;

export function createProjectStates(store: Pick<ProjectAdminStore, 'status'>, ttlMs: number, logger?: Logger): ProjectStates {
  const cache = new Map<string, { status: ProjectStatus | null; until: number }>();
  const loading = new Map<string, Promise<ProjectStatus | null>>();
  /** Bumped by `forget`: a read begun before it must not bring the old status back. */
  let generation = 0;

  function load(projectId: string): Promise<ProjectStatus | null> {
    let pending = loading.get(projectId);
    if (pending) return pending;
    const begun = generation;
    const keep = (status: ProjectStatus | null, ttl: number) => {
      if (begun !== generation) return;
      if (!cache.has(projectId) && cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(projectId, { status, until: Date.now() + ttl });
    };
    pending = store
      .status(projectId)
      .then(
        (status) => {
          keep(status, ttlMs);
          return status;
        },
        (err: unknown) => {
          logger?.warn({ err, projectId }, 'project status not read; using the last one known');
          const status = cache.get(projectId)?.status ?? null;
          keep(status, FAILED_READ_TTL_MS);
          return status;
        },
      )
      .finally(() => {
        if (loading.get(projectId) === pending) loading.delete(projectId);
      });
    loading.set(projectId, pending);
    return pending;
  }

  /**
   * The status known, refreshed in the background once it is older than the TTL (a request never
   * waits for the store then); the first read of a project waits at most FIRST_READ_WAIT_MS.
   */
  async function statusOf(projectId: string): Promise<ProjectStatus | null> {
    const hit = cache.get(projectId);
    if (hit) {
      if (hit.until <= Date.now()) void load(projectId);
      return hit.status;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), FIRST_READ_WAIT_MS);
      timer.unref();
    });
    return Promise.race([load(projectId), waited]).finally(() => clearTimeout(timer));
  }

  return {
    async check(projectId, access) {
      const status = await statusOf(projectId);
      if (status === 'deleting' || status === 'deleted') {
        throw new ForbiddenError(`project ${projectId} is deleted`, 'This project no longer exists; use a credential of another project', 'PROJECT_DELETED');
      }
      if (status === 'archived' && access === 'write') {
        throw new ForbiddenError(
          `project ${projectId} is archived: it is read-only`,
          'A server admin can unarchive it: POST /api/admin/projects/{id}/unarchive',
          'PROJECT_ARCHIVED',
        );
      }
    },
    forget(projectId) {
      generation++;
      cache.delete(projectId);
      loading.delete(projectId);
    },
  };
}
