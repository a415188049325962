import { beforeAll, describe, expect, it } from 'vitest';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { SEL } from '../helpers/dashboard.js';
import { RUNS_SEL, runsAgentBehaviour, type RunsAgentInput } from '../helpers/dashboard-runs.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { eventually } from '../helpers/eventually.js';
import { untilRunStatus } from '../helpers/run-results.js';
import { startTestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { describeSignificance, formatDelta, formatPercent, formatScore, valuePreview } from '../../ui/src/lib/runs.js';
import { formatUsd } from '../../ui/src/lib/cost.js';
import { formatDuration } from '../../ui/src/lib/format.js';
import { texts } from '../fixtures/corpus/texts.js';
import type { CaseResultView, RunComparison, RunView } from '../../ui/src/lib/types.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * The eval run pages in Chromium against the real service (Temporal dev server, PostgreSQL,
 * chDB) and an HTTP agent served by the test: the runs list with pass rates, a run's case table
 * with its scores, the failed-only filter in the URL, a case's trace, pause / resume / cancel from
 * the UI, and the comparison of two runs against what POST /api/compare answers. No page may log
 * a console error. Screenshots: test-output/screenshots/runs-*.png.
 */
let agent: TestAgent;

const SUITE = 'ui-weather';
const NARROW = { width: 420, height: 900 };

/**
 * Eight cases scored by `contains` and `toolSelection` (minimum 0.7, mean): v1 passes the first
 * six; v2 forgets the tool on paris, berlin and madrid (three toolSelection regressions) and
 * answers oslo right (a contains improvement). v1 passes 6 of 8 (75%), v2 4 of 8 (50%).
 */
const CASES: Array<{ name: string; input: RunsAgentInput; expected: Record<string, unknown> }> = [
  {
    name: 'paris',
    input: { answer: 'It is sunny in Paris', tools: ['weather'], forget_tools_in: ['v2'] },
    expected: { outputContains: ['sunny'], toolCalls: ['weather'] },
  },
  { name: 'rome', input: { answer: 'Rain in Rome', tools: ['weather'] }, expected: { outputContains: ['rain'], toolCalls: ['weather'] } },
  {
    name: 'berlin',
    input: { answer: 'Cloudy in Berlin', tools: ['weather'], forget_tools_in: ['v2'] },
    expected: { outputContains: ['cloudy'], toolCalls: ['weather'] },
  },
  {
    name: 'madrid',
    input: { answer: 'Hot in Madrid', tools: ['weather'], forget_tools_in: ['v2'] },
    expected: { outputContains: ['hot'], toolCalls: ['weather'] },
  },
  { name: 'lisbon', input: { answer: 'Windy in Lisbon', tools: ['weather'] }, expected: { outputContains: ['windy'], toolCalls: ['weather'] } },
  { name: 'vienna', input: { answer: 'Mild in Vienna', tools: ['weather'] }, expected: { outputContains: ['mild'], toolCalls: ['weather'] } },
  {
    name: 'oslo',
    input: { answer: 'I do not know', tools: ['weather'], better_in: ['v2'], better_answer: 'Snow in Oslo' },
    expected: { outputContains: ['snow'], toolCalls: ['weather'] },
  },
  { name: 'cairo', input: { answer: 'No idea', tools: [] }, expected: { outputContains: ['hot'], toolCalls: ['weather'] } },
];
const V1_FAILING = ['oslo', 'cairo'];

let runV1: RunView;
let runV2: RunView;

const waitForRun = (id: string, statuses: string[]) => untilRunStatus<RunView>(svc, id, statuses, 90_000);

async function resultsOf(id: string): Promise<CaseResultView[]> {
  return (await json<{ results: CaseResultView[] }>(await svc.api(`/api/runs/${id}/results`), 200)).results;
}

/** A run of `count` cases answered after `delayMs` each, one at a time (an inline dataset). */
async function startSlowRun(version: string, count = 20, delayMs = 300): Promise<RunView> {
  const items = Array.from({ length: count }, (_, i) => ({
    name: `slow-${i}`,
    input: { answer: 'ok', delay_ms: delayMs },
    expected: { outputContains: ['ok'] },
  }));
  return json<RunView>(
    await svc.api('/api/runs', {
      method: 'POST',
      json: {
        agentId: 'runs-ui-agent',
        agentVersion: version,
        name: `slow ${version}`,
        dataset: { items },
        scorers: ['contains'],
        config: { parallel: false },
      },
    }),
    202,
  );
}

/** The progress shown on the run page, as "done / total". */
async function progressText(p: WatchedPage): Promise<string> {
  return ((await p.page.locator(`${RUNS_SEL.summary} ${RUNS_SEL.progressText}`).textContent()) ?? '').trim();
}

const { svc, open } = dashboardSuite({
  async start() {
    agent = await startTestAgent(runsAgentBehaviour);
    return startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  },
  async seed() {
    await json(await svc.api('/api/agents', { method: 'POST', json: { name: 'runs-ui-agent', endpoint: agent.url } }), 201);
  },
  async after() {
    await agent?.close();
  },
});

describe('eval run pages in Chromium', () => {
  it('says what to do next when the project has no run', async () => {
    const p = await open();
    await p.page.goto('/runs');
    await expect.poll(() => p.page.getByTestId('runs-empty').textContent()).toContain('No eval runs yet');
    expect(await p.page.getByTestId('runs-empty').textContent()).toContain('/api/evals/runs');
    await p.screenshot('runs-list-empty');
    await p.page.goto('/compare/runs');
    await expect.poll(() => p.page.getByTestId('compare-empty').textContent()).toContain('No eval runs yet');
    expect(describeErrors(p)).toBe('');
  });

  describe('with two finished runs of a suite', () => {
    beforeAll(async () => {
      await postSuite(svc, { name: SUITE, agent_id: 'runs-ui-agent', defaultScorers: ['contains', 'toolSelection'], defaultMinScore: 0.7, cases: CASES });
      const start = (version: string) =>
        svc.api('/api/evals/runs', { method: 'POST', json: { suite_name: SUITE, agent_version: version, config: { parallel: true, timeout_ms: 10_000 } } });
      const v1 = await json<RunView>(await start('v1'), 202);
      runV1 = await waitForRun(v1.id, ['completed']);
      const v2 = await json<RunView>(await start('v2'), 202);
      runV2 = await waitForRun(v2.id, ['completed']);
      expect(runV1.summary).toMatchObject({ total_cases: 8, passed: 6, failed: 2 });
      expect(runV2.summary).toMatchObject({ total_cases: 8, passed: 4, failed: 4 });
    });

    it('lists both runs with their status, pass rate and average score', async () => {
      const p = await open();
      await p.page.goto('/runs');
      await expect.poll(() => p.page.locator(RUNS_SEL.runRow).count()).toBe(2);
      for (const [run, rate] of [
        [runV1, '75%'],
        [runV2, '50%'],
      ] as const) {
        const row = p.page.locator(RUNS_SEL.runRowOf(run.id));
        expect(formatPercent(run.summary.passed / (run.summary.passed + run.summary.failed))).toBe(rate);
        expect(await row.locator(RUNS_SEL.passRate).textContent()).toContain(rate);
        expect((await row.locator(RUNS_SEL.avgScore).textContent())?.trim()).toBe(formatScore(run.summary.avg_score));
        expect(await row.locator(RUNS_SEL.status).textContent()).toBe('completed');
        expect(await row.textContent()).toContain(SUITE);
        expect(await row.textContent()).toContain(run.agent_version);
        // A finished run offers no control.
        expect(await row.locator(RUNS_SEL.pause).count()).toBe(0);
      }
      // Newest first.
      expect(await p.page.locator(RUNS_SEL.runRow).first().getAttribute('data-run-id')).toBe(runV2.id);
      expect(await p.page.locator(RUNS_SEL.compareLink).getAttribute('href')).toBe('/compare/runs');
      await p.screenshot('runs-list');

      // Filters live in the URL.
      await p.page.locator(RUNS_SEL.filterStatus).selectOption('running');
      await p.page.waitForURL(/[?&]status=running/);
      await expect.poll(() => p.page.getByTestId('runs-empty').textContent()).toContain('No run matches');
      await p.page.locator(RUNS_SEL.filterStatus).selectOption('');
      await p.page.locator(RUNS_SEL.filterSuite).selectOption({ label: SUITE });
      await p.page.waitForURL((u) => u.searchParams.get('suite') === runV1.suite_id && !u.searchParams.has('status'));
      await expect.poll(() => p.page.locator(RUNS_SEL.runRow).count()).toBe(2);
      // By name too (as runs recorded it), from a shared link.
      await p.page.goto(`/runs?suite=${SUITE}`);
      await expect.poll(() => p.page.locator(RUNS_SEL.runRow).count()).toBe(2);
      expect(await p.page.locator(RUNS_SEL.filterSuite).inputValue()).toBe(SUITE);
      expect(describeErrors(p)).toBe('');
    });

    it('shows a run: summary, scores per scorer and case, failed-only in the URL, a case trace', async () => {
      const results = await resultsOf(runV1.id);
      const p = await open();
      await p.page.goto('/runs');
      await p.page.locator(RUNS_SEL.runRowOf(runV1.id)).getByRole('link').first().click();
      await p.page.waitForURL(new RegExp(`/runs/${runV1.id}$`));
      const summary = p.page.locator(RUNS_SEL.summary);
      await expect.poll(() => summary.getAttribute('data-status')).toBe('completed');
      expect(await summary.locator(RUNS_SEL.passRate).textContent()).toContain('75%');
      expect(await summary.locator(RUNS_SEL.passRate).textContent()).toContain('6 of 8 passed');
      expect(await summary.locator(RUNS_SEL.progressText).textContent()).toBe('8 / 8');
      for (const [scorer, value] of Object.entries(runV1.summary.scores_by_scorer)) {
        expect(await summary.locator(`${RUNS_SEL.scorer}[data-scorer="${scorer}"]`).textContent()).toContain(formatScore(value));
      }
      expect(await summary.textContent()).toContain('runs-ui-agent');

      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(CASES.length);
      for (const r of results) {
        const row = p.page.locator(RUNS_SEL.caseRowNamed(r.case_name));
        expect(await row.locator(RUNS_SEL.caseStatus).textContent(), r.case_name).toBe(r.status);
        for (const scorer of ['contains', 'toolSelection']) {
          const cell = row.locator(RUNS_SEL.caseScore(scorer));
          expect((await cell.textContent())?.trim(), `${r.case_name} ${scorer}`).toBe(formatScore(r.scores[scorer]));
          // The scorer's reason is on hover.
          expect(await cell.getAttribute('title')).toBe(r.details[scorer].reason);
        }
      }
      // The reason and evidence unfold under the case.
      await p.page.locator(RUNS_SEL.caseRowNamed('oslo')).locator(RUNS_SEL.caseToggle).click();
      await expect
        .poll(() => p.page.locator(RUNS_SEL.caseDetail).textContent())
        .toContain(results.find((r) => r.case_name === 'oslo')!.details.contains.reason);
      await p.screenshot('runs-detail');

      await p.page.locator(RUNS_SEL.failedOnly).check();
      await p.page.waitForURL(/[?&]failed=1/);
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(V1_FAILING.length);
      const shown = await p.page.locator(RUNS_SEL.caseRow).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case-name')));
      expect(shown.sort()).toEqual([...V1_FAILING].sort());
      await p.screenshot('runs-detail-failed');
      await p.page.reload();
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(V1_FAILING.length);
      expect(await p.page.locator(RUNS_SEL.failedOnly).isChecked()).toBe(true);

      // A case's trace: its link opens the trace page with that trace.
      const oslo = results.find((r) => r.case_name === 'oslo')!;
      expect(oslo.trace_id).toMatch(/^[0-9a-f]{32}$/);
      await eventually(async () => expect((await svc.api(`/api/traces/${oslo.trace_id}`)).status).toBe(200), 30_000);
      const link = p.page.locator(RUNS_SEL.caseRowNamed('oslo')).locator(RUNS_SEL.caseTraceLink);
      expect(await link.getAttribute('data-trace-id')).toBe(oslo.trace_id);
      await link.click();
      await p.page.waitForURL(new RegExp(`/traces/${oslo.trace_id}`));
      await expect.poll(() => p.page.locator(SEL.waterfallRow).first().textContent()).toContain('eval case: oslo');
      expect(describeErrors(p)).toBe('');
    });

    it('shows a run page on a narrow window', async () => {
      const p = await open({ viewport: NARROW });
      await p.page.goto(`/runs/${runV2.id}`);
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(CASES.length);
      await p.screenshot('runs-detail-narrow');
      await p.page.goto('/runs');
      await expect.poll(() => p.page.locator(RUNS_SEL.runRow).count()).toBeGreaterThanOrEqual(2);
      await p.screenshot('runs-list-narrow');
      expect(describeErrors(p)).toBe('');
    });

    it("shows each case's input, expected and output inline, its cost, and its change since the previous run of the suite", async () => {
      const [before, after] = [await resultsOf(runV1.id), await resultsOf(runV2.id)];
      // The results carry what each case asked and expected, as the suite gave them.
      for (const c of CASES) {
        const r = after.find((x) => x.case_name === c.name)!;
        expect([r.input, r.expected]).toEqual([c.input, c.expected]);
      }
      const p = await open({ viewport: { width: 1440, height: 900 } });
      await p.page.goto(`/runs/${runV2.id}`);
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(CASES.length);
      await expect.poll(() => p.page.getByTestId('run-previous-link').getAttribute('href')).toBe(`/runs/${runV1.id}`);
      expect(await p.page.getByTestId('run-previous-compare').getAttribute('href')).toBe(`/compare/runs?baseline=${runV1.id}&candidate=${runV2.id}`);
      for (const r of after) {
        const row = p.page.locator(RUNS_SEL.caseRowNamed(r.case_name));
        expect(await row.getByTestId('case-input').innerText(), r.case_name).toBe(valuePreview(r.input));
        expect(await row.getByTestId('case-expected').innerText(), r.case_name).toBe(valuePreview(r.expected));
        expect(await row.getByTestId('case-output').innerText(), r.case_name).toBe(valuePreview(r.output) || '-');
        expect(await row.getByTestId('case-cost').innerText(), r.case_name).toBe(formatUsd(r.cost?.total_usd));
        const delta = r.avg_score - before.find((x) => x.case_name === r.case_name)!.avg_score;
        expect(await row.getByTestId('case-vs-previous').innerText(), r.case_name).toBe(`${delta >= 0 ? '+' : '−'}${formatScore(Math.abs(delta))}`);
      }
      // paris lost its tool call in v2: its average dropped, shown as a drop.
      expect(await p.page.locator(RUNS_SEL.caseRowNamed('paris')).getByTestId('case-vs-previous').getAttribute('class')).toContain('low');
      // A preview opens the case: its input whole.
      await p.page.locator(RUNS_SEL.caseRowNamed('oslo')).getByTestId('case-input').getByRole('button').click();
      await expect.poll(() => p.page.locator(RUNS_SEL.caseDetail).textContent()).toContain('better_answer');
      await p.screenshot('runs-detail-inline');
      await p.page.getByTestId('run-previous-compare').click();
      await p.page.waitForURL(/\/compare\/runs\?baseline=/);
      expect(describeErrors(p)).toBe('');
    });

    it('pauses a running run from the UI (progress stops), resumes it, and it completes', async () => {
      const run = await startSlowRun('slow-pause');
      const p = await open();
      await p.page.goto(`/runs/${run.id}`);
      const summary = p.page.locator(RUNS_SEL.summary);
      await expect.poll(() => summary.getAttribute('data-status'), { timeout: 30_000 }).toBe('running');
      // Live progress: the bar moves while the run runs.
      await expect
        .poll(async () => Number(await summary.locator(RUNS_SEL.progress).getAttribute('data-completed')), { timeout: 30_000 })
        .toBeGreaterThanOrEqual(2);
      await p.screenshot('runs-detail-running');
      await summary.locator(RUNS_SEL.pause).click();
      await expect.poll(() => summary.getAttribute('data-status')).toBe('paused');
      expect(await summary.locator(RUNS_SEL.controlMessage).textContent()).toBe('Paused.');
      expect(await summary.locator(RUNS_SEL.resume).count()).toBe(1);
      // The case in flight may still finish (on a busy machine, seconds later); after that the
      // progress stays where it is, on the server and on the page.
      const completedNow = async () => (await json<{ progress: { completed: number } }>(await svc.api(`/api/runs/${run.id}/status`), 200)).progress.completed;
      let done = await completedNow();
      await expect
        .poll(
          async () => {
            await new Promise((r) => setTimeout(r, 1500));
            const now = await completedNow();
            const settled = now === done;
            done = now;
            return settled;
          },
          { timeout: 30_000 },
        )
        .toBe(true);
      expect(done).toBeLessThan(20);
      await expect.poll(() => progressText(p)).toBe(`${done} / 20`);
      await new Promise((r) => setTimeout(r, 2000));
      expect(await progressText(p)).toBe(`${done} / 20`);
      expect(await completedNow()).toBe(done);
      await p.screenshot('runs-detail-paused');

      await summary.locator(RUNS_SEL.resume).click();
      await expect.poll(() => summary.getAttribute('data-status'), { timeout: 60_000 }).toBe('completed');
      expect(await progressText(p)).toBe('20 / 20');
      expect(await summary.locator(RUNS_SEL.passRate).textContent()).toContain('100%');
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(20);
      // The case table refreshes on its own poll, after the summary: its last row may still be on its way.
      await expect.poll(() => p.page.locator(`${RUNS_SEL.caseRow}[data-status="passed"]`).count()).toBe(20);
      expect((await json<RunView>(await svc.api(`/api/runs/${run.id}`), 200)).status).toBe('completed');
      expect(describeErrors(p)).toBe('');
    });

    it('cancels a running run from the runs list', async () => {
      const run = await startSlowRun('slow-cancel');
      const p = await open();
      await p.page.goto('/runs');
      const row = p.page.locator(RUNS_SEL.runRowOf(run.id));
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('running');
      await expect.poll(async () => Number(await row.locator(RUNS_SEL.progress).getAttribute('data-completed')), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      p.page.once('dialog', (d) => void d.accept());
      await row.locator(RUNS_SEL.cancel).click();
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled');
      expect(await row.locator(RUNS_SEL.controlMessage).textContent()).toBe('Cancelled.');
      expect(await row.locator(RUNS_SEL.cancel).count()).toBe(0);
      const cancelled = await json<RunView>(await svc.api(`/api/runs/${run.id}`), 200);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.summary.cancelled).toBeGreaterThan(0);
      // Every trial is recorded (the ones it did not run as cancelled), so the bar shows the trials
      // that ran and the cancelled rest apart: never a full bar reading "N / N".
      const { completed, total, cancelled: skipped } = cancelled.progress;
      expect(completed).toBe(total);
      expect(skipped).toBeGreaterThan(0);
      const ran = completed - skipped;
      expect(ran).toBeLessThan(total);
      const bar = row.locator(RUNS_SEL.progress);
      await expect.poll(() => bar.getAttribute('data-ran')).toBe(String(ran));
      expect(await bar.getAttribute('data-cancelled-trials')).toBe(String(skipped));
      expect(await bar.locator('[data-testid="run-progress-text"]').textContent()).toBe(`${ran} / ${total}`);
      expect(await bar.locator('[role="progressbar"]').getAttribute('aria-valuetext')).toBe(
        `${ran} of ${total} case trials ran, ${skipped} cancelled before they ran`,
      );
      const fillWidth = await bar
        .locator('.fill')
        .first()
        .evaluate((el) => el.getBoundingClientRect().width);
      const barWidth = await bar.locator('[role="progressbar"]').evaluate((el) => el.getBoundingClientRect().width);
      expect(fillWidth).toBeLessThan(barWidth * 0.99);
      expect(await bar.locator('[data-testid="run-progress-skipped"]').count()).toBe(1);
      await p.screenshot('runs-list-cancelled');
      expect(describeErrors(p)).toBe('');
    });

    it('shows the cases waiting for approval and approves or rejects them from the run page', async () => {
      const run = await json<RunView>(
        await svc.api('/api/runs', {
          method: 'POST',
          json: {
            agentId: 'runs-ui-agent',
            agentVersion: 'approvals',
            name: 'needs approval',
            dataset: {
              items: [
                {
                  name: 'send-mail',
                  input: { answer: 'mail sent', approval: 'send_email', reason: 'mails the customer' },
                  expected: { outputContains: ['sent'] },
                },
                { name: 'refund', input: { answer: 'refund made', approval: 'issue_refund' }, expected: { outputContains: ['refund'] } },
                { name: 'lookup', input: { answer: 'found it' }, expected: { outputContains: ['found'] } },
              ],
            },
            scorers: ['contains'],
            config: { parallel: true },
          },
        }),
        202,
      );
      const p = await open();
      await p.page.goto(`/runs/${run.id}`);
      const panel = p.page.locator(RUNS_SEL.approvals);
      await expect.poll(() => panel.locator(RUNS_SEL.approval).count(), { timeout: 30_000 }).toBe(2);
      const mail = panel.locator(`${RUNS_SEL.approval}[data-case-index="0"]`);
      // The case's name, once the case table holds the waiting case (it may have been read before the case's row was recorded).
      await expect.poll(() => mail.textContent()).toContain('send-mail');
      expect(await mail.textContent()).toContain('send_email');
      expect(await mail.textContent()).toContain('mails the customer');
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRowNamed('send-mail')).locator(RUNS_SEL.caseAwaitingApproval).count()).toBe(1);
      expect(await p.page.locator(RUNS_SEL.summary).getAttribute('data-status')).toBe('running');
      await p.screenshot('runs-detail-approval');

      await mail.locator(RUNS_SEL.approve).click();
      await expect.poll(() => panel.locator(RUNS_SEL.approvalDone).textContent()).toContain('Approved send_email');
      await expect.poll(() => panel.locator(RUNS_SEL.approval).count()).toBe(1);
      const refund = panel.locator(`${RUNS_SEL.approval}[data-case-index="1"]`);
      await refund.locator(RUNS_SEL.approvalComment).fill('no refunds today');
      await refund.locator(RUNS_SEL.reject).click();
      await expect.poll(() => p.page.locator(RUNS_SEL.summary).getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
      expect(await panel.locator(RUNS_SEL.approval).count()).toBe(0);
      await expect.poll(() => p.page.locator(RUNS_SEL.caseRowNamed('refund')).locator(RUNS_SEL.caseStatus).textContent()).toBe('failed');
      expect(await p.page.locator(RUNS_SEL.caseRowNamed('refund')).locator('[data-testid="case-error"]').textContent()).toContain('denied: no refunds today');
      expect(await p.page.locator(RUNS_SEL.caseRowNamed('send-mail')).locator(RUNS_SEL.caseStatus).textContent()).toBe('passed');
      expect(agent.callsFor('send-mail', run.id)[1]?.body.approval).toMatchObject({ approved: true });
      expect(describeErrors(p)).toBe('');
    });

    it('compares the two suite runs by default and shows what POST /api/compare answers', async () => {
      const api = await json<RunComparison>(
        await svc.api('/api/compare', { method: 'POST', json: { baseline_run_id: runV1.id, candidate_run_id: runV2.id, threshold: 0.05 } }),
        200,
      );
      expect(api.regressions.map((r) => r.case_name).sort()).toEqual(['berlin', 'madrid', 'paris']);
      expect(api.improvements.map((r) => `${r.case_name}/${r.scorer}`)).toEqual(['oslo/contains']);

      const p = await open();
      await p.page.goto('/runs');
      await p.page.locator(RUNS_SEL.compareLink).click();
      // The latest two runs of the same suite, written into the URL (the slow runs have no suite).
      await p.page.waitForURL(
        (u) => u.pathname === '/compare/runs' && u.searchParams.get('baseline') === runV1.id && u.searchParams.get('candidate') === runV2.id,
      );
      expect(await p.page.locator(RUNS_SEL.compareBaseline).inputValue()).toBe(runV1.id);
      expect(await p.page.locator(RUNS_SEL.compareCandidate).inputValue()).toBe(runV2.id);

      await expect.poll(() => p.page.locator(RUNS_SEL.compareDelta).textContent()).toBe(formatDelta(api.overall_delta));
      expect(Math.abs(Number(await p.page.locator(RUNS_SEL.compareDelta).textContent()) - api.overall_delta)).toBeLessThanOrEqual(0.005 + 1e-9);
      const sentence = await p.page.locator(RUNS_SEL.compareSentence).textContent();
      expect(sentence).toBe(describeSignificance(api));
      expect(sentence).toContain(`The candidate scores ${formatScore(Math.abs(api.overall_delta))} lower on average`);
      if (api.significance.ci95) expect(sentence).toContain(`95% CI ${formatScore(api.significance.ci95[0])} to ${formatScore(api.significance.ci95[1])}`);
      expect(await p.page.locator(RUNS_SEL.compareVerdict).getAttribute('data-passed')).toBe('false');

      const regressions = await p.page.locator(RUNS_SEL.compareRegression).evaluateAll((rows) =>
        rows.map((r) => ({
          case_name: r.getAttribute('data-case'),
          scorer: r.getAttribute('data-scorer'),
          delta: r.querySelector('[data-testid="compare-change-delta"]')?.textContent,
        })),
      );
      expect(regressions).toEqual(api.regressions.map((r) => ({ case_name: r.case_name, scorer: r.scorer, delta: formatDelta(r.delta) })));
      const improvements = await p.page
        .locator(RUNS_SEL.compareImprovement)
        .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-case')}/${r.getAttribute('data-scorer')}`));
      expect(improvements).toEqual(['oslo/contains']);
      // Per scorer: three toolSelection regressions, one contains improvement.
      const toolRow = await p.page.locator(`${RUNS_SEL.compareScorer}[data-scorer="toolSelection"]`).textContent();
      expect(toolRow).toContain('3');
      expect(await p.page.locator(RUNS_SEL.compareWarning).count()).toBe(0);
      await p.screenshot('runs-compare');

      // Swapping the runs turns regressions into improvements.
      await p.page.getByRole('button', { name: 'Swap baseline and candidate' }).click();
      await p.page.waitForURL((u) => u.searchParams.get('baseline') === runV2.id);
      await expect.poll(() => p.page.locator(RUNS_SEL.compareDelta).textContent()).toBe(formatDelta(-api.overall_delta));
      await expect.poll(() => p.page.locator(RUNS_SEL.compareImprovement).count()).toBe(3);
      expect(describeErrors(p)).toBe('');
    });

    it("shows the corpus's markdown, Hebrew and emoji answers inline, two lines a row, at 1440 and 420 px", async () => {
      const corpus = [
        { name: 'markdown', answer: texts.travelAnswer, word: 'Tokyo' },
        { name: 'hebrew', answer: texts.policyRefundsHebrew, word: 'החזר' },
        { name: 'scripts', answer: texts.multilingual, word: 'Emoji' },
      ];
      const items = corpus.map((c) => ({ name: c.name, input: { answer: c.answer, tools: [] }, expected: { outputContains: [c.word] } }));
      const started = await json<RunView>(
        await svc.api('/api/runs', {
          method: 'POST',
          json: { agentId: 'runs-ui-agent', agentVersion: 'corpus', name: 'corpus texts', dataset: { items }, scorers: ['contains'] },
        }),
        202,
      );
      await waitForRun(started.id, ['completed']);
      const results = await resultsOf(started.id);
      expect(results.map((r) => r.output).sort()).toEqual(corpus.map((c) => c.answer).sort());
      for (const viewport of [{ width: 1440, height: 900 }, NARROW]) {
        const p = await open({ viewport });
        await p.page.goto(`/runs/${started.id}`);
        await expect.poll(() => p.page.locator(RUNS_SEL.caseRow).count()).toBe(corpus.length);
        for (const r of results) {
          const row = p.page.locator(RUNS_SEL.caseRowNamed(r.case_name));
          expect(await row.getByTestId('case-input').innerText(), r.case_name).toBe(valuePreview(r.input));
          expect(await row.getByTestId('case-expected').innerText(), r.case_name).toBe(valuePreview(r.expected));
          expect(await row.getByTestId('case-output').innerText(), r.case_name).toBe(valuePreview(r.output));
          expect(await row.getByTestId('case-output').getByRole('button').getAttribute('dir')).toBe('auto');
          expect((await row.locator(RUNS_SEL.caseScore('contains')).innerText()).trim()).toBe(formatScore(r.scores.contains));
          expect(await row.getByTestId('case-duration').innerText()).toBe(formatDuration(r.duration_ms));
          expect(await row.getByTestId('case-cost').innerText()).toBe(r.cost ? formatUsd(r.cost.total_usd) : '-');
          // Two lines at most: the multi-paragraph answers do not stretch the row.
          const box = await row.getByTestId('case-output').getByRole('button').boundingBox();
          expect(box?.height, r.case_name).toBeLessThan(48);
        }
        // The page itself never scrolls sideways (the table scrolls in its own box).
        expect(await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        await p.screenshot(`runs-detail-corpus-${viewport.width}`);
        // The Hebrew case unfolds in place with its whole answer.
        await p.page.locator(RUNS_SEL.caseRowNamed('hebrew')).getByTestId('case-output').getByRole('button').click();
        await expect.poll(() => p.page.locator(RUNS_SEL.caseDetail).textContent()).toContain('ניתן לקבל החזר');
        // ... in the visible part of the table, even at 420 px where the table scrolls sideways.
        const detail = await p.page.locator(RUNS_SEL.caseDetail).boundingBox();
        expect(detail!.x).toBeGreaterThanOrEqual(0);
        expect(detail!.x + detail!.width).toBeLessThanOrEqual(viewport.width);
        await p.screenshot(`runs-detail-corpus-${viewport.width}-open`);
        expect(describeErrors(p)).toBe('');
      }
    });

    it('says in words when the compared runs are of different suites or not completed', async () => {
      const cancelled = (await json<{ runs: RunView[] }>(await svc.api('/api/runs?status=cancelled'), 200)).runs[0];
      expect(cancelled).toBeDefined();
      const p = await open({ viewport: NARROW });
      await p.page.goto(`/compare/runs?baseline=${runV1.id}&candidate=${cancelled.id}`);
      await expect.poll(() => p.page.locator(RUNS_SEL.compareWarning).count()).toBe(2);
      const warnings = (await p.page.locator(RUNS_SEL.compareWarning).allTextContents()).join('\n');
      expect(warnings).toContain('different suites');
      expect(warnings).toContain('The candidate run is cancelled');
      // No case name in common: nothing to compare, said so.
      await expect.poll(() => p.page.locator(RUNS_SEL.compareSentence).textContent()).toContain('No case was scored in both runs');
      await p.screenshot('runs-compare-narrow');
      expect(describeErrors(p)).toBe('');
    });
  });
});
