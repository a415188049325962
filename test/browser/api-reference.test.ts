import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeErrors, launchBrowser, openPage } from '../helpers/browser.js';
import { useTestApi } from '../helpers/test-service-hooks.js';

/**
 * The API reference page (docs/api.md, "OpenAPI"), in Chromium against the real API: /api-reference
 * renders the service's own OpenAPI document with Swagger UI under its CSP, loads nothing from
 * another origin, and its "Try it out" calls this service with a key given under "Authorize".
 */
const svc = useTestApi();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('the API reference page', () => {
  it('renders every tag of the document with no CSP violation, console error or request elsewhere', async () => {
    const p = await openPage(browser, svc.apiUrl!);
    const origins = new Set<string>();
    p.page.on('request', (req) => origins.add(new URL(req.url()).origin));
    await p.page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __csp: string[] }).__csp = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const res = await p.page.goto('/api-reference');
    expect(res!.status()).toBe(200);
    expect((await res!.allHeaders())['content-security-policy']).toContain("script-src 'self'");
    const doc = (await (await fetch(`${svc.apiUrl}/api/openapi.json`)).json()) as { tags: Array<{ name: string }> };
    await expect.poll(() => p.page.locator('.opblock-tag').count(), { timeout: 20_000 }).toBe(doc.tags.length);
    await p.page.locator('.opblock-tag', { hasText: 'Traces' }).first().waitFor({ state: 'visible' });
    expect(await p.page.locator('.info .title').textContent()).toContain('agent-eval API');
    await p.screenshot('api-reference');
    expect(await p.page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    expect(describeErrors(p)).toBe('');
    expect([...origins]).toEqual([new URL(svc.apiUrl!).origin]);
    await p.close();
  });

  it('calls the service from "Try it out" with a key given under Authorize', async () => {
    const p = await openPage(browser, svc.apiUrl!);
    await p.page.goto('/api-reference#/Traces/listTraces');
    await p.page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = p.page.locator('.dialog-ux');
    await dialog.locator('input[type=text], input[type=password]').first().fill(svc.apiKey!);
    await dialog.locator('button.modal-btn.authorize').first().click();
    await dialog.locator('button.btn-done').first().click();
    const op = p.page.locator('#operations-Traces-listTraces');
    await op.locator('.opblock-body').waitFor({ state: 'visible', timeout: 15_000 });
    await op.getByRole('button', { name: 'Try it out' }).click();
    const answered = p.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/traces');
    await op.getByRole('button', { name: 'Execute' }).click();
    const res = await answered;
    expect(res.status()).toBe(200);
    expect(await res.request().headerValue('x-api-key')).toBe(svc.apiKey);
    await expect.poll(() => op.locator('.live-responses-table tbody .response-col_status').first().textContent(), { timeout: 10_000 }).toContain('200');
    await p.screenshot('api-reference-try-it-out');
    expect(describeErrors(p)).toBe('');
    await p.close();
  });
});
