import type { Role } from '../principal.js';
import type { Membership } from './users.js';

/*
 * The dashboard's server-side sessions (PostgreSQL, migration 014; store/postgres/session-store.ts
 * implements it; docs/security.md, "Signing in").
 *
 * Promises:
 * - A session is found by the SHA-256 of its token; the token itself is never stored or returned.
 * - `find` answers only a live session: before its absolute expiry, seen within the idle time,
 *   and for a key's session, the key not revoked; a revocation or a sign-out is seen by the next
 *   `find` of any process (nothing is cached here).
 * - `delete` and `deleteExpired` are idempotent; every write resolves once committed.
 */

/** What a session is for: a user (OIDC) or an API key exchanged for it. */
export type SessionSubject = { userId: string } | { apiKeyId: string };

/** A live session as the authentication reads it, with what its subject may reach now. */
export interface StoredSession {
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  user: { id: string; name: string; email: string | null; serverAdmin: boolean; memberships: Membership[] } | null;
  key: { id: string; projectId: string; role: Role; name: string; prefix: string; serverAdmin: boolean } | null;
}

/**
 * Server-side sessions of the dashboard (PostgreSQL). Sessions are found by the SHA-256 of their
 * token; the token itself is never stored.
 */
export interface SessionStore {
  create(tokenHash: Buffer, subject: SessionSubject, csrfToken: string, expiresAt: Date): Promise<void>;
  /**
   * The session of this hash if it is live: before its absolute expiry, seen within `idleMs`,
   * and, for a key's session, the key not revoked. Null otherwise.
   */
  find(tokenHash: Buffer, idleMs: number): Promise<StoredSession | null>;
  /** Records a request now (the idle clock restarts). */
  touch(tokenHash: Buffer): Promise<void>;
  delete(tokenHash: Buffer): Promise<void>;
  /** Removes sessions past either expiry; how many. */
  deleteExpired(idleMs: number): Promise<number>;
}
