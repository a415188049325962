import type { AdminProjectView, ProjectStatus } from '../model/project.js';

/*
 * Projects' lives as server admins govern them (PostgreSQL; store/postgres/project-admin-store.ts
 * implements it).
 *
 * Promises:
 * - Every change is atomic (one statement, or one transaction for a deletion and a purge) and
 *   resolves once committed; a refused change changed nothing and says why (ProjectChangeRefusal).
 * - Idempotent in effect: archiving an archived project, or requesting the deletion of one being
 *   deleted, answers as the first time did (the deletion's revoked key prefixes only the first
 *   time); `purge` answers null once the project was purged, by any process.
 * - A project's id is never given to another project: its row stays as a tombstone.
 */

/** Why a change of a project's life was refused (the route answers 404 or 409 with it). */
export type ProjectChangeRefusal = 'not_found' | 'is_default' | 'not_archived' | 'deleted';

/** `revokedPrefixes`: set by a deletion requested now (the keys it revoked), absent when it was requested before. */
export type ProjectChange = { ok: true; project: AdminProjectView; revokedPrefixes?: string[] } | { ok: false; reason: ProjectChangeRefusal };

/**
 * Every project as server admins govern them (docs/security.md, "Server admins and project
 * governance"): list, archive, unarchive, delete. A project's row outlives its data as a
 * tombstone (`purged_at`), so its id is never given to another project.
 */
export interface ProjectAdminStore {
  /** A project's status; null when no project has the id (AUTH_MODE=none may name any). */
  status(id: string): Promise<ProjectStatus | null>;
  listAll(): Promise<AdminProjectView[]>;
  archive(id: string): Promise<ProjectChange>;
  unarchive(id: string): Promise<ProjectChange>;
  /**
   * Starts a deletion: only an archived project that is not the default one. Marks it deleted and
   * revokes its live keys in one transaction (their prefixes are returned, for the key cache).
   * The data goes with `purge` (in the background: core/projects/project-deletion.ts).
   */
  requestDeletion(id: string): Promise<ProjectChange>;
  /** Projects whose deletion was requested and not finished. */
  pendingDeletions(): Promise<string[]>;
  /**
   * Deletes every row of the project in PostgreSQL but its tombstone and its audit entries, in
   * one transaction, and marks it purged. Returns the rows deleted per table; null when it was
   * purged already (by another process).
   */
  purge(id: string): Promise<Record<string, number> | null>;
}
