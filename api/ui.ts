import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';

/** SvelteKit adapter-node's `handler` (ui/build/handler.js): a Node/Polka-style middleware. */
export type UiHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/** Paths the API owns on its port: everything else belongs to the dashboard. */
export function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/') || pathname.startsWith('/v1/') || pathname === '/metrics';
}

/** The dashboard as the service has it: `handler` appears when a background build finishes (runtime/ui.ts). */
export interface UiSource {
  handler: UiHandler | null;
  /** A build is under way (the first `npm start`): dashboard paths say so, with Retry-After. */
  building?: boolean;
}

export const UI_BUILDING =
  'The agent-eval dashboard is being built (the first start takes about a minute); reload this page shortly.\n' +
  'The API is running meanwhile: /api/health, /api/*, /v1/traces.\n';

export const UI_NOT_BUILT =
  'The agent-eval dashboard is not built. Run `npm run build` (or `npm start`, which builds it when missing) and restart the service.\n' +
  'The API is running: /api/health, /api/*, /v1/traces.\n';

/**
 * Hands GET and HEAD requests outside the API's paths to the dashboard (SvelteKit's handler
 * writes the response itself); without a build they get 503 and a sentence saying how to build.
 * Other methods and the API's paths go on to the API.
 */
export function uiMiddleware(source: UiHandler | null | UiSource): Middleware {
  const ui: UiSource = typeof source === 'function' || source === null ? { handler: source } : source;
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) {
      await next();
      return;
    }
    // Read per request: a background build hands its handler over when it finishes.
    const handler = ui.handler;
    if (!handler) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      if (ui.building) ctx.set('Retry-After', '15');
      ctx.body = ui.building ? UI_BUILDING : UI_NOT_BUILT;
      return;
    }
    ctx.respond = false;
    // Koa starts every response at 404; adapter-node reads statusCode (immutable assets get their long cache only at 200).
    ctx.res.statusCode = 200;
    await new Promise<void>((resolve) => {
      ctx.res.once('close', () => resolve());
      ctx.res.once('finish', () => resolve());
      handler(ctx.req, ctx.res, () => {
        // SvelteKit answers every path (client-side routing); should it pass, say so plainly.
        ctx.res.statusCode = 404;
        ctx.res.setHeader('content-type', 'text/plain; charset=utf-8');
        ctx.res.end('Not found\n');
      });
    });
  };
}
