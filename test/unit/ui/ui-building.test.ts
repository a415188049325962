import type http from 'node:http';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWithStubApi } from '../../helpers/ui-mount-server.js';
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
    ({ server, base } = await serveWithStubApi(app));
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
