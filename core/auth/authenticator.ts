import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { ForbiddenError, ServiceUnavailableError, UnauthorizedError, isInfrastructureFailure } from '../errors.js';
import { ALL_PERMISSIONS, ANONYMOUS, ROLE_PERMISSIONS, ROLES, type Permission, type Principal } from '../principal.js';
import { projectIdFrom, requireProjectId, type HeaderBag, type QueryBag } from '../project-context.js';
import type { KeyStore, StoredKey } from '../store/keys.js';
import { keyMatches, keyPrefix } from './api-key.js';
import type { AuthThrottle } from './auth-throttle.js';
import { clientAddress } from './client-address.js';

/** Who is calling, for which project, allowed to do what: the typed request state. */
export interface AuthContext {
  principal: Principal;
  projectId: string;
  permissions: ReadonlySet<Permission>;
  /** The projects this credential may reach; null: any (`AUTH_MODE=none`). */
  reach: readonly string[] | null;
  /** Where the call came from (core/auth/client-address.ts), when the caller passed the connection's peer. */
  clientAddress?: string;
}

export interface AuthOptions {
  /** `required`: every call needs a key or token; `none`: anyone, as an admin (local experiments only). */
  mode: 'required' | 'none';
  keys: Pick<KeyStore, 'findByPrefix' | 'touchKeys'>;
  /** HS256 secret for bearer tokens (at least 32 characters); without one, bearer tokens are refused. */
  jwtSecret?: string;
  /** How long a key lookup is reused: a key revoked by another process stops working within this. */
  cacheTtlMs: number;
  /**
   * Ingest only: how long after its last successful lookup a key still lets spans in while
   * PostgreSQL cannot be read (AUTH_INGEST_GRACE_MS, default INGEST_GRACE_MS; 0: never). docs/security.md.
   */
  ingestGraceMs?: number;
  /** Failed authentication, throttled per client address and key prefix (absent: not throttled). */
  throttle?: AuthThrottle;
  /** TRUST_PROXY_HOPS: how many proxies of the operator's add to X-Forwarded-For (default 0: the peer only). */
  trustProxyHops?: number;
}

export interface Authenticator {
  /** `required` or `none` (AUTH_MODE): public, so a client (the dashboard) knows whether to ask for a key. */
  readonly mode: AuthOptions['mode'];
  /**
   * Resolves the caller from headers (HTTP headers or gRPC metadata, lower-case names) and query.
   * `defaultProjectId`: where `mode: none` puts calls that name no project (the OTLP receivers).
   * `peer`: the connection's remote address, so failures are throttled per client address
   * (docs/security.md, "Failed authentication") and the result names it (`clientAddress`).
   * `use`: `ingest` for calls that only write spans (JSON ingest, OTLP): a key verified within
   * `ingestGraceMs` stands while PostgreSQL cannot be read (stale-if-error), and such a call
   * waits at most STALE_WAIT_MS for a lookup it could do without.
   */
  authenticate(headers: HeaderBag, query?: QueryBag, defaultProjectId?: string, peer?: string, use?: 'ingest'): Promise<AuthContext>;
  /** The client's address from the connection's peer and, behind TRUST_PROXY_HOPS proxies, X-Forwarded-For. */
  clientAddress(headers: HeaderBag, peer: string | undefined): string | undefined;
  /** Drops what this process remembers of a key (revoked or created here: effective at once). */
  forget(prefix: string): void;
  close(): Promise<void>;
}

/** The SPEC's 403 when a token can reach several projects and the call names none. */
const WORKSPACE_REQUIRED = 'Workspace context required for this operation (provide the workspace header or query parameter)';
const MAX_CACHED_KEYS = 10_000;
const TOUCH_EVERY_MS = 60_000;
/** How long a key verified before an outage of PostgreSQL keeps letting spans in, by default (AUTH_INGEST_GRACE_MS; docs/security.md). */
export const INGEST_GRACE_MS = 15 * 60_000;
/** How long an ingest call waits for a key lookup when an earlier verification can stand in. */
export const STALE_WAIT_MS = 250;
/** After a failed lookup, ingest calls with an earlier verification do not ask again for this long. */
const RETRY_AFTER_FAILURE_MS = 1000;

/** A lookup remembered: `until` the TTL, `verifiedAt` when PostgreSQL last answered it, `retryAt` after a failed refresh. */
interface CachedKey {
  key: StoredKey | null;
  until: number;
  verifiedAt: number;
  retryAt: number;
}

const ClaimsSchema = z
  .object({
    sub: z.string().min(1).max(256),
    role: z.enum(ROLES),
    project_id: z.string().min(1).max(128).optional(),
    projects: z.array(z.string().min(1).max(128)).min(1).max(1000).optional(),
    exp: z.number(),
    /** Optional: a server admin (docs/security.md, "Server admins"). */
    server_admin: z.boolean().optional(),
    /** Optional: the person's display name, as audit entries record it. */
    name: z.string().max(256).optional(),
  })
  .refine((c) => c.project_id !== undefined || c.projects !== undefined, { message: 'project_id or projects is required' });

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
}

export function createAuthenticator(opts: AuthOptions): Authenticator {
  const secret = opts.jwtSecret ? new TextEncoder().encode(opts.jwtSecret) : undefined;
  const cache = new Map<string, CachedKey>();
  const graceMs = opts.ingestGraceMs ?? INGEST_GRACE_MS;
  const lookups = new Map<string, Promise<StoredKey | null>>();
  const used = new Set<string>();
  const touchTimer = setInterval(() => void flushTouches(), TOUCH_EVERY_MS);
  touchTimer.unref();

  async function flushTouches(): Promise<void> {
    if (!used.size) return;
    const ids = [...used];
    used.clear();
    // Best effort: last-used times must never fail or slow a request.
    await opts.keys.touchKeys(ids).catch(() => undefined);
  }

  /** One lookup of a prefix at a time, remembered when PostgreSQL answers (also after its caller stopped waiting). */
  function lookup(prefix: string): Promise<StoredKey | null> {
    let pending = lookups.get(prefix);
    if (pending) return pending;
    pending = opts.keys.findByPrefix(prefix).then(
      (key) => {
        if (!cache.has(prefix) && cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
        const now = Date.now();
        cache.set(prefix, { key, until: now + opts.cacheTtlMs, verifiedAt: now, retryAt: 0 });
        return key;
      },
      (err: unknown) => {
        const known = cache.get(prefix);
        if (known) known.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
        throw err;
      },
    );
    pending = pending.finally(() => lookups.delete(prefix));
    // A lookup an ingest call stopped waiting for may fail with nobody listening.
    pending.catch(() => undefined);
    lookups.set(prefix, pending);
    return pending;
  }

  /**
   * The stored key of a prefix: cached for the TTL, else looked up. For ingest, a key found
   * within the grace period stands in when the lookup fails for an outage, is not due again
   * yet, or takes longer than STALE_WAIT_MS (it still completes and refreshes the cache).
   */
  async function storedKey(prefix: string, ingest: boolean): Promise<StoredKey | null> {
    const hit = cache.get(prefix);
    const now = Date.now();
    if (hit && hit.until > now) return hit.key;
    const stale = ingest && hit?.key && graceMs > 0 && now - hit.verifiedAt <= graceMs ? hit : undefined;
    if (stale && stale.retryAt > now) return stale.key;
    const pending = lookup(prefix);
    try {
      if (!stale) return await pending;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<typeof stale>((resolve) => {
        timer = setTimeout(() => resolve(stale), STALE_WAIT_MS);
        timer.unref();
      });
      const first = await Promise.race([pending, waited]).finally(() => clearTimeout(timer));
      return first === stale ? stale.key : (first as StoredKey | null);
    } catch (err) {
      if (!isInfrastructureFailure(err)) throw err;
      if (stale) return stale.key;
      throw new ServiceUnavailableError('metadata', err);
    }
  }

  /** The project a call names must be one the credential may reach (403 otherwise, SPEC). */
  function projectFor(named: string | undefined, allowed: readonly string[]): string {
    if (named !== undefined) {
      if (!allowed.includes(named)) throw new ForbiddenError(`this credential has no access to project ${named.slice(0, 128)}`);
      return named;
    }
    if (allowed.length === 1) return allowed[0];
    throw new ForbiddenError(WORKSPACE_REQUIRED, 'Provide the x-project-id header or the project_id query parameter');
  }

  async function byKey(presented: string, named: string | undefined, ingest: boolean): Promise<AuthContext> {
    const prefix = keyPrefix(presented);
    const key = prefix ? await storedKey(prefix, ingest) : null;
    if (!key || key.revoked || !keyMatches(presented, key.key_hash)) throw new UnauthorizedError();
    used.add(key.id);
    return {
      principal: { kind: 'api_key', id: key.id, keyName: key.name, serverAdmin: key.server_admin },
      projectId: projectFor(named, [key.project_id]),
      permissions: ROLE_PERMISSIONS[key.role],
      reach: [key.project_id],
    };
  }

  async function byToken(token: string, named: string | undefined): Promise<AuthContext> {
    if (!secret) throw new UnauthorizedError('Bearer tokens are not accepted by this server (no JWT_SECRET)');
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] }));
    } catch (err) {
      throw new UnauthorizedError(err instanceof joseErrors.JWTExpired ? 'Token expired' : 'Valid authentication required');
    }
    const claims = ClaimsSchema.safeParse(payload);
    if (!claims.success) throw new UnauthorizedError(`Token claims invalid: ${claims.error.issues[0].message}`);
    const { sub, role, project_id, projects, server_admin, name } = claims.data;
    const allowed = projects ?? [project_id!];
    return {
      principal: { kind: 'jwt', id: sub, name, serverAdmin: server_admin === true },
      projectId: projectFor(named, allowed),
      permissions: ROLE_PERMISSIONS[role],
      reach: allowed,
    };
  }

  function byCredentials(headers: HeaderBag, named: string | undefined, ingest: boolean): Promise<AuthContext> {
    const apiKey = header(headers, 'x-api-key');
    if (apiKey !== undefined) return byKey(apiKey, named, ingest);
    const authorization = header(headers, 'authorization');
    const bearer = authorization && /^Bearer\s+(\S+)$/i.exec(authorization);
    if (bearer) return byToken(bearer[1], named);
    throw new UnauthorizedError();
  }

  const addressOf = (headers: HeaderBag, peer: string | undefined) => clientAddress(peer, headers, opts.trustProxyHops ?? 0);

  return {
    mode: opts.mode,
    async authenticate(headers, query = {}, defaultProjectId, peer, use) {
      const ingest = use === 'ingest';
      const named = projectIdFrom(headers, query);
      const address = addressOf(headers, peer);
      if (opts.mode === 'none') {
        const projectId = named === undefined && defaultProjectId ? defaultProjectId : requireProjectId(headers, query);
        return { principal: ANONYMOUS, projectId, permissions: ALL_PERMISSIONS, reach: null, clientAddress: address };
      }
      // Only a credential presented counts as a failure: a call with none is no guess.
      const credential = header(headers, 'x-api-key') ?? header(headers, 'authorization');
      const throttle = opts.throttle;
      if (!throttle || credential === undefined) return { ...(await byCredentials(headers, named, ingest)), clientAddress: address };
      throttle.admit(address, credential);
      try {
        const caller = await byCredentials(headers, named, ingest);
        throttle.succeeded(address, credential);
        return { ...caller, clientAddress: address };
      } catch (err) {
        if (!(err instanceof UnauthorizedError)) throw err;
        const apiKey = header(headers, 'x-api-key');
        throw throttle.failed(address, apiKey === undefined ? undefined : keyPrefix(apiKey), err);
      }
    },
    clientAddress: addressOf,
    forget(prefix) {
      cache.delete(prefix);
    },
    async close() {
      clearInterval(touchTimer);
      await flushTouches();
    },
  };
}
