import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';

/** SvelteKit adapter-node's `handler` (ui/build/handler.js): a Node/Polka-style middleware. */
export type UiHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/** Paths the API owns on its port: everything else belongs to the dashboard. */
export function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/') || pathname.startsWith('/v1/') || pathname === '/metrics';
}

export const UI_NOT_BUILT =
  'The agent-eval dashboard is not built. Run `npm run build` (or `npm start`, which builds it when missing) and restart the service.\n' +
  'The API is running: /api/health, /api/*, /v1/traces.\n';

/**
 * Hands GET and HEAD requests outside the API's paths to the dashboard (SvelteKit's handler
 * writes the response itself); without a build they get 503 and a sentence saying how to build.
 * Other methods and the API's paths go on to the API.
 */
export function uiMiddleware(handler: UiHandler | null): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) {
      await next();
      return;
    }
    if (!handler) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = UI_NOT_BUILT;
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
