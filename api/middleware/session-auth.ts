import type { Context } from 'koa';
import type { AuthContext } from '../../core/auth/authenticator.js';
import { csrfMatches, type LiveSession, type Sessions } from '../../core/auth/sessions.js';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import { projectIdFrom } from '../../core/project-context.js';
import { readCookie, SESSION_COOKIE } from '../session-cookie.js';

/** Methods that change nothing: they need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header the dashboard sends its session's CSRF token in (GET /api/auth/session gives it). */
export const CSRF_HEADER = 'x-csrf-token';

const CSRF_HINT = 'Send the X-CSRF-Token header with the csrf_token of GET /api/auth/session, or call with an API key';

/**
 * This service's origin as the browser sees it (`X-Forwarded-Proto` / `-Host` behind a proxy).
 * Not Koa's `ctx.origin`: in Koa 3 that is the request's own `Origin` header.
 */
export function ownOrigin(ctx: Context): string {
  return `${ctx.protocol}://${ctx.host}`;
}

/** Whether the request carries a credential of its own (an API key or a bearer token): then the cookie is not read. */
export function hasCredentialHeader(ctx: Context): boolean {
  return Boolean(ctx.get('x-api-key') || ctx.get('authorization'));
}

/**
 * A request made with the session cookie must come from this origin's own pages (CSRF):
 *  - `Sec-Fetch-Site`, when the browser sends it, is `same-origin` or `none` (typed in): a link,
 *    form or script of another site, even a top-level GET navigation, never uses the session;
 *  - a state-changing method carries the session's token in X-CSRF-Token (compared in constant
 *    time), and its `Origin`, when sent, is this origin.
 * An API key or bearer token request never gets here: a browser does not add those by itself.
 */
export function checkSameOrigin(ctx: Context, session: Pick<LiveSession, 'csrfToken'>): void {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') {
    throw new ForbiddenError(`a ${site} request cannot use the dashboard's session`, CSRF_HINT, 'CSRF_REFUSED');
  }
  if (SAFE_METHODS.has(ctx.method)) return;
  const origin = ctx.get('origin');
  if (origin && origin !== ownOrigin(ctx)) throw new ForbiddenError(`cross-origin request refused (Origin ${origin.slice(0, 200)})`, CSRF_HINT, 'CSRF_REFUSED');
  if (!csrfMatches(ctx.get(CSRF_HEADER) || undefined, session.csrfToken)) {
    throw new ForbiddenError('CSRF token missing or invalid: a request signed in with the session cookie must send X-CSRF-Token', CSRF_HINT, 'CSRF_REFUSED');
  }
}

/**
 * The caller of a request that brings the session cookie and no credential header: the session's
 * subject for the project it names (401 when the session is over, 403 across sites or without the
 * CSRF token). Undefined when there is no cookie: the caller is then the authenticator's to find.
 */
export async function sessionCaller(ctx: Context, sessions: Sessions): Promise<AuthContext | undefined> {
  if (hasCredentialHeader(ctx)) return undefined;
  const token = readCookie(ctx, SESSION_COOKIE);
  if (!token) return undefined;
  const live = await sessions.resolve(token);
  if (!live) throw new UnauthorizedError('Your session has ended (signed out, expired, or its key revoked): sign in again');
  checkSameOrigin(ctx, live);
  return live.contextFor(projectOfPath(ctx.path) ?? projectIdFrom(ctx.headers, ctx.query));
}

/**
 * The project a /api/projects/{id}/... route acts on. A person's role differs per project, so such
 * a route is judged by their role in that project, whatever project the header names: an admin
 * of A who is a viewer of B cannot manage B's keys or members by naming A.
 */
export function projectOfPath(path: string): string | undefined {
  const m = /^\/api\/projects\/([^/]+)/.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}
