import http from 'node:http';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_BUILDING, uiMiddleware, type UiSource } from '../../../api/ui.js';

/**
 * The dashboard built in the background on the first `npm start` (runtime/ui.ts, openUi): its
 * pages say so with Retry-After while the API answers, and the build's handler is served from
 * the moment it is handed over, without a restart.
 */
describe('dashboard being built', () => {
  let server: http.Server;
  let base: string;
  const ui: UiSource = { handler: null, building: true };

  beforeAll(async () => {
    const app = new Koa();
    app.use(uiMiddleware(ui));
    app.use((ctx) => {
      ctx.body = { api: ctx.path };
    });
    const handle = app.callback();
    server = http.createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers pages 503 "being built" with Retry-After while the API answers, then serves the build once handed over', async () => {
    const page = await fetch(`${base}/traces`);
    expect(page.status).toBe(503);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await page.text()).toBe(UI_BUILDING);
    expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ api: '/api/health' });

    ui.handler = (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html>dashboard</html>');
    };
    ui.building = false;
    const built = await fetch(`${base}/traces`);
    expect(built.status).toBe(200);
    expect(await built.text()).toBe('<html>dashboard</html>');
  });
});
