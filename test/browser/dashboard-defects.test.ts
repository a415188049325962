import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { texts } from '../fixtures/corpus/texts.js';
import { describeErrors } from '../helpers/browser.js';
import { nestedAgentTrace } from '../helpers/dashboard.js';
import { FEEDBACK, PROMPTS } from '../helpers/dashboard-feedback.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { untilCompleted } from '../helpers/run-results.js';
import { startTestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Issue 32's smaller defects, each as a user met it, in Chromium against the real service: a
 * review queue's choices in their own order (not "ok / bad / good"), saving an unchanged prompt
 * (no identical version), the analytics correlation panel when the score names cannot be read (an
 * error with Retry, not a spinner forever), and a run's average explained when it is not the mean
 * of the scorers' means.
 */

const TRACE = `defects-${randomUUID().slice(0, 8)}`;
const PROMPT = 'travel-system';
let agent: TestAgent;
let queueId: string;
let runId: string;

const { svc, open, call } = dashboardSuite({
  timeout: 180_000,
  async start() {
    agent = await startTestAgent((req) => {
      const input = req.body.input as { kind: string };
      if (input.kind === 'outage') return { status: 500, raw: 'upstream model overloaded' };
      return { json: { output: texts.travelAnswer, tool_calls: [{ name: 'search_flights', output: { offers: 3 } }] } };
    });
    return startTestService({ EVAL_RETRY_TIME_SCALE: '0.001', ALERT_TICK_MS: '200' });
  },
  async seed(s) {
    const post = async <T>(path: string, json: unknown, status = 201) => {
      const res = await s.api(path, { method: 'POST', json });
      expect(res.status, await res.clone().text()).toBe(status);
      return (await res.json()) as T;
    };
    await post('/api/traces/ingest', nestedAgentTrace(TRACE, 6, { start: Date.now() - 60_000, name: 'trip-planner' }));
    queueId = (
      await post<{ id: string }>('/api/queues', {
        name: 'tone check',
        score_names: [{ name: 'tone', type: 'categorical', categories: ['bad', 'ok', 'good'] }],
        trace_ids: [TRACE],
      })
    ).id;
    await post('/api/prompts', { name: PROMPT, type: 'text', template: texts.travelSystemPrompt, config: { model: 'gpt-4o', temperature: 0.2 } });
    await post('/api/agents', { name: 'trip-agent', endpoint: agent.url });
    const items = [
      { name: 'kyoto', input: { kind: 'answer' }, expected: { outputContains: ['Kyoto'], toolCalls: ['search_flights'] } },
      { name: 'outage', input: { kind: 'outage' }, expected: { outputContains: ['Kyoto'], toolCalls: ['search_flights'] } },
    ];
    runId = (await post<{ id: string }>('/api/runs', { agentId: 'trip-agent', dataset: { items }, scorers: ['contains', 'toolSelection'] }, 202)).id;
    await untilCompleted(s, runId);
  },
  async after() {
    await agent?.close();
  },
});

describe("the dashboard's smaller defects", () => {
  it("offers a review queue's choices in the order the queue gave them", async () => {
    const p = await open();
    await p.page.goto(`/feedback?queue=${queueId}`);
    await expect.poll(() => p.page.locator(FEEDBACK.queueDetail).textContent()).toContain('tone (bad / ok / good)');
    await p.page.locator(FEEDBACK.queueNext).click();
    const choices = p.page.locator(FEEDBACK.reviewItem).getByRole('group', { name: /tone/ }).getByRole('radio');
    await expect.poll(() => choices.count()).toBe(3);
    expect(await choices.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).toEqual(['bad', 'ok', 'good']);
    expect(describeErrors(p)).toBe('');
  });

  it('does not save a prompt version identical to the one it starts from', async () => {
    const p = await open();
    await p.page.goto(`/prompts?prompt=${PROMPT}`);
    await p.page.locator(PROMPTS.newVersion).click();
    await p.page.locator(PROMPTS.newSave).click();
    await expect.poll(() => p.page.getByTestId('new-version-error').textContent()).toContain('Nothing changed from v1');
    expect((await call<{ version: number }>(`/api/prompts/${PROMPT}`)).version).toBe(1);
    await p.page.locator(PROMPTS.newTemplate).fill(`${texts.travelSystemPrompt}\n\nAlways give prices in EUR.`);
    await p.page.locator(PROMPTS.newSave).click();
    await p.page.waitForURL(/[?&]version=2/);
    expect((await call<{ version: number }>(`/api/prompts/${PROMPT}`)).version).toBe(2);
    expect(describeErrors(p)).toBe('');
  });

  it('says the correlation could not be computed when the score names cannot be read, and retries', async () => {
    const p = await open();
    let refuse = true;
    await p.page.route('**/api/analytics/scores*', (route) =>
      refuse
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'Service unavailable', code: 'STORE_UNAVAILABLE', message: 'analytics store is busy' }),
          })
        : route.continue(),
    );
    await p.page.goto('/analytics');
    const panel = p.page.getByTestId('correlation');
    await expect.poll(() => panel.getByTestId('analytics-error').textContent()).toContain('The scores to correlate could not be read');
    expect(await panel.getByTestId('analytics-loading').count()).toBe(0);
    refuse = false;
    await panel.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => panel.getByTestId('analytics-error').count()).toBe(0);
    await expect.poll(() => panel.getByTestId('correlation-sentence').count()).toBe(1);
    // The browser logs the 503s this test answered as failed loads; nothing else.
    expect(p.errors.filter((e) => !e.includes('503'))).toEqual([]);
  });

  it("explains a run's average when it is not the mean of the scorers' means", async () => {
    const p = await open();
    await p.page.goto(`/runs/${runId}`);
    const why = p.page.getByTestId('run-avg-why');
    await expect.poll(() => why.textContent()).toContain('Not the mean of the scorers below (1.00)');
    expect(await why.textContent()).toContain('a case whose agent failed counts 0 here');
    expect(await p.page.getByTestId('run-avg-score').textContent()).toContain('0.50');
    expect(describeErrors(p)).toBe('');
  });

  it('shows the sign-in page, not an empty one, on Back after signing out', async () => {
    const p = await open();
    await p.page.goto(`/traces/${TRACE}`);
    await expect.poll(() => p.page.getByTestId('signout').count()).toBe(1);
    await p.page.getByTestId('signout').click();
    await p.page.waitForURL((url) => url.pathname === '/signin');
    await p.page.goBack();
    await p.page.waitForURL((url) => url.pathname === '/signin' && url.searchParams.get('next') === `/traces/${TRACE}`);
    await expect.poll(() => p.page.getByTestId('signin-form').isVisible()).toBe(true);
    await p.screenshot('signout-back');
    expect(p.errors.filter((e) => !/\b401\b/.test(e))).toEqual([]);
  });

  it("names the service's own OTLP ports in the empty states, not 4317 and 4318", async () => {
    const grpcPort = Number(svc.otlpGrpcAddress!.split(':').at(-1));
    const httpPort = Number(new URL(svc.otlpHttpUrl!).port);
    const key = await svc.keyFor('defects-empty');
    const p = await open({ apiKey: key, project: 'defects-empty' });
    await p.page.goto('/traces');
    const empty = p.page.getByTestId('traces-empty');
    await expect.poll(() => empty.textContent()).toContain(`(gRPC: port ${grpcPort}, OTLP/HTTP also on port ${httpPort})`);
    await p.page.goto('/analytics');
    await expect.poll(() => p.page.getByText(`gRPC on port ${grpcPort}`).count()).toBeGreaterThan(0);
    expect(describeErrors(p)).toBe('');
  });

  it('warns before revoking the key you are signed in with, then signs you out', async () => {
    const made = await call<{ id: string; key: string }>(
      `/api/projects/${svc.defaultProjectId}/keys`,
      { method: 'POST', json: { name: 'my laptop', role: 'admin' } },
      201,
    );
    const p = await open({ apiKey: made.key });
    const dialogs: string[] = [];
    p.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await p.page.goto('/settings/keys');
    const row = p.page.locator(`[data-testid="key-row"][data-key-id="${made.id}"]`);
    await expect.poll(() => row.getByTestId('key-mine').textContent()).toBe('signed in with it');
    expect(await p.page.getByTestId('key-mine').count()).toBe(1);
    await row.getByTestId('key-revoke').click();
    await p.page.waitForURL((url) => url.pathname === '/signin');
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toContain('is the key you are signed in with: revoking it signs you out');
    const res = await svc.api('/api/traces', { key: made.key });
    expect(res.status).toBe(401);
    expect(p.errors.filter((e) => !/\b401\b/.test(e))).toEqual([]);
  });

  it('edits an alert rule, and a fired event links to the traces behind it', async () => {
    const start = Date.now() - 30_000;
    await call('/api/traces/ingest', { method: 'POST', json: nestedAgentTrace(`${TRACE}-err`, 4, { start, name: 'support-bot', status: 'error' }) }, 201);
    const rule = await call<{ id: string }>(
      '/api/alerts/rules',
      {
        method: 'POST',
        json: {
          name: 'Support errors',
          metric: 'error_rate',
          filter: { trace_name: 'support' },
          operator: 'gt',
          severity: 'warning',
          threshold: 0.5,
          window_seconds: 600,
          eval_interval_seconds: 1,
        },
      },
      201,
    );
    const p = await open();
    await p.page.goto('/alerts');
    const row = p.page.locator(`[data-testid="rule-row"][data-rule-id="${rule.id}"]`);
    await row.getByTestId('rule-edit').click();
    const form = p.page.getByTestId('alert-rule-form');
    expect(await form.getByTestId('alert-name').inputValue()).toBe('Support errors');
    await form.getByTestId('alert-threshold').fill('0.25');
    await form.getByTestId('alert-severity').selectOption('critical');
    await form.getByTestId('alert-save').click();
    await expect.poll(() => p.page.getByTestId('alerts-notice').textContent()).toContain('Rule "Support errors" saved');
    const stored = await call<{ threshold: number; severity: string; filter: Record<string, string>; window_seconds: number }>(`/api/alerts/rules/${rule.id}`);
    expect(stored).toMatchObject({ threshold: 0.25, severity: 'critical', filter: { trace_name: 'support' }, window_seconds: 600 });
    await expect.poll(() => row.getByTestId('rule-condition').textContent()).toContain('25');

    // The error trace fires it; the event links to the window's failing support traces.
    const link = p.page.locator(`[data-testid="event-row"][data-rule-id="${rule.id}"]`).first().getByTestId('event-traces');
    await expect
      .poll(
        async () => {
          // Count only once the events have loaded: right after a reload the list may still be
          // "Loading events..." on a busy machine, and the next reload would cancel it again.
          await p.page.reload();
          await p.page.locator('[data-testid="events-table"], [data-testid="events-empty"]').first().waitFor();
          return link.count();
        },
        { timeout: 60_000 },
      )
      .toBe(1);
    const href = new URL((await link.getAttribute('href'))!, 'http://x');
    expect(href.pathname).toBe('/traces');
    expect(href.searchParams.get('name')).toBe('support');
    expect(href.searchParams.get('status')).toBe('error');
    await link.click();
    await expect.poll(() => p.page.locator(`[data-trace-id="${TRACE}-err"]`).count()).toBeGreaterThan(0);
    expect(await p.page.locator(`[data-trace-id="${TRACE}"]`).count()).toBe(0);
    await p.screenshot('alert-event-traces');
    expect(describeErrors(p)).toBe('');
  });

  it('finds a trace to compare by searching, and diffs chat outputs by their words', async () => {
    const chat = (content: string) => JSON.stringify([{ role: 'assistant', content }]);
    const changed = texts.supportAnswer.replace(/\.(\s)/, '. Your refund reference is ZX-8841.$1');
    const one = (id: string, content: string, ago: number) => ({
      trace_id: id,
      name: 'support-bot',
      status: 'ok',
      duration_ms: 40,
      start_time: new Date(Date.now() - ago).toISOString(),
      spans: [
        {
          span_id: `${id}-root`,
          name: 'support-bot',
          type: 'generation',
          start_time: new Date(Date.now() - ago).toISOString(),
          end_time: new Date(Date.now() - ago + 40).toISOString(),
          input: texts.supportQuestion,
          output: chat(content),
        },
      ],
    });
    const a = `${TRACE}-chat-a`;
    const b = `${TRACE}-chat-b`;
    await call('/api/traces/ingest', { method: 'POST', json: one(a, texts.supportAnswer, 50 * 60_000) }, 201);
    await call('/api/traces/ingest', { method: 'POST', json: one(b, changed, 49 * 60_000) }, 201);
    // 21 newer traces push both out of the newest twenty.
    for (let i = 0; i < 21; i++)
      await call('/api/traces/ingest', { method: 'POST', json: one(`${TRACE}-newer-${i}`, texts.travelAnswer, 60_000 - i * 1000) }, 201);
    const p = await open();
    await p.page.goto(`/compare/traces?a=${a}`);
    await expect.poll(() => p.page.getByTestId('trace-compare-recent').count()).toBe(20);
    expect(await p.page.locator(`[data-testid="trace-compare-recent"][data-trace-id="${b}"]`).count()).toBe(0);
    await p.page.getByTestId('trace-compare-search').fill('ZX-8841');
    const found = p.page.locator(`[data-testid="trace-compare-recent"][data-trace-id="${b}"]`);
    await expect.poll(() => found.count()).toBe(1);
    expect(await p.page.getByTestId('trace-compare-recent').count()).toBe(1);
    await found.getByRole('link', { name: `Use ${b} as trace B` }).click();
    await p.page.waitForURL((u) => u.searchParams.get('b') === b);
    await p.page.goto(`/compare/traces?a=${a}&b=${b}&row=${encodeURIComponent('support-bot#0')}`);
    const diff = p.page.getByTestId('trace-compare-output-diff');
    await expect.poll(() => diff.locator('ins').allTextContents()).toEqual([' Your refund reference is ZX-8841.']);
    expect(await diff.locator('del').count()).toBe(0);
    await p.screenshot('compare-traces-chat-diff');
    expect(describeErrors(p)).toBe('');
  });
});
