import { describe, expect, it } from 'vitest';
import { ExpectedSchema } from '../../core/model/eval-case.js';
import type { TraceDetail } from '../../core/model/trace.js';
import { toolCallsScorer } from '../../core/scoring/trajectory/tool-calls.js';
import { describeErrors } from '../helpers/browser.js';
import { loadCorpus } from '../helpers/corpus.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { ingestTrace } from '../helpers/ingest-trace.js';

/**
 * Issue 29 in Chromium: the analytics page's Tools section (the SPEC corpus trace's tool calls,
 * one failing, and a toolCalls score by the real scorer naming get_weather's arguments) and the
 * sessions pages' scores (mean per score name over the turns), wide and at 420 px, and the traces
 * list's session, user and tag filters (bar and URL), no console error.
 * Screenshots: test-output/screenshots/tools-*.png, session-scores-*.png, traces-session-filters.png.
 */
const SPEC = loadCorpus(Date.now() - 5 * 60_000).json.find((t) => t.name === 'spec')!;

function turn(id: string, start: number, input: string, attributes: Record<string, string> = {}) {
  const root = { span_id: `${id}-r`, name: 'support-agent', type: 'span', input, output: 'Done.' };
  return ingestTrace(id, {
    name: 'support-agent',
    start,
    durationMs: 800,
    root: { ...root, attributes: { 'session.id': 'chat-scored', 'user.id': 'layla@example.com', ...attributes } },
  });
}

const { svc, open } = dashboardSuite({
  async seed(svc) {
    const post = async (path: string, json: unknown) => {
      const res = await svc.api(path, { method: 'POST', json });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    await post('/api/traces/ingest', SPEC.body);
    const detail = (await (await svc.api(`/api/traces/${SPEC.body.trace_id}`)).json()) as TraceDetail;
    const scored = await toolCallsScorer.evaluate({
      input: '',
      output: '',
      expected: ExpectedSchema.parse({}),
      toolCalls: [],
      latencyMs: 0,
      trace: { spans: detail.spans as unknown as Array<Record<string, unknown>> },
      config: toolCallsScorer.configSchema.parse({ calls: ['search_flights', { name: 'get_weather', args: { city: 'Paris' } }], argsMatch: 'subset' }),
    });
    await post('/api/scores', {
      trace_id: SPEC.body.trace_id,
      name: 'toolCalls',
      value: scored.score,
      scorer_name: 'toolCalls',
      source: 'eval',
      reason: scored.reason,
    });

    const now = Date.now() - 60_000;
    await post('/api/traces/ingest', turn('sc-1', now - 30_000, 'Where is my order #1234?'));
    await post('/api/traces/ingest', turn('sc-2', now - 20_000, 'Send it to Berlin instead.', { 'tag.tags': JSON.stringify(['vip', 'shipping']) }));
    for (const [trace_id, value] of [
      ['sc-1', 0.9],
      ['sc-2', 0.3],
    ] as const)
      await post('/api/scores', { trace_id, name: 'helpfulness', value });
  },
});

describe('issue 29 in the dashboard', () => {
  it('shows per tool its calls, errors, latency and how often its arguments were wrong', async () => {
    const p = await open();
    await p.page.goto('/analytics?range=1h');
    const table = p.page.getByTestId('tool-analytics-table');
    await table.waitFor();
    const weather = table.locator('tr[data-tool="get_weather"] td');
    await expect.poll(async () => (await weather.allTextContents()).map((t) => t.trim()).slice(0, 5)).toEqual(['get_weather', '1', '1', '1', '100%']);
    expect((await weather.nth(8).textContent())?.trim()).toBe('100%');
    const flights = (await table.locator('tr[data-tool="search_flights"] td').allTextContents()).map((t) => t.trim());
    expect([flights[0], flights[3], flights[4], flights[8]]).toEqual(['search_flights', '0', '0%', '0%']);
    await p.page.getByTestId('tool-analytics').scrollIntoViewIfNeeded();
    await p.screenshot('tools-analytics');
    expect(describeErrors(p)).toBe('');
  });

  it("shows each session's mean scores in the list and the session view, also at 420 px", async () => {
    const p = await open();
    await p.page.goto('/sessions');
    const row = p.page.locator('[data-testid="session-row"][data-session-id="chat-scored"]');
    await expect.poll(() => row.locator('[data-score-name="helpfulness"]').textContent()).toContain('0.60');
    expect(await row.locator('[data-score-name="helpfulness"]').textContent()).toContain('×2');
    await p.screenshot('session-scores-list');
    // The list filtered by a mean score: 0.60 is below 0.7, not below 0.5; half a filter is refused in words.
    await p.page.getByTestId('sessions-score-name').fill('helpfulness');
    await p.page.getByTestId('sessions-score-below').fill('0.7');
    await p.page.getByRole('button', { name: 'Filter' }).click();
    await p.page.waitForURL((url) => url.searchParams.get('score_below') === '0.7');
    await expect.poll(() => row.count()).toBe(1);
    await p.page.goto('/sessions?score_name=helpfulness&score_below=0.5');
    await expect.poll(() => p.page.getByTestId('sessions-empty').count()).toBe(1);
    await p.page.getByTestId('sessions-score-below').fill('');
    await p.page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => p.page.getByTestId('sessions-filter-error').textContent()).toContain('score name and a threshold');
    await p.page.goto('/sessions');
    await p.page.goto('/sessions/chat-scored');
    const facts = p.page.getByTestId('session-facts');
    await expect.poll(() => facts.locator('[data-score-name="helpfulness"]').textContent()).toContain('0.60');
    await p.page.setViewportSize({ width: 420, height: 900 });
    await p.screenshot('session-scores-view-420');
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(describeErrors(p)).toBe('');
    void svc;
  });

  it('filters the traces list by session, user and tag, from its bar and its URL', async () => {
    const p = await open();
    const rows = p.page.getByTestId('trace-row');
    const shown = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')).sort());
    await p.page.goto('/traces?session_id=chat-scored');
    await expect.poll(shown).toEqual(['sc-1', 'sc-2']);
    expect(await p.page.getByTestId('filter-session').inputValue()).toBe('chat-scored');
    await p.page.getByTestId('filter-tag').fill('vip');
    await p.page.getByTestId('filter-apply').click();
    await p.page.waitForURL((url) => url.searchParams.get('tag') === 'vip' && url.searchParams.get('session_id') === 'chat-scored');
    await expect.poll(shown).toEqual(['sc-2']);
    await p.screenshot('traces-session-filters');
    await p.page.goto('/traces?user_id=nobody');
    await expect.poll(() => p.page.getByTestId('traces-empty').count()).toBe(1);
    expect(describeErrors(p)).toBe('');
  });
});
