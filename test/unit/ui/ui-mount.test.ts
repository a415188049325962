import type http from 'node:http';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWithStubApi } from '../../helpers/ui-mount-server.js';
import { isApiPath, uiMiddleware, type UiHandler } from '../../../api/ui.js';

/** The dashboard's place in the API's Koa app: everything but /api, /v1 and /metrics. */
describe('dashboard mount', () => {
  let server: http.Server;
  let base: string;
  let built: UiHandler | null = null;

  beforeAll(async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      // Which handler the next request meets: the fake build or none.
      await uiMiddleware(ctx.get('x-built') ? built : null)(ctx, next);
    });
    ({ server, base } = await serveWithStubApi(app));
    built = (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html>dashboard</html>');
    };
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('knows the API paths', () => {
    for (const p of ['/api', '/api/traces', '/v1/traces', '/metrics']) expect(isApiPath(p)).toBe(true);
    for (const p of ['/', '/traces', '/apis', '/metrics/x', '/_app/immutable/x.js', '/v1']) expect(isApiPath(p)).toBe(false);
  });

  it('without a build, answers dashboard paths 503 with how to build, and leaves the API alone', async () => {
    const res = await fetch(`${base}/traces`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('npm run build');
    expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ api: '/api/health' });
  });

  it('with a build, hands GET of other paths to it; POST and API paths go to the API', async () => {
    const headers = { 'x-built': '1' };
    expect(await (await fetch(`${base}/traces/abc?span=x`, { headers })).text()).toBe('<html>dashboard</html>');
    expect(await (await fetch(`${base}/api/traces`, { headers })).json()).toEqual({ api: '/api/traces' });
    expect(await (await fetch(`${base}/v1/traces`, { headers })).json()).toEqual({ api: '/v1/traces' });
    expect(await (await fetch(`${base}/traces`, { method: 'POST', headers })).json()).toEqual({ api: '/traces' });
  });
});
