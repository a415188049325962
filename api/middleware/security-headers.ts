import type { Context, Next } from 'koa';
import { isApiPath } from '../ui.js';

/**
 * The policy of every answer that is not a dashboard page (API JSON, /metrics, health, the
 * dashboard's scripts, styles and files): such an answer is never a document that should run,
 * load or frame anything. A dashboard page gets its own policy from SvelteKit
 * (`kit.csp` in ui/svelte.config.js: `script-src 'self'` plus the hash of its bootstrap script),
 * which replaces this one on the pages it renders (docs/security.md, "Security headers").
 */
export const BASE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The headers every answer of the API's port and the health port carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': BASE_CSP,
  'X-Content-Type-Options': 'nosniff',
  // frame-ancestors 'none' is the standard; X-Frame-Options is for browsers that predate it.
  'X-Frame-Options': 'DENY',
  // Another origin learns only this origin, never a page's path (trace and run ids); same-origin
  // requests keep a real Origin header, which `no-referrer` would turn into `null` on POSTs.
  'Referrer-Policy': 'strict-origin-when-cross-origin',
});

const WITHOUT_CSP: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(SECURITY_HEADERS).filter(([name]) => name !== 'Content-Security-Policy')),
);

/**
 * A request for a dashboard page (a GET outside the API's paths and the app's files, with no file
 * extension): SvelteKit sets the page's own policy on the 200 it renders. Such an answer must not
 * carry BASE_CSP: on a 304 SvelteKit sets no policy, and the browser would store ours with the
 * cached page and block every script of it on the next load.
 */
function isDashboardPage(ctx: Context): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && !isApiPath(ctx.path) && !ctx.path.startsWith('/_app/') && !/\.[A-Za-z0-9]+$/.test(ctx.path);
}

/**
 * Sets {@link SECURITY_HEADERS} before anything else runs, so errors, 404s and the dashboard's
 * own answers (written straight to the Node response by SvelteKit's handler) carry them too; a
 * dashboard page takes SvelteKit's policy instead of BASE_CSP.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    ctx.set(isDashboardPage(ctx) ? WITHOUT_CSP : SECURITY_HEADERS);
    await next();
  };
}
