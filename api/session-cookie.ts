import type { Context } from 'koa';
import { BadRequestError } from '../core/errors.js';

/**
 * The dashboard's cookies (docs/security.md, "Signing in"): the session's, and the OIDC attempt's
 * between the two legs of a sign-in. Both HttpOnly, SameSite=Lax, Path=/. Over https they are
 * Secure and named with the `__Host-` prefix (the browser then refuses them from a sibling
 * subdomain or over http, so nobody can plant one); over plain http only a loopback host may
 * sign in, and gets them without Secure (a browser drops a Secure cookie of a plain http page).
 */
export const SESSION_COOKIE = 'agent-eval-session';
export const OIDC_COOKIE = 'agent-eval-oidc';

/** How a request's cookies travel: `secure` over https (X-Forwarded-Proto behind a proxy), `loopback` over plain http to this machine. */
export type CookieTransport = 'secure' | 'loopback';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/;

/** The request's transport, or null: plain http to another host, where no session cookie is given. */
export function cookieTransport(ctx: Context): CookieTransport | null {
  if (ctx.secure) return 'secure';
  return LOOPBACK.test(ctx.hostname) ? 'loopback' : null;
}

/** The transport, or the 400 that says why signing in is refused here. */
export function signInTransport(ctx: Context): CookieTransport {
  const transport = cookieTransport(ctx);
  if (!transport) {
    throw new BadRequestError(
      'Signing in needs https: serve the dashboard over https (behind a proxy, have it send X-Forwarded-Proto: https), or open it on localhost',
      'INSECURE_TRANSPORT',
    );
  }
  return transport;
}

const nameFor = (base: string, transport: CookieTransport) => (transport === 'secure' ? `__Host-${base}` : base);

/** The value of cookie `base` (its name for this request's transport), if the browser sent one. */
export function readCookie(ctx: Context, base: string): string | undefined {
  const transport = cookieTransport(ctx);
  if (!transport) return undefined;
  const name = nameFor(base, transport);
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Sets cookie `base` (values are base64url: nothing to escape) for `maxAgeSeconds`; 0 removes it. */
export function setCookie(ctx: Context, base: string, value: string, maxAgeSeconds: number, transport: CookieTransport): void {
  const flags = ['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`];
  if (transport === 'secure') flags.push('Secure');
  ctx.append('Set-Cookie', `${nameFor(base, transport)}=${value}; ${flags.join('; ')}`);
}

/** Removes cookie `base` from the browser (when this request's transport can carry it). */
export function clearCookie(ctx: Context, base: string): void {
  const transport = cookieTransport(ctx);
  if (transport) setCookie(ctx, base, '', 0, transport);
}
