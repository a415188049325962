import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureUiBuilt, launchBrowser, openPage } from '../helpers/browser.js';
import { REPO_ROOT } from '../helpers/processes.js';

/**
 * The states every page shows of its data (ui/src/lib/resource.svelte.ts and LoadState.svelte):
 * an API that fails (503: the words and "Retry"), refuses the session (401: "Sign in") or does not
 * answer yet ("Loading ..."). The built dashboard is served against a fake API, so no store runs.
 * Screenshots: test-output/screenshots/states-*.png.
 */
let browser: Browser;
let server: http.Server;
let baseUrl: string;
const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  ensureUiBuilt();
  const { handler } = (await import(path.join(REPO_ROOT, 'ui/build/handler.js'))) as {
    handler: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
  };
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/api/auth/session')) return json(res, 200, { auth_mode: 'none', sign_in: { api_key: true, oidc: null }, session: null });
    if (url.startsWith('/api/projects')) return json(res, 200, { projects: [{ id: 'default', name: 'Default project', is_default: true }] });
    if (url.startsWith('/api/traces')) return json(res, 503, { error: 'Service unavailable', message: 'ClickHouse is down' });
    if (url.startsWith('/api/suites')) return json(res, 401, { error: 'Unauthorized', details: 'Valid authentication required' });
    if (url.startsWith('/api/agents')) return; // never answers: the page stays loading
    if (url.startsWith('/api/')) return json(res, 404, { error: 'Not found' });
    handler(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

it('shows a failed load with Retry, a refused session with Sign in, and a load under way', async () => {
  const p = await openPage(browser, baseUrl);
  try {
    await p.page.goto('/traces');
    await expect.poll(() => p.page.getByTestId('traces-error').textContent()).toContain('ClickHouse is down');
    await p.screenshot('states-traces-503');
    await p.page.getByTestId('traces-error').getByRole('button', { name: 'Retry' }).click();
    await p.page.goto('/suites');
    await expect.poll(() => p.page.getByTestId('suites-error').textContent()).toContain('Sign in');
    await p.screenshot('states-suites-401');
    await p.page.goto('/agents');
    await expect.poll(() => p.page.getByTestId('agents-loading').textContent()).toContain('Loading agents');
    await p.screenshot('states-agents-loading');
  } finally {
    await p.close();
  }
});
