import type { Role } from '../principal.js';
import type { MemberView, UserView } from '../model/user.js';

/*
 * People signed in with OpenID Connect and their roles per project (PostgreSQL, migration 014;
 * store/postgres/user-store.ts implements it; docs/security.md, "Signing in").
 *
 * Promises:
 * - A user is keyed by (issuer, subject): signing in again refreshes the same user, never makes a
 *   second one, and the first grant is given only once.
 * - `setRole` and `removeMember` are idempotent in effect (the last write wins); every write
 *   resolves once committed, and a role change is seen by the next read of any process.
 */

/** Who the OpenID provider says signed in, and what this service decided about them. */
export interface SignInInput {
  issuer: string;
  subject: string;
  name: string;
  email: string | null;
  serverAdmin: boolean;
}

/** A project role. */
export interface Membership {
  project_id: string;
  role: Role;
}

/**
 * Users (people signed in with OpenID Connect) and their roles per project (PostgreSQL).
 */
export interface UserStore {
  /**
   * Creates the user of (issuer, subject), or refreshes their name, email and server-admin flag
   * from this sign-in. On the first sign-in only, `firstGrant` (OIDC_DEFAULT_ROLE) is given.
   */
  signIn(input: SignInInput, firstGrant?: Membership): Promise<{ user: UserView; created: boolean }>;
  get(id: string): Promise<UserView | null>;
  /** The user with this email (case-insensitive); the most recently signed-in one if several. */
  findByEmail(email: string): Promise<UserView | null>;
  memberships(userId: string): Promise<Membership[]>;
  members(projectId: string): Promise<MemberView[]>;
  /** Gives (or changes) a role; `previous` is the role before, null when the user had none. */
  setRole(projectId: string, userId: string, role: Role, grantedBy: string | null): Promise<{ member: MemberView; previous: Role | null }>;
  /** Takes the user's role in the project away; the role they had, or null when they had none. */
  removeMember(projectId: string, userId: string): Promise<Role | null>;
}
