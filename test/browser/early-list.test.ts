import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { SEL } from '../helpers/dashboard.js';
import { corpusTexts } from '../helpers/corpus.js';
import { ingestTrace, spanAt } from '../helpers/ingest-trace.js';

/**
 * A list opened bare asks for its first page while the app's scripts load (ui/src/app.html,
 * ui/src/lib/early-session.ts): the page shows that answer and asks nothing more. Opened with a
 * filter, or remembering a project the session does not reach, the page asks for itself.
 */
const texts = corpusTexts().filter((t) => t.length < 3000 && t.includes('\n\n'));

function turn(id: string, startMs: number, session: string) {
  return ingestTrace(id, {
    name: 'support-agent',
    start: startMs,
    durationMs: 1200,
    root: { span_id: `${id}-r`, name: 'support-agent', type: 'span', input: texts[0], output: texts[1], attributes: { 'session.id': session } },
    spans: [
      spanAt(startMs, 10, 1100, {
        span_id: `${id}-g`,
        parent_span_id: `${id}-r`,
        name: 'chat gpt-4o',
        type: 'generation',
        model: 'gpt-4o',
        input_tokens: 300,
        output_tokens: 80,
        input: texts[2],
        output: texts[1],
      }),
    ],
  });
}

const { open } = dashboardSuite({
  async seed(svc) {
    const now = Date.now() - 60_000;
    for (const [i, id] of ['early-1', 'early-2', 'early-3'].entries()) {
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: turn(id, now - i * 5_000, i < 2 ? 'early-chat-a' : 'early-chat-b') });
      expect(res.status, await res.clone().text()).toBe(201);
    }
  },
});

/** The API calls the page makes from now on whose path starts with `prefix` (method, path and query). */
function callsTo(page: Page, prefix: string): string[] {
  const calls: string[] = [];
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.pathname.startsWith(prefix)) calls.push(`${req.method()} ${u.pathname}${u.search}`);
  });
  return calls;
}

/** The calls the page asked for early (app.html marks each in the performance timeline). */
function earlyCalls(page: Page): Promise<string[]> {
  return page.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name.replace(/^agent-eval early /, '')));
}

describe('a list opened bare', () => {
  it('shows the traces it asked for while the scripts loaded, with no second call', async () => {
    const p = await open();
    const calls = callsTo(p.page, '/api/traces');
    await p.page.goto('/traces');
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(3);
    expect(await p.page.locator(SEL.traceRow).evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))).toEqual(['early-1', 'early-2', 'early-3']);
    expect(calls).toEqual(['GET /api/traces?limit=50']);
    expect(await earlyCalls(p.page)).toEqual(['/api/traces?limit=50']);
    expect(p.errors).toEqual([]);
    await p.close();
  });

  it('shows the sessions the same way', async () => {
    const p = await open();
    const calls = callsTo(p.page, '/api/sessions');
    await p.page.goto('/sessions');
    const rows = p.page.getByTestId('session-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')))).toEqual(['early-chat-a', 'early-chat-b']);
    expect(calls).toEqual(['GET /api/sessions']);
    expect(await earlyCalls(p.page)).toEqual(['/api/sessions']);
    expect(p.errors).toEqual([]);
    await p.close();
  });

  it('is not asked for early with a filter in the address: the page asks with it', async () => {
    const p = await open();
    const calls = callsTo(p.page, '/api/traces');
    await p.page.goto('/traces?sort=cost');
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(3);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain('sort=cost');
    expect(await earlyCalls(p.page)).toEqual([]);
    await p.close();
  });

  it('remembering a project the session does not reach: nothing is asked early, the page asks in its own project', async () => {
    const p = await open({ project: 'no-such-project' });
    const calls = callsTo(p.page, '/api/traces');
    await p.page.goto('/traces');
    await expect.poll(() => p.page.locator(SEL.traceRow).count()).toBe(3);
    expect(calls).toEqual(['GET /api/traces?limit=50']);
    expect(await earlyCalls(p.page)).toEqual([]);
    expect(p.errors).toEqual([]);
    await p.close();
  });

  it('signed out: nothing is asked early, the sign-in page shows with no error', async () => {
    const p = await open({ signedIn: false, project: 'default' });
    const calls = callsTo(p.page, '/api/traces');
    await p.page.goto('/traces');
    await p.page.waitForURL((url) => url.pathname === '/signin');
    expect(calls).toEqual([]);
    expect(p.errors).toEqual([]);
    await p.close();
  });
});
