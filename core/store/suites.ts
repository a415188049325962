import type { SuiteDefinition, SuiteList, SuiteSummary, SuiteVersion, SuiteVersionInfo } from '../model/suite.js';

/*
 * Test suites and their versions (PostgreSQL, migration 002; store/postgres/suite-store.ts
 * implements it; docs/suites.md).
 *
 * Promises:
 * - Isolation: every call names a project and touches only its suites.
 * - A version, once written, never changes, and stays while a suite is deleted (soft delete):
 *   a run that pinned it can always read it (`includeDeleted`).
 * - Versions are numbered without gaps or duplicates under concurrent updates (a row lock).
 * - Names are unique among a project's live suites: a taken name rejects with a ConflictError
 *   (409) and changes nothing. Writes resolve once committed.
 */

/**
 * Test suites and their immutable versions (PostgreSQL). Every query filters by project.
 * A deleted suite is hidden (its name becomes free) but its versions stay: runs pin them.
 */
export interface SuiteStore {
  /** Creates the suite with version 1. */
  create(projectId: string, def: SuiteDefinition): Promise<SuiteSummary>;
  /** Live suites, newest first, each at its latest version; `name` filters by case-insensitive substring. */
  list(projectId: string, query: { limit: number; offset: number; name?: string }): Promise<SuiteList>;
  /**
   * One version (the latest when `version` is undefined). Null for an unknown id or version, and
   * for a deleted suite unless `includeDeleted` (a run reading the version it pinned).
   */
  get(projectId: string, id: string, version?: number, opts?: { includeDeleted?: boolean }): Promise<SuiteVersion | null>;
  /** Like {@link get}, by the name of a live suite. */
  getByName(projectId: string, name: string, version?: number): Promise<SuiteVersion | null>;
  /** Every version, newest first; null when there is no such live suite. */
  versions(projectId: string, id: string): Promise<SuiteVersionInfo[] | null>;
  /** Writes the next version (latest + 1, under a row lock); null when there is no such live suite. */
  update(projectId: string, id: string, def: SuiteDefinition): Promise<SuiteSummary | null>;
  /** Soft delete; true when a live suite was deleted. */
  delete(projectId: string, id: string): Promise<boolean>;
}
