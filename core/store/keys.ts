import type { Role } from '../principal.js';
import type { ApiKeyView, ProjectView } from '../model/project.js';

/*
 * Projects and their API keys (PostgreSQL; store/postgres/key-store.ts implements it).
 *
 * Promises:
 * - A key's secret is returned once, by `createKey`, and never stored: only its hash is. What
 *   `findByPrefix` returns is the hash, to be compared by the authenticator.
 * - Every write resolves once committed. `createKey` is not idempotent (a retry makes a second
 *   key); `revokeKey` is (a key revoked already answers null); `createProject` refuses a taken id
 *   (null), so a retry with the same id does not create two.
 * - Nothing is cached here: a revocation is seen by the next read of any process (the
 *   authenticator's key cache, core/auth, has its own TTL).
 */

/** A key as the authenticator checks it. */
export interface StoredKey {
  id: string;
  project_id: string;
  name: string;
  role: Role;
  /** Governs the server besides its role in its project (docs/security.md, "Server admins"). */
  server_admin: boolean;
  key_hash: Buffer;
  revoked: boolean;
}

/** Projects and their API keys (PostgreSQL). */
export interface KeyStore {
  /** A new key: the secret is in the result, and nowhere else ever again. */
  createKey(
    projectId: string,
    input: { name: string; role: Role; env: string; createdBy?: string; serverAdmin?: boolean },
  ): Promise<ApiKeyView & { key: string }>;
  findByPrefix(prefix: string): Promise<StoredKey | null>;
  listKeys(projectId: string): Promise<ApiKeyView[]>;
  /** The revoked key when a live key of that project was revoked now (its prefix and what it was), else null. */
  revokeKey(projectId: string, keyId: string): Promise<ApiKeyView | null>;
  /** Records use (called at most once a minute per key, off the request's path). */
  touchKeys(ids: string[]): Promise<void>;
  anyKey(): Promise<boolean>;
  /** Null when the id is taken, by a live, archived or deleted project (a deleted project's id is never reused). */
  createProject(input: { id?: string; name: string }): Promise<ProjectView | null>;
  /** A live or archived project; null for one that does not exist or is deleted. */
  getProject(id: string): Promise<ProjectView | null>;
  /** Live and archived projects (of `ids`, when given), never deleted ones. */
  listProjects(ids?: readonly string[]): Promise<ProjectView[]>;
}
