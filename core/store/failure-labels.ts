/**
 * Labels of failure groups (core/failures/label.ts), kept per project by the group's signature key
 * so a signature is labelled by a judge once.
 *
 * Promises: `put` is idempotent (the first label of a key stays; a second put of the same key
 * changes nothing); `get` answers only the project's own labels; a project's labels go with the
 * project.
 */
export interface FailureLabelStore {
  get(projectId: string, keys: readonly string[]): Promise<Map<string, string>>;
  put(projectId: string, key: string, label: { label: string; provider: string }): Promise<void>;
}
