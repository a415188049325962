import type { PromptInput, PromptLabels, PromptList, PromptLookup, PromptSelector, PromptVersion, PromptVersionList } from '../model/prompt.js';

/*
 * Prompts, their versions and labels (PostgreSQL, migration 006; store/postgres/prompt-store.ts
 * implements it; docs/prompts.md).
 *
 * Promises:
 * - Isolation: every call names a project and touches only its prompts.
 * - A version, once written, never changes; versions are numbered without gaps or duplicates
 *   under concurrent updates (the prompt's row lock). A label is on one version at a time, and a
 *   move of labels is one transaction.
 * - Names are unique per project: a taken name rejects with a ConflictError (409) and changes
 *   nothing. Writes resolve once committed; reads see every committed write of any process.
 */

/**
 * Prompts, their immutable versions and their labels (PostgreSQL). Every query filters by
 * project. `ref` is a prompt's id or its name (names cannot be UUIDs, so the two never collide).
 */
export interface PromptStore {
  /** Creates the prompt with version 1 and puts `input.labels` on it. */
  create(projectId: string, input: PromptInput): Promise<PromptVersion>;
  /** Newest first, each at its latest version; `name` is a case-insensitive substring, `label` a label the prompt has. */
  list(projectId: string, query: { limit: number; offset: number; name?: string; label?: string }): Promise<PromptList>;
  /** One version: `select.version`, the version `select.label` names, else the latest. */
  get(projectId: string, ref: string, select?: PromptSelector): Promise<PromptLookup<PromptVersion>>;
  /** Versions newest first, with their labels; null when there is no such prompt. */
  versions(projectId: string, ref: string, page: { limit: number; offset: number }): Promise<PromptVersionList | null>;
  /** Writes the next version (latest + 1, under the prompt's row lock) and moves `input.labels` to it; null when there is no such prompt. */
  update(projectId: string, id: string, input: PromptInput): Promise<PromptVersion | null>;
  /** Deletes a prompt (by id) with its versions and labels; false when the project has no such prompt. */
  remove(projectId: string, id: string): Promise<boolean>;
  /** Moves every label to `version` in one transaction. */
  setLabels(projectId: string, ref: string, labels: string[], version: number): Promise<PromptLookup<PromptLabels>>;
  /** Removes a label from whichever version holds it. */
  removeLabel(projectId: string, ref: string, label: string): Promise<PromptLookup<PromptLabels>>;
}
