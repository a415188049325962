import { describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { eventually } from '../helpers/eventually.js';
import { startTestAgent, type AgentRequest, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { texts } from '../fixtures/corpus/texts.js';
import { describeSignificance } from '../../ui/src/lib/runs.js';
import { formatMsDelta } from '../../ui/src/lib/run-compare.js';
import type { RunComparison, RunView } from '../../ui/src/lib/types.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * Compare-runs explains a regression (issue 32), in Chromium against the real service and two
 * runs the workflow executed against an HTTP agent served by the test: v2 changes one sentence of
 * the support reply (a refund "within 14 days of purchase", not "30 days of delivery") and drops
 * its shipping code, so `contains` and `regex` both drop on that one case (two scorer changes,
 * one regressed case), and answers the travel question with the whole markdown plan where v1
 * gave up (an improvement). v2 is also slower. Open the regressed case: both outputs, the changed
 * words marked, blank lines kept; the failing scorer's reason in both runs; links to both traces;
 * the latency change. Real agent texts (Arabic, emoji, code fences); no sideways scroll at 420 px.
 * Screenshots: test-output/screenshots/compare-explained*.png.
 */
let agent: TestAgent;
let ids: { baseline: string; candidate: string };
const NARROW = { width: 420, height: 900 };
const LOAD = { timeout: 20_000 };

const REFUND_V2 = texts.supportAnswer.replace('within 30 days of delivery', 'within 14 days of purchase').replace(', code `SHIP-FREE-1234`', '');
const GAVE_UP = 'Sorry, I could not plan this trip.';

function behaviour(req: AgentRequest) {
  const v2 = req.body.agent_version === 'v2';
  const name = req.body.case.name;
  const output =
    name === 'refund-reply' ? (v2 ? REFUND_V2 : texts.supportAnswer) : name === 'travel-plan' ? (v2 ? texts.travelAnswer : GAVE_UP) : texts.multilingual;
  const answer = { json: { output, usage: { input_tokens: 120, output_tokens: 60 } } };
  // v2 takes longer on every case: the latency change the page shows.
  return new Promise<typeof answer>((r) => setTimeout(() => r(answer), v2 ? 250 : 5));
}

const { svc, open } = dashboardSuite({
  env: { EVAL_RETRY_TIME_SCALE: '0.001' },
  async seed(s) {
    agent = await startTestAgent(behaviour);
    await json(await s.api('/api/agents', { method: 'POST', json: { name: 'support-bot', endpoint: agent.url } }), 201);
    const suite = {
      name: 'support-bot',
      agent_id: 'support-bot',
      defaultScorers: ['contains'],
      cases: [
        {
          name: 'refund-reply',
          input: texts.supportQuestion,
          expected: { outputContains: ['30 days'], regex: ['SHIP-FREE-\\d+'] },
          scorers: ['contains', 'regex'],
        },
        { name: 'travel-plan', input: texts.travelQuestion, expected: { outputContains: ['Budget check'] } },
        { name: 'multilingual', input: 'Say hello in many languages', expected: { outputContains: ['👋'] } },
      ],
    };
    await postSuite(s, suite);
    const run = async (version: string) =>
      (await json<{ run_id: string }>(await s.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'support-bot', agent_version: version } }), 202))
        .run_id;
    ids = { baseline: await run('v1'), candidate: await run('v2') };
    for (const id of Object.values(ids))
      await eventually(async () => expect((await json<RunView>(await s.api(`/api/runs/${id}`))).status).toBe('completed'), 60_000);
  },
  after: async () => {
    await agent?.close();
  },
});

const sideways = (p: WatchedPage) => p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const words = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

async function compare(): Promise<RunComparison> {
  return json<RunComparison>(
    await svc.api('/api/compare', { method: 'POST', json: { baseline_run_id: ids.baseline, candidate_run_id: ids.candidate, threshold: 0.05 } }),
    200,
  );
}

describe('compare-runs explains a regression, in Chromium', () => {
  it('answers cases apart from scorer changes, with both sides of a changed case and latency deltas', async () => {
    const api = await compare();
    expect(api.regressions.map((r) => `${r.case_name}/${r.scorer}`).sort()).toEqual(['refund-reply/contains', 'refund-reply/regex']);
    expect(api.case_counts).toEqual({ compared: 3, regressed: 1, improved: 1, mixed: 0, unchanged: 1 });
    const refund = api.cases.find((c) => c.case_name === 'refund-reply')!;
    expect(refund.change).toBe('regressed');
    expect(refund.baseline_detail?.output).toBe(texts.supportAnswer);
    expect(refund.candidate_detail?.output).toBe(REFUND_V2);
    expect(refund.baseline_detail?.input).toBe(texts.supportQuestion);
    expect(refund.baseline_case.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(refund.candidate_case.trace_id).toMatch(/^[0-9a-f]{32}$/);
    // Durations are the stored trials' (wall clock on a loaded machine: the delta's size is not asserted).
    expect(refund.duration_delta_ms).toBe(refund.candidate_case.duration_ms! - refund.baseline_case.duration_ms!);
    expect(api.totals.mean_duration_delta_ms).toBeCloseTo(api.totals.candidate_mean_duration_ms! - api.totals.baseline_mean_duration_ms!);
    // The unchanged case carries no texts.
    expect(api.cases.find((c) => c.case_name === 'multilingual')?.baseline_detail).toBeUndefined();
  });

  for (const [label, viewport] of [
    ['wide', undefined],
    ['narrow', NARROW],
  ] as const) {
    it(`opens the regressed case and reads both outputs and the failing scorer's reason (${label})`, async () => {
      const api = await compare();
      const p = await open(viewport ? { viewport } : {});
      await p.page.goto(`/compare/runs?baseline=${ids.baseline}&candidate=${ids.candidate}`);
      const verdict = p.page.getByTestId('compare-threshold-verdict');
      await expect.poll(() => verdict.textContent(), LOAD).toContain('1 case regressed');
      expect(words(await verdict.textContent())).toContain('2 scorers dropped');
      expect(words(await verdict.textContent())).toContain('1 case improved');
      // The significance sentence is kept.
      expect(await p.page.getByTestId('compare-sentence').textContent()).toBe(describeSignificance(api));
      expect(words(await p.page.getByTestId('compare-latency').textContent())).toContain(formatMsDelta(api.totals.mean_duration_delta_ms));

      // The regressed case first, then the improved one; the unchanged case is not listed.
      const changed = p.page.getByTestId('compare-changed-case');
      expect(await changed.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-case')}:${e.getAttribute('data-change')}`))).toEqual([
        'refund-reply:regressed',
        'travel-plan:improved',
      ]);
      const refund = p.page.locator('[data-testid="compare-changed-case"][data-case="refund-reply"]');
      const refundApi = api.cases.find((c) => c.case_name === 'refund-reply')!;
      expect(words(await refund.getByTestId('compare-changed-summary').textContent())).toContain(
        `1.00 → 0.00 (-1.00) time ${formatMsDelta(refundApi.duration_delta_ms)}`,
      );
      await refund.getByTestId('compare-changed-summary').click();
      const detail = refund.getByTestId('compare-case-detail');
      await expect.poll(() => detail.count()).toBe(1);

      // The same input in both runs, shown once, CRLF and all.
      expect(await detail.getByTestId('compare-input').locator('pre').textContent()).toBe(texts.supportQuestion);
      // Both outputs whole, blank lines kept; the changed words marked on each side.
      const before = detail.getByTestId('compare-output-baseline').locator('pre');
      const after = detail.getByTestId('compare-output-candidate').locator('pre');
      expect(await before.textContent()).toBe(texts.supportAnswer);
      expect(await after.textContent()).toBe(REFUND_V2);
      expect(await before.textContent()).toContain('مرحبا ليلى');
      expect(await after.textContent()).toContain('🌷');
      expect(await before.locator('del').allTextContents()).toEqual(expect.arrayContaining(['30', 'delivery']));
      expect(await after.locator('ins').allTextContents()).toEqual(expect.arrayContaining(['14', 'purchase']));
      expect((await before.locator('del').allTextContents()).join('')).toContain('SHIP-FREE-1234');
      // Unchanged words are not marked.
      expect((await after.locator('ins').allTextContents()).join('')).not.toContain('Refund');

      // The failing scorers first, each with its reason in both runs.
      const scorers = detail.getByTestId('compare-case-scorer');
      expect(await scorers.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-scorer')}:${e.getAttribute('data-moved')}`))).toEqual([
        'contains:down',
        'regex:down',
      ]);
      const contains = detail.locator('[data-testid="compare-case-scorer"][data-scorer="contains"]');
      expect(words(await contains.getByTestId('compare-reason-baseline').textContent())).toContain('found: "30 days"');
      expect(words(await contains.getByTestId('compare-reason-candidate').textContent())).toContain('missing: "30 days"');
      // The case passed in the baseline and failed in the candidate.
      expect(words(await detail.getByTestId('compare-case-baseline').textContent())).toContain('passed');
      expect(words(await detail.getByTestId('compare-case-candidate').textContent())).toContain('failed');
      // The baseline's evidence: where the expected string was found.
      expect(await contains.getByTestId('compare-evidence-baseline').textContent()).toContain('30 days');

      // Links to both traces.
      expect(await detail.getByTestId('compare-trace-baseline').getAttribute('href')).toBe(`/traces/${refundApi.baseline_case.trace_id}`);
      expect(await detail.getByTestId('compare-trace-candidate').getAttribute('href')).toBe(`/traces/${refundApi.candidate_case.trace_id}`);

      // Side by side when wide, stacked when narrow.
      const [l, r] = await Promise.all([before.boundingBox(), after.boundingBox()]);
      if (viewport) expect(r!.y).toBeGreaterThan(l!.y + l!.height - 1);
      else expect(r!.x).toBeGreaterThan(l!.x + l!.width - 1);
      await detail.scrollIntoViewIfNeeded();
      if (viewport) expect(await sideways(p)).toBeLessThanOrEqual(0);
      await p.screenshot(viewport ? 'compare-explained-narrow' : 'compare-explained');

      // The candidate trace link opens the trace of the regressed case.
      await detail.getByTestId('compare-trace-candidate').click();
      await p.page.waitForURL((u) => u.pathname === `/traces/${refundApi.candidate_case.trace_id}`);
      expect(describeErrors(p)).toBe('');
    });
  }

  it('opens the improved case: the travel plan with its code-free markdown kept as written', async () => {
    const p = await open();
    await p.page.goto(`/compare/runs?baseline=${ids.baseline}&candidate=${ids.candidate}`);
    const travel = p.page.locator('[data-testid="compare-changed-case"][data-case="travel-plan"]');
    await expect.poll(() => travel.count(), LOAD).toBe(1);
    await travel.getByTestId('compare-changed-summary').click();
    const after = travel.getByTestId('compare-output-candidate').locator('pre');
    await expect.poll(() => after.textContent()).toBe(texts.travelAnswer);
    expect(await travel.locator('[data-testid="compare-case-scorer"][data-scorer="contains"]').getAttribute('data-moved')).toBe('up');
    // Markup is text, never interpreted.
    expect(await travel.locator('table, h1, h2').count()).toBe(0);
    expect(describeErrors(p)).toBe('');
  });
});
