import type { CreateCustomScorer, CustomScorer, CustomScorerList, CustomScorerRecord } from '../model/custom-scorer.js';

/*
 * HTTP custom scorers (PostgreSQL, migration 010; store/postgres/scorer-store.ts implements it;
 * docs/scorers.md).
 *
 * Promises:
 * - Isolation: every call names a project and touches only its scorers.
 * - Names are unique per project: a taken name rejects with a ConflictError (409) and changes
 *   nothing. Writes resolve once committed; reads see every committed write of any process.
 * - Header values (credentials) leave the store only through `allForCall`, for the scorers'
 *   calls; other reads return views without them.
 */

/** HTTP custom scorers (PostgreSQL), per project; found by id or name, as agents are. */
export interface CustomScorerStore {
  create(projectId: string, input: CreateCustomScorer): Promise<CustomScorer>;
  /** Newest first. */
  list(projectId: string, page: { limit: number; offset: number }): Promise<CustomScorerList>;
  resolve(projectId: string, idOrName: string): Promise<CustomScorer | null>;
  delete(projectId: string, idOrName: string): Promise<boolean>;
  /** Every scorer of the project with its header values: the registry of one project (worker and creation checks). */
  allForCall(projectId: string): Promise<CustomScorerRecord[]>;
}
