import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, ServiceUnavailableError, isInfrastructureFailure } from '../errors.js';
import { ALL_PERMISSIONS, ROLE_PERMISSIONS, type Principal, type Role } from '../principal.js';
import type { SessionStore, SessionSubject, StoredSession } from '../store/sessions.js';
import type { AuthContext } from './authenticator.js';

/**
 * The dashboard's server-side sessions (docs/security.md, "Signing in"). A browser holds a random
 * token in an HttpOnly cookie; the store keeps its SHA-256, the subject (a user or an API key),
 * a CSRF token and the times. A session ends at its absolute expiry, after `idleMs` without a
 * request, at sign-out, or (a key's) when its key is revoked.
 */
export interface SessionOptions {
  store: SessionStore;
  /** Idle time after which a session ends (SESSION_IDLE_MINUTES). */
  idleMs: number;
  /** Absolute lifetime of a session (SESSION_MAX_HOURS). */
  maxMs: number;
}

/** A session just started: the token goes into the cookie and nowhere else. */
export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** A live session: who it is, what it may reach, and its CSRF token. */
export interface LiveSession {
  principal: Principal;
  csrfToken: string;
  /** The session's end if no request comes before it: the idle expiry, or the absolute one if sooner. */
  idleExpiresAt: Date;
  expiresAt: Date;
  /** The projects the subject may reach and the role in each; null: every project, as admin (a server admin). */
  roles: ReadonlyMap<string, Role> | null;
  user: StoredSession['user'];
  key: StoredSession['key'];
  /** The request's auth context for the project it names (403 for one it cannot reach). */
  contextFor(namedProject: string | undefined): AuthContext;
}

export interface Sessions {
  readonly idleMs: number;
  readonly maxMs: number;
  start(subject: SessionSubject): Promise<NewSession>;
  /** The live session of a cookie's token, or null (unknown, expired, signed out, key revoked). */
  resolve(token: string): Promise<LiveSession | null>;
  /** Ends the session of this token (sign-out); nothing when there is none. */
  end(token: string): Promise<void>;
}

/** Sessions are not seen again sooner than this: the idle clock is kept to the minute. */
const TOUCH_EVERY_MS = 60_000;
/** A token's shape: 32 random bytes, base64url. Anything else is never looked up. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest();
const randomToken = () => randomBytes(32).toString('base64url');

/** Whether a presented CSRF token is the session's, compared in constant time. */
export function csrfMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A store that is down is a 503, never a sign-out. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isInfrastructureFailure(err)) throw new ServiceUnavailableError('metadata', err);
    throw err;
  }
}

const NO_PROJECT_YET = 'This account has no role in any project yet: a project admin grants one (Settings, Members)';

function rolesOf(stored: StoredSession): Map<string, Role> | null {
  if (stored.key) return new Map([[stored.key.projectId, stored.key.role]]);
  if (stored.user!.serverAdmin) return null;
  return new Map(stored.user!.memberships.map((m) => [m.project_id, m.role]));
}

/** The session's principal: its key's, as the key itself would be, or the person's (a server admin by OIDC_ADMIN_EMAILS). */
function principalOf(stored: StoredSession): Principal {
  if (stored.key) return { kind: 'api_key', id: stored.key.id, keyName: stored.key.name, serverAdmin: stored.key.serverAdmin };
  return { kind: 'user', id: stored.user!.id, name: stored.user!.name, serverAdmin: stored.user!.serverAdmin };
}

/** The auth context of a session for the project a request names (the rules of keys and tokens). */
function contextOf(principal: Principal, roles: ReadonlyMap<string, Role> | null, named: string | undefined): AuthContext {
  if (roles === null) {
    if (named === undefined)
      throw new ForbiddenError(
        'Workspace context required for this operation (provide the workspace header or query parameter)',
        'Provide the x-project-id header or the project_id query parameter',
      );
    return { principal, projectId: named, permissions: ALL_PERMISSIONS, reach: null };
  }
  const reach = [...roles.keys()];
  if (named !== undefined) {
    const role = roles.get(named);
    if (!role) throw new ForbiddenError(`this account has no access to project ${named.slice(0, 128)}`, 'Ask a project admin for a role in this project');
    return { principal, projectId: named, permissions: ROLE_PERMISSIONS[role], reach };
  }
  if (reach.length === 1) return { principal, projectId: reach[0], permissions: ROLE_PERMISSIONS[roles.get(reach[0])!], reach };
  if (reach.length === 0) throw new ForbiddenError(NO_PROJECT_YET, 'Ask a project admin for a role');
  throw new ForbiddenError(
    'Workspace context required for this operation (provide the workspace header or query parameter)',
    'Provide the x-project-id header or the project_id query parameter',
  );
}

export function createSessions(opts: SessionOptions): Sessions {
  const { store, idleMs, maxMs } = opts;
  return {
    idleMs,
    maxMs,
    async start(subject) {
      const token = randomToken();
      const csrfToken = randomToken();
      const expiresAt = new Date(Date.now() + maxMs);
      await guarded(async () => {
        // Sign-ins are rare: each one sweeps the sessions that ended by themselves.
        await store.deleteExpired(idleMs);
        await store.create(hashToken(token), subject, csrfToken, expiresAt);
      });
      return { token, csrfToken, expiresAt };
    },

    async resolve(token) {
      if (!TOKEN_PATTERN.test(token)) return null;
      const hash = hashToken(token);
      const stored = await guarded(() => store.find(hash, idleMs));
      if (!stored) return null;
      let seen = stored.lastSeenAt;
      if (Date.now() - seen.getTime() >= TOUCH_EVERY_MS) {
        await guarded(() => store.touch(hash));
        seen = new Date();
      }
      const principal = principalOf(stored);
      const roles = rolesOf(stored);
      return {
        principal,
        csrfToken: stored.csrfToken,
        expiresAt: stored.expiresAt,
        idleExpiresAt: new Date(Math.min(seen.getTime() + idleMs, stored.expiresAt.getTime())),
        roles,
        user: stored.user,
        key: stored.key,
        contextFor: (named) => contextOf(principal, roles, named),
      };
    },

    async end(token) {
      if (TOKEN_PATTERN.test(token)) await guarded(() => store.delete(hashToken(token)));
    },
  };
}
