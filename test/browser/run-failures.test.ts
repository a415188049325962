import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunFailureAnalysis } from '../../core/model/failures.js';
import { texts } from '../fixtures/corpus/texts.js';
import { describeErrors } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { untilCompleted } from '../helpers/run-results.js';
import { startTestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Issue 31's failure analysis on the run page, in Chromium against the real service: a finished
 * run whose agent had an outage on three cases (a different request id each time) and answered
 * two cases wrong shows two groups, the largest first, each unfolding to its examples with links
 * to their traces; "Name the groups" shows the judge's sentences. Also at 420 px, no console
 * error. Screenshots: test-output/screenshots/run-failure-groups*.png.
 */
let agent: TestAgent;
let anthropic: FakeProvider;
let runId: string;

const { svc, open, call } = dashboardSuite({
  timeout: 180_000,
  async start() {
    anthropic = await startFakeProvider('anthropic');
    anthropic.setDefault((req) => ({
      verdict: { label: JSON.stringify(req.body).includes('agent_error') ? 'The model provider was overloaded.' : 'Answers miss the asked fact.' },
    }));
    agent = await startTestAgent((req) => {
      const input = req.body.input as { kind: string; answer?: string };
      if (input.kind === 'outage') return { status: 500, raw: `upstream model overloaded (request ${randomUUID()})` };
      return { json: { output: input.answer ?? texts.travelAnswer } };
    });
    return startTestService({ ...fakeProviderEnv({ anthropic }), EVAL_RETRY_TIME_SCALE: '0.001' });
  },
  async seed(s) {
    const post = async (path: string, json: unknown, status: number) => {
      const res = await s.api(path, { method: 'POST', json });
      expect(res.status, await res.clone().text()).toBe(status);
      return (await res.json()) as { id: string };
    };
    await post('/api/agents', { name: 'trip-agent', endpoint: agent.url }, 201);
    const items = [
      ...[1, 2, 3].map((i) => ({ name: `outage ${i}`, input: { kind: 'outage' }, expected: { outputContains: ['Kyoto'] } })),
      { name: 'wrong city', input: { kind: 'answer', answer: texts.supportAnswer }, expected: { outputContains: ['Osaka'] } },
      { name: 'wrong date', input: { kind: 'answer', answer: texts.researchAnswer }, expected: { outputContains: ['14 March'] } },
      { name: 'good', input: { kind: 'answer' }, expected: { outputContains: ['Kyoto'] } },
    ];
    runId = (await post('/api/runs', { agentId: 'trip-agent', dataset: { items }, scorers: ['contains'], config: { parallel: true } }, 202)).id;
    await untilCompleted(s, runId);
  },
  async after() {
    await agent?.close();
    await anthropic?.close();
  },
});

describe('failure groups on the run page', () => {
  it('shows why cases failed, grouped, with examples that open their traces, and the judge names the groups', async () => {
    const analysis = await call<RunFailureAnalysis>(`/api/runs/${runId}/failures`);
    const p = await open();
    await p.page.goto(`/runs/${runId}`);
    const groups = p.page.getByTestId('run-failure-group');
    await expect.poll(() => groups.count()).toBe(2);
    expect(await groups.evaluateAll((els) => els.map((e) => e.getAttribute('data-key')))).toEqual(analysis.groups.map((g) => g.key));
    const first = groups.first();
    expect((await first.locator('summary').textContent())!.replace(/\s+/g, ' ')).toContain('3 Agent error agent answered <n>');
    await first.locator('summary').click();
    const examples = first.getByTestId('run-failure-example');
    await expect.poll(() => examples.count()).toBe(3);
    const href = await examples.first().locator('a').getAttribute('href');
    expect(analysis.groups[0].examples.map((e) => `/traces/${e.trace_id}`)).toContain(href);
    await p.screenshot('run-failure-groups');

    await p.page.getByTestId('run-failure-label').click();
    const labels = p.page.getByTestId('run-failure-group-label');
    await expect.poll(() => labels.allTextContents()).toEqual(['The model provider was overloaded.', 'Answers miss the asked fact.']);
    await p.page.setViewportSize({ width: 420, height: 900 });
    await p.screenshot('run-failure-groups-420');
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await examples.first().locator('a').click();
    await p.page.waitForURL(`**${href}`);
    expect(describeErrors(p)).toBe('');
    void svc;
  });
});
