import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { ForbiddenError, ServiceUnavailableError, UnauthorizedError, isInfrastructureFailure } from '../errors.js';
import { ALL_PERMISSIONS, ANONYMOUS, ROLE_PERMISSIONS, ROLES, type Permission, type Principal } from '../principal.js';
import { projectIdFrom, requireProjectId, type HeaderBag, type QueryBag } from '../project-context.js';
import type { KeyStore, StoredKey } from '../store/postgres/key-store.js';
import { keyMatches, keyPrefix } from './api-key.js';

/** Who is calling, for which project, allowed to do what: the typed request state. */
export interface AuthContext {
  principal: Principal;
  projectId: string;
  permissions: ReadonlySet<Permission>;
  /** The projects this credential may reach; null: any (`AUTH_MODE=none`). */
  reach: readonly string[] | null;
}

export interface AuthOptions {
  /** `required`: every call needs a key or token; `none`: anyone, as an admin (local experiments only). */
  mode: 'required' | 'none';
  keys: Pick<KeyStore, 'findByPrefix' | 'touchKeys'>;
  /** HS256 secret for bearer tokens (at least 32 characters); without one, bearer tokens are refused. */
  jwtSecret?: string;
  /** How long a key lookup is reused: a key revoked by another process stops working within this. */
  cacheTtlMs: number;
}

export interface Authenticator {
  /** `required` or `none` (AUTH_MODE): public, so a client (the dashboard) knows whether to ask for a key. */
  readonly mode: AuthOptions['mode'];
  /**
   * Resolves the caller from headers (HTTP headers or gRPC metadata, lower-case names) and query.
   * `defaultProjectId`: where `mode: none` puts calls that name no project (the OTLP receivers).
   */
  authenticate(headers: HeaderBag, query?: QueryBag, defaultProjectId?: string): Promise<AuthContext>;
  /** Drops what this process remembers of a key (revoked or created here: effective at once). */
  forget(prefix: string): void;
  close(): Promise<void>;
}

/** The SPEC's 403 when a token can reach several projects and the call names none. */
const WORKSPACE_REQUIRED = 'Workspace context required for this operation (provide the workspace header or query parameter)';
const MAX_CACHED_KEYS = 10_000;
const TOUCH_EVERY_MS = 60_000;

const ClaimsSchema = z
  .object({
    sub: z.string().min(1).max(256),
    role: z.enum(ROLES),
    project_id: z.string().min(1).max(128).optional(),
    projects: z.array(z.string().min(1).max(128)).min(1).max(1000).optional(),
    exp: z.number(),
  })
  .refine((c) => c.project_id !== undefined || c.projects !== undefined, { message: 'project_id or projects is required' });

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
}

export function createAuthenticator(opts: AuthOptions): Authenticator {
  const secret = opts.jwtSecret ? new TextEncoder().encode(opts.jwtSecret) : undefined;
  const cache = new Map<string, { key: StoredKey | null; until: number }>();
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

  async function storedKey(prefix: string): Promise<StoredKey | null> {
    const hit = cache.get(prefix);
    if (hit && hit.until > Date.now()) return hit.key;
    let pending = lookups.get(prefix);
    if (!pending) {
      pending = opts.keys.findByPrefix(prefix).finally(() => lookups.delete(prefix));
      lookups.set(prefix, pending);
    }
    let key: StoredKey | null;
    try {
      key = await pending;
    } catch (err) {
      if (isInfrastructureFailure(err)) throw new ServiceUnavailableError('metadata', err);
      throw err;
    }
    if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
    cache.set(prefix, { key, until: Date.now() + opts.cacheTtlMs });
    return key;
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

  async function byKey(presented: string, named: string | undefined): Promise<AuthContext> {
    const prefix = keyPrefix(presented);
    const key = prefix ? await storedKey(prefix) : null;
    if (!key || key.revoked || !keyMatches(presented, key.key_hash)) throw new UnauthorizedError();
    used.add(key.id);
    return { principal: { kind: 'api_key', id: key.id }, projectId: projectFor(named, [key.project_id]), permissions: ROLE_PERMISSIONS[key.role], reach: [key.project_id] };
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
    const { sub, role, project_id, projects } = claims.data;
    const allowed = projects ?? [project_id!];
    return { principal: { kind: 'jwt', id: sub }, projectId: projectFor(named, allowed), permissions: ROLE_PERMISSIONS[role], reach: allowed };
  }

  return {
    mode: opts.mode,
    async authenticate(headers, query = {}, defaultProjectId) {
      const named = projectIdFrom(headers, query);
      if (opts.mode === 'none') {
        const projectId = named === undefined && defaultProjectId ? defaultProjectId : requireProjectId(headers, query);
        return { principal: ANONYMOUS, projectId, permissions: ALL_PERMISSIONS, reach: null };
      }
      const apiKey = header(headers, 'x-api-key');
      if (apiKey !== undefined) return byKey(apiKey, named);
      const authorization = header(headers, 'authorization');
      const bearer = authorization && /^Bearer\s+(\S+)$/i.exec(authorization);
      if (bearer) return byToken(bearer[1], named);
      throw new UnauthorizedError();
    },
    forget(prefix) {
      cache.delete(prefix);
    },
    async close() {
      clearInterval(touchTimer);
      await flushTouches();
    },
  };
}
