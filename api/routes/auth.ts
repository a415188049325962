import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { auditActor, type AuditClient } from '../../core/audit/audit-log.js';
import { isAdminIdentity, OidcError, type OidcAttempt } from '../../core/auth/oidc.js';
import type { LiveSession } from '../../core/auth/sessions.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { Role } from '../../core/principal.js';
import type { SessionSubject } from '../../core/store/sessions.js';
import type { AuthState, SessionView } from '../../core/model/user.js';
import { validate } from '../../core/validate.js';
import type { ApiDeps } from '../deps.js';
import { operation } from '../middleware/errors.js';
import { jsonBody } from '../middleware/json-body.js';
import { requestText } from '../middleware/request-text.js';
import { checkSameOrigin, ownOrigin } from '../middleware/session-auth.js';
import { clearCookie, OIDC_COOKIE, readCookie, SESSION_COOKIE, setCookie, signInTransport, type CookieTransport } from '../session-cookie.js';

/** How long a started OIDC sign-in may take at the provider. */
const OIDC_ATTEMPT_SECONDS = 600;
/** Where a sign-in lands unless the sign-in page named another page. */
const DEFAULT_NEXT = '/traces';

export const KeySignInSchema = z.strictObject({ key: z.string().min(1, 'is required').max(200) });

/** The OIDC attempt's cookie: what the callback checks, and where to go afterwards. */
const AttemptCookieSchema = z.object({ state: z.string(), nonce: z.string(), verifier: z.string(), next: z.string() });

/** A page of this dashboard to go to after signing in: a local path only, never the API or another site. */
export function safeNext(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2000) return DEFAULT_NEXT;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/api') || raw.startsWith('/signin')) return DEFAULT_NEXT;
  // A backslash reads as a slash to browsers (`/\\evil.example`); control characters have no place in a path.
  return [...raw].some((c) => c === '\\' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ? DEFAULT_NEXT : raw;
}

/** A browser sign-in must come from this origin's pages: a login CSRF would sign the victim in as the attacker. */
function checkSignInOrigin(ctx: Context): void {
  const origin = ctx.get('origin');
  const site = ctx.get('sec-fetch-site');
  if ((origin && origin !== ownOrigin(ctx)) || (site && site !== 'same-origin' && site !== 'none')) {
    throw new ForbiddenError("a sign-in must come from this dashboard's own page", "Sign in on this service's /signin page", 'CSRF_REFUSED');
  }
}

/** A listening port, or null for none (0: not listening). */
const port = (n: number | undefined): number | null => (n && n > 0 ? n : null);

/** /api/auth: the dashboard's sign-in (OpenID Connect or an API key), its session, sign-out (docs/security.md, "Signing in"). */
export function authRouter(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/api/auth' });
  // The door rules of every API route (control characters in the path or a query value: 400/422), here too.
  router.use(requestText());
  const { sessions, oidc } = deps;

  /** The session as GET /api/auth/session shows it: who, what they reach, the CSRF token, when it ends. */
  async function sessionView(live: LiveSession): Promise<SessionView> {
    const list = await deps.metadata.keys.listProjects(live.roles === null ? undefined : [...live.roles.keys()]);
    const role = (id: string): Role => live.roles?.get(id) ?? 'admin';
    return {
      kind: live.principal.kind === 'user' ? 'user' : 'api_key',
      user: live.user && { id: live.user.id, name: live.user.name, email: live.user.email, server_admin: live.user.serverAdmin },
      key: live.key && { id: live.key.id, name: live.key.name, prefix: live.key.prefix, project_id: live.key.projectId, role: live.key.role },
      projects: list.map((p) => ({ ...p, role: role(p.id) })),
      csrf_token: live.csrfToken,
      expires_at: live.expiresAt.toISOString(),
      idle_expires_at: live.idleExpiresAt.toISOString(),
    };
  }

  /** Where the request came from, as the audit log records it (behind TRUST_PROXY_HOPS proxies). */
  const clientOf = (ctx: Context): AuditClient => ({
    address: deps.auth.clientAddress(ctx.headers, ctx.req.socket.remoteAddress) ?? null,
    userAgent: ctx.get('user-agent') || null,
  });

  /** Ends the session this browser holds, if any (a new sign-in never reuses one: no fixation). */
  async function endCurrent(ctx: Context): Promise<void> {
    const token = readCookie(ctx, SESSION_COOKIE);
    if (token && sessions) await sessions.end(token);
  }

  /** Starts a session for `subject`, sets its cookie and returns it. */
  async function startSession(ctx: Context, transport: CookieTransport, subject: SessionSubject): Promise<LiveSession> {
    await endCurrent(ctx);
    const started = await sessions!.start(subject);
    setCookie(ctx, SESSION_COOKIE, started.token, sessions!.maxMs / 1000, transport);
    return (await sessions!.resolve(started.token))!;
  }

  router.get('/session', operation('fetch session', 'metadata'), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const token = deps.auth.mode === 'required' ? readCookie(ctx, SESSION_COOKIE) : undefined;
    const live = token && sessions ? await sessions.resolve(token) : null;
    if (token && !live) clearCookie(ctx, SESSION_COOKIE);
    if (live) checkSameOrigin(ctx, live);
    ctx.body = {
      auth_mode: deps.auth.mode,
      sign_in: { api_key: deps.auth.mode === 'required', oidc: deps.auth.mode === 'required' && oidc ? { name: oidc.name } : null },
      session: live ? await sessionView(live) : null,
      ingest: { otlp_grpc_port: port(deps.otlpPorts?.grpc), otlp_http_port: port(deps.otlpPorts?.http) },
    } satisfies AuthState;
  });

  router.post('/key', operation('sign in', 'metadata'), jsonBody(4096), async (ctx) => {
    if (deps.auth.mode === 'none' || !sessions)
      throw new BadRequestError('This service runs with AUTH_MODE=none: there is nothing to sign in to', 'AUTH_DISABLED');
    checkSignInOrigin(ctx);
    const transport = signInTransport(ctx);
    const { key } = validate(KeySignInSchema, ctx.request.body);
    // The key is checked as on every call (401 when wrong or revoked, failures throttled per
    // client address), then only its id is kept.
    const headers = { 'x-api-key': key, 'x-forwarded-for': ctx.get('x-forwarded-for') || undefined };
    const caller = await deps.auth.authenticate(headers, {}, undefined, ctx.req.socket.remoteAddress);
    const live = await startSession(ctx, transport, { apiKeyId: caller.principal.id });
    await deps.audit.record({
      actor: auditActor(live.principal),
      action: 'user.signed_in',
      projectId: live.key!.projectId,
      target: live.key!.id,
      details: { method: 'api_key' },
      client: clientOf(ctx),
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await sessionView(live);
  });

  router.get('/oidc/start', operation('sign in', 'metadata'), async (ctx) => {
    if (!oidc || !sessions || deps.auth.mode === 'none')
      throw new NotFoundError('Sign-in with OpenID Connect is not configured (OIDC_ISSUER)', 'OIDC_NOT_CONFIGURED');
    const transport = signInTransport(ctx);
    try {
      const { url, attempt } = await oidc.begin();
      const cookie = Buffer.from(JSON.stringify({ ...attempt, next: safeNext(ctx.query.next) })).toString('base64url');
      setCookie(ctx, OIDC_COOKIE, cookie, OIDC_ATTEMPT_SECONDS, transport);
      ctx.redirect(url);
    } catch (err) {
      if (!(err instanceof OidcError)) throw err;
      deps.logger.warn({ err }, 'OIDC sign-in could not start');
      ctx.redirect(`/signin?error=${err.reason}`);
    }
  });

  router.get('/oidc/callback', operation('sign in', 'metadata'), async (ctx) => {
    if (!oidc || !sessions || deps.auth.mode === 'none')
      throw new NotFoundError('Sign-in with OpenID Connect is not configured (OIDC_ISSUER)', 'OIDC_NOT_CONFIGURED');
    const transport = signInTransport(ctx);
    const attempt = attemptOf(readCookie(ctx, OIDC_COOKIE));
    clearCookie(ctx, OIDC_COOKIE);
    try {
      if (!attempt) throw new OidcError('expired', 'no sign-in attempt in this browser (it took over 10 minutes, or started elsewhere)');
      const identity = await oidc.finish(ctx.querystring, attempt);
      const settings = deps.config.oidc!;
      const defaultRole = settings.defaultRole;
      const firstGrant = defaultRole ? { project_id: (await deps.metadata.ensureDefaultProject()).id, role: defaultRole } : undefined;
      const { user, created } = await deps.metadata.users.signIn({ ...identity, serverAdmin: isAdminIdentity(identity, settings.adminEmails) }, firstGrant);
      const live = await startSession(ctx, transport, { userId: user.id });
      await deps.audit.record({
        actor: auditActor(live.principal),
        action: 'user.signed_in',
        target: user.id,
        details: {
          method: 'oidc',
          issuer: identity.issuer,
          email: user.email,
          server_admin: user.server_admin,
          first_sign_in: created,
          ...(created && firstGrant ? { granted: firstGrant } : {}),
        },
        client: clientOf(ctx),
      });
      ctx.redirect(attempt.next);
    } catch (err) {
      if (!(err instanceof OidcError)) throw err;
      deps.logger.warn({ err, reason: err.reason }, 'OIDC sign-in failed');
      ctx.redirect(`/signin?error=${err.reason}`);
    }
  });

  router.post('/sign-out', operation('sign out', 'metadata'), async (ctx) => {
    const token = readCookie(ctx, SESSION_COOKIE);
    const live = token && sessions ? await sessions.resolve(token) : null;
    if (live) {
      checkSameOrigin(ctx, live);
      await sessions!.end(token!);
      await deps.audit.record({
        actor: auditActor(live.principal),
        action: 'user.signed_out',
        projectId: live.key?.projectId ?? null,
        target: live.user?.id ?? live.key!.id,
        client: clientOf(ctx),
      });
    }
    clearCookie(ctx, SESSION_COOKIE);
    ctx.status = 204;
  });

  return router;
}

/** The attempt in the OIDC cookie, or null when it is missing or not ours. */
function attemptOf(cookie: string | undefined): (OidcAttempt & { next: string }) | null {
  if (!cookie) return null;
  try {
    const parsed = AttemptCookieSchema.safeParse(JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')));
    return parsed.success ? { ...parsed.data, next: safeNext(parsed.data.next) } : null;
  } catch {
    return null;
  }
}
