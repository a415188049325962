import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_STORAGE_KEY, launchBrowser, openPage } from '../helpers/browser.js';

/** The browser harness itself (test/helpers/browser.ts), on a page of its own: no UI build needed. */
let browser: Browser;
let server: http.Server;
let baseUrl: string;

const PAGES: Record<string, string> = {
  '/ok': `<!doctype html><title>ok</title><link rel="icon" href="data:,"><h1>hello</h1><p id="project"></p>
    <script>document.getElementById('project').textContent = localStorage.getItem(${JSON.stringify(PROJECT_STORAGE_KEY)}) ?? 'none'</script>`,
  '/broken': `<!doctype html><title>broken</title><link rel="icon" href="data:,"><script>console.error('boom'); setTimeout(() => { throw new Error('kaboom') })</script>`,
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body = PAGES[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html' }).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('browser harness', () => {
  it('opens a page with the remembered project already in localStorage, and takes a screenshot', async () => {
    const p = await openPage(browser, baseUrl, { project: 'p-harness' });
    try {
      await p.page.goto('/ok');
      await expect.poll(() => p.page.locator('#project').textContent()).toBe('p-harness');
      const file = await p.screenshot('harness-ok');
      expect(fs.statSync(file).size).toBeGreaterThan(1000);
      expect(p.errors).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('records console errors and uncaught exceptions', async () => {
    const p = await openPage(browser, baseUrl);
    try {
      await p.page.goto('/broken');
      await expect.poll(() => p.errors.length).toBe(2);
      expect(p.errors[0]).toContain('boom');
      expect(p.errors[1]).toContain('kaboom');
    } finally {
      await p.close();
    }
  });
});
