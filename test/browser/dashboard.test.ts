import { describe, expect, it } from 'vitest';
import { describeErrors } from '../helpers/browser.js';
import { LAST_SPAN_NAME, nestedAgentTrace, SEL, spanId } from '../helpers/dashboard.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { sampleTrace } from '../helpers/server.js';

/**
 * The dashboard in a real browser (Debian's Chromium, playwright-core) against the real service
 * in this process (chDB, PostgreSQL, credentials required): sign in, the traces list and its
 * status filter in the URL, a trace's waterfall, a span's input and output with `?span=` in the
 * URL, and a 10,000-span trace that only renders the rows in view. No page may log a console
 * error or throw. Screenshots: test-output/screenshots/dashboard-*.png.
 */
const OK_TRACES = ['bt-ok-1', 'bt-ok-2', 'bt-ok-3'];
const ERROR_TRACES = ['bt-err-1', 'bt-err-2'];
const NESTED = 'bt-nested';
const BIG = 'bt-big';
const HUGE = 'bt-10k';
const ALL_TRACES = [...OK_TRACES, ...ERROR_TRACES, NESTED, BIG, HUGE];

async function ingest(body: unknown): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Pages of the dashboard (`open`), signed in unless `signedIn: false`; closed (and their errors checked) after the test. */
const { svc, open } = dashboardSuite({
  async seed() {
    const now = Date.now();
    // Newest first in the list: the error traces, then the ok ones, then the big ones.
    for (const [i, id] of OK_TRACES.entries()) await ingest(sampleTrace(id, { spanCount: 5, start: now - 60_000 - i * 1000, name: 'agent-run' }));
    for (const [i, id] of ERROR_TRACES.entries())
      await ingest(sampleTrace(id, { spanCount: 4, start: now - 30_000 - i * 1000, name: 'failing-run', status: 'error' }));
    await ingest(nestedAgentTrace(NESTED, 40, { start: now - 120_000, name: 'nested-run' }));
    await ingest(nestedAgentTrace(BIG, 400, { start: now - 180_000, name: 'big-run' }));
    await ingest(nestedAgentTrace(HUGE, 10_000, { start: now - 240_000, name: 'huge-run' }));
  },
});

describe('dashboard in Chromium', () => {
  it('signs in with an API key on /signin and lands on the traces list', async () => {
    const p = await open({ signedIn: false });
    await p.page.goto('/traces');
    // Not signed in: the dashboard sends the visitor to the sign-in page.
    await p.page.waitForURL((url) => url.pathname === '/signin');
    await p.screenshot('dashboard-signin');
    await p.page.getByLabel('API key').fill(svc.apiKey!);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await p.page.waitForURL((url) => url.pathname === '/traces');
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(ALL_TRACES.length);
    for (const id of ALL_TRACES) await expect.poll(() => p.page.locator(SEL.traceRowOf(id)).count()).toBe(1);
    await p.screenshot('dashboard-traces');
    // The UI learns whether credentials are needed from GET /api/health (no failing probe).
    expect(p.errors).toEqual([]);
  });

  it('filters the list by status from the UI and keeps the filter in the URL', async () => {
    const p = await open();
    await p.page.goto('/traces');
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(ALL_TRACES.length);
    await p.page.getByLabel('Status').selectOption('error');
    await p.page.waitForURL(/[?&]status=error/);
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(ERROR_TRACES.length);
    for (const id of ERROR_TRACES) expect(await p.page.locator(SEL.traceRowOf(id)).count()).toBe(1);
    await p.screenshot('dashboard-traces-status-error');
    // The URL alone gives the same list.
    await p.page.reload();
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(ERROR_TRACES.length);
    expect(await p.page.getByLabel('Status').inputValue()).toBe('error');
    expect(describeErrors(p)).toBe('');
  });

  it('opens a trace from the list, selects a span, shows its input and output, and keeps ?span= across a reload', async () => {
    const p = await open();
    await p.page.goto('/traces');
    await p.page.locator(SEL.traceRowOf(NESTED)).getByRole('link', { name: 'nested-run' }).click();
    await p.page.waitForURL(new RegExp(`/traces/${NESTED}(\\?|$)`));
    // 40 spans: the root, steps of three (step, llm, tool), the final answer.
    await expect.poll(() => p.page.locator(SEL.waterfallRowOf(spanId(NESTED, 0))).count()).toBe(1);
    await expect.poll(() => p.page.locator(SEL.waterfallRow).count()).toBeGreaterThanOrEqual(20);
    await expect.poll(() => p.page.locator(SEL.waterfallRowOf(spanId(NESTED, 0))).textContent()).toContain('agent.run');
    await p.screenshot('dashboard-trace');

    const llm = spanId(NESTED, 2); // `llm 1`, under `step 1`
    await p.page.locator(SEL.waterfallRowOf(llm)).click();
    await p.page.waitForURL(new RegExp(`[?&]span=${llm}`));
    const detail = p.page.locator(SEL.spanDetail);
    await expect.poll(() => detail.textContent()).toContain('question 1: which refund applies?');
    await expect.poll(() => detail.textContent()).toContain('answer 1: call the search tool');
    await expect.poll(() => detail.textContent()).toContain('gpt-4o');
    await p.screenshot('dashboard-trace-span');

    await p.page.reload();
    await expect.poll(() => p.page.locator(SEL.spanDetail).textContent()).toContain('question 1: which refund applies?');
    await expect.poll(() => p.page.locator(SEL.selectedWaterfallRow).getAttribute('data-span-id')).toBe(llm);
    await expect.poll(() => p.page.locator(SEL.spanDetail).getAttribute('data-span-id')).toBe(llm);
    expect(p.page.url()).toContain(`span=${llm}`);

    // A tool span: JSON input and output.
    await p.page.locator(SEL.waterfallRowOf(spanId(NESTED, 3))).click();
    await p.page.waitForURL(new RegExp(`[?&]span=${spanId(NESTED, 3)}`));
    await expect.poll(() => p.page.locator(SEL.spanDetail).textContent()).toContain('refund policy 1');
    await expect.poll(() => p.page.locator(SEL.spanDetail).textContent()).toContain('Refunds 1');
    await p.screenshot('dashboard-trace-span-tool');
    expect(describeErrors(p)).toBe('');
  });

  it('shows a 400-span trace', async () => {
    const p = await open();
    await p.page.goto(`/traces/${BIG}`);
    await expect.poll(() => p.page.locator(SEL.waterfallRowOf(spanId(BIG, 0))).count()).toBe(1);
    const rows = await p.page.locator(SEL.waterfallRow).count();
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(400);
    await p.screenshot('dashboard-trace-400');
    expect(describeErrors(p)).toBe('');
  });

  it('opens a 10,000-span trace rendering only a window of rows, and scrolls to the last span', async () => {
    const p = await open();
    await p.page.goto(`/traces/${HUGE}`);
    await expect.poll(() => p.page.locator(SEL.waterfallRowOf(spanId(HUGE, 0))).count(), { timeout: 30_000 }).toBe(1);
    const rows = await p.page.locator(SEL.waterfallRow).count();
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(500);
    await p.screenshot('dashboard-trace-10k');

    // Every span is there to scroll to, once the later pages of spans arrived: the scroll area is as tall as 10,000 rows.
    const viewport = p.page.locator(SEL.waterfallViewport);
    const rowHeight = (await p.page.locator(SEL.waterfallRowOf(spanId(HUGE, 0))).boundingBox())!.height;
    expect(rowHeight).toBeGreaterThan(10);
    await expect.poll(() => viewport.evaluate((el) => el.scrollHeight), { timeout: 30_000 }).toBeGreaterThanOrEqual(10_000 * rowHeight - 1);
    await viewport.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    const last = p.page.locator(SEL.waterfallRowOf(spanId(HUGE, 9_999)));
    await expect.poll(() => last.count()).toBe(1);
    expect(await last.textContent()).toContain(LAST_SPAN_NAME);
    // In the viewport's visible area, not just in the DOM.
    const [rowBox, viewBox] = await Promise.all([last.boundingBox(), viewport.boundingBox()]);
    expect(rowBox && viewBox).toBeTruthy();
    expect(rowBox!.y).toBeGreaterThanOrEqual(viewBox!.y - 1);
    expect(rowBox!.y + rowBox!.height).toBeLessThanOrEqual(viewBox!.y + viewBox!.height + 1);
    expect(await p.page.locator(SEL.waterfallRow).count()).toBeLessThan(500);
    await p.screenshot('dashboard-trace-10k-bottom');
    expect(describeErrors(p)).toBe('');
  });

  it('creates an API key on /settings/keys, shows it once, and revokes it: the key stops working', async () => {
    const p = await open();
    p.page.on('dialog', (dialog) => void dialog.accept());
    await p.page.goto('/settings/keys');
    await expect.poll(() => p.page.getByTestId('key-row').count()).toBeGreaterThanOrEqual(1);
    await p.page.getByTestId('key-name').fill('browser-made');
    await p.page.getByTestId('key-role').selectOption('viewer');
    await p.page.getByTestId('key-create').click();
    const secret = (await p.page.getByTestId('key-secret').textContent())!.trim();
    expect(secret).toMatch(/^ae_live_[A-Za-z0-9]{32}$/);
    await p.screenshot('dashboard-keys-created');
    // The new key works, as a viewer, and is listed by its prefix only.
    expect((await svc.api('/api/traces', { key: secret })).status).toBe(200);
    const row = p.page.locator('[data-testid=key-row]', { hasText: 'browser-made' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain(secret.slice(0, 16));
    expect(await row.textContent()).not.toContain(secret);
    expect(await p.page.content()).toContain(secret);
    // Gone from the page once dismissed: it is shown this once.
    await p.page.getByRole('button', { name: 'Done' }).click();
    expect(await p.page.content()).not.toContain(secret);

    await row.getByTestId('key-revoke').click();
    await expect.poll(() => row.getAttribute('data-revoked')).toBe('true');
    await p.screenshot('dashboard-keys-revoked');
    expect((await svc.api('/api/traces', { key: secret })).status).toBe(401);
    expect(describeErrors(p)).toBe('');
  });
});
