import { describe, expect, it } from 'vitest';
import { describeErrors } from '../helpers/browser.js';
import { nestedAgentTrace } from '../helpers/dashboard.js';
import { FEEDBACK } from '../helpers/dashboard-feedback.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';

/**
 * /feedback in Chromium against the real service: a review queue worked from the UI (a rating, a
 * yes/no score, a correction, then the correction sent to a suite; a skip), an A/B comparison
 * answered, and the feedback already given listed, filtered and paged. What the UI submitted is
 * read back through the API. Screenshots: test-output/screenshots/feedback-*.png.
 */
const TRACES = ['fb-trace-1', 'fb-trace-2', 'fb-trace-3'];
const QUEUE_NAME = 'refund answers';
const SUITE_NAME = 'refund-regressions';
const CORRECTED = 'Refunds are accepted within 30 days of delivery, with the receipt.';
let queueId: string;
let comparisonId: string;

const { svc, open, call } = dashboardSuite({
  async seed() {
    const now = Date.now();
    for (const [i, id] of TRACES.entries()) {
      await call('/api/traces/ingest', { method: 'POST', json: nestedAgentTrace(id, 8, { start: now - 60_000 * (i + 1), name: 'support-bot.run' }) }, 201);
    }
    const queue = await call<{ id: string }>(
      '/api/queues',
      {
        method: 'POST',
        json: {
          name: QUEUE_NAME,
          description: 'Answers about refunds',
          score_names: [
            { name: 'rating', min: 1, max: 5 },
            { name: 'helpful', type: 'boolean' },
          ],
          trace_ids: [TRACES[0], TRACES[1]],
        },
      },
      201,
    );
    queueId = queue.id;
    const comparison = await call<{ id: string }>(
      '/api/feedback/comparisons',
      {
        method: 'POST',
        json: {
          prompt: 'What is the refund policy?',
          output_a: 'Refunds: yes.',
          output_b: 'You can get a refund within 30 days of delivery; keep the receipt.',
          trace_a: TRACES[1],
          trace_b: TRACES[2],
        },
      },
      201,
    );
    comparisonId = comparison.id;
    await call(
      '/api/feedback',
      { method: 'POST', json: { type: 'rating', trace_id: TRACES[2], thumbs: 'down', comment: 'too vague', source: 'slack', user_id: 'dana' } },
      201,
    );
    // Enough feedback from one source to page through (25 a page).
    for (let i = 0; i < 27; i++)
      await call('/api/feedback', { method: 'POST', json: { type: 'rating', trace_id: TRACES[2], value: (i % 10) / 10, source: 'bulk-import' } }, 201);
    await call(
      '/api/suites',
      { method: 'POST', json: { name: SUITE_NAME, cases: [{ name: 'seed', input: { query: 'hello' }, expected: { output: 'hi' }, scorers: ['exactMatch'] }] } },
      201,
    );
  },
});

describe('/feedback in Chromium', () => {
  it('works a queue item to completion with a rating and a correction, sends the correction to a suite, and skips the next', async () => {
    const p = await open();
    await p.page.goto('/feedback');
    const row = p.page.locator(FEEDBACK.queueRowNamed(queueId));
    await expect.poll(() => row.textContent()).toContain(QUEUE_NAME);
    expect(await row.textContent()).toContain('0 of 2 done');
    await row.click();
    await p.page.waitForURL(new RegExp(`[?&]queue=${queueId}`));
    await expect.poll(() => p.page.locator(FEEDBACK.queueDetail).textContent()).toContain('rating (1 to 5)');
    await p.screenshot('feedback-queue');

    await p.page.locator(FEEDBACK.queueNext).click();
    await p.page.waitForURL(/[?&]item=/);
    const item = p.page.locator(FEEDBACK.reviewItem);
    const itemId = (await item.getAttribute('data-item-id'))!;
    // The first item in queue order, with its trace's input and output (the root span's).
    await expect.poll(() => item.textContent()).toContain(`What is the refund policy? (${TRACES[0]})`);
    await expect.poll(() => item.textContent()).toContain('Refunds within 30 days.');
    expect(await item.locator('[data-testid="review-trace-link"]').getAttribute('href')).toBe(`/traces/${TRACES[0]}`);
    expect(await p.page.locator(FEEDBACK.reviewStatus).textContent()).toBe('locked');

    await p.page.locator(FEEDBACK.scoreScale('rating')).getByLabel('4').check();
    await item
      .getByRole('group', { name: /helpful/ })
      .getByLabel('yes')
      .check();
    await p.page.locator(FEEDBACK.reviewComment).fill('Right policy, missing the receipt rule');
    await p.page.locator(FEEDBACK.reviewCorrect).check();
    // The correction starts from the output as it was.
    await expect.poll(() => p.page.locator(FEEDBACK.reviewCorrected).inputValue()).toContain('Refunds within 30 days.');
    await p.page.locator(FEEDBACK.reviewCorrected).fill(CORRECTED);
    await p.screenshot('feedback-review-item');
    await p.page.locator(FEEDBACK.reviewComplete).click();
    await expect.poll(() => p.page.locator(FEEDBACK.reviewCompleted).textContent()).toContain(CORRECTED);
    await expect.poll(() => p.page.locator(FEEDBACK.queueCompleted).textContent()).toContain('1 of 2');

    // Stored as submitted: the item, its scores on the trace, the correction feedback.
    const stored = await call<{ status: string; scores: Record<string, unknown>; comment: string; correction: { original: string; corrected: string } }>(
      `/api/queues/${queueId}/items/${itemId}`,
    );
    expect(stored.status).toBe('completed');
    expect(stored.scores).toEqual({ rating: 4, helpful: true });
    expect(stored.comment).toBe('Right policy, missing the receipt rule');
    expect(stored.correction.corrected).toBe(CORRECTED);
    expect(stored.correction.original).toContain('Refunds within 30 days.');
    const scores = await call<{ scores: Array<{ name: string; value: number }> }>(`/api/scores?trace_id=${TRACES[0]}`);
    expect(scores.scores.find((s) => s.name === 'rating')?.value).toBe(0.75);
    expect(scores.scores.find((s) => s.name === 'helpful')?.value).toBe(1);
    const corrections = await call<{ feedback: Array<{ source: string; correction: { corrected: string } }> }>(
      `/api/feedback?type=correction&trace_id=${TRACES[0]}`,
    );
    expect(corrections.feedback.map((f) => [f.source, f.correction.corrected])).toEqual([['review_queue', CORRECTED]]);

    // The correction becomes a case of the suite.
    await expect.poll(() => p.page.locator(FEEDBACK.toSuiteForm).count()).toBe(1);
    await p.page.locator(FEEDBACK.toSuiteSend).click();
    await expect.poll(() => p.page.locator(FEEDBACK.toSuiteDone).textContent()).toContain(SUITE_NAME);
    await p.screenshot('feedback-review-completed');
    const suites = await call<{ suites: Array<{ name: string; version: number; case_count: number }> }>(`/api/suites?name=${SUITE_NAME}`);
    expect(suites.suites[0]).toMatchObject({ version: 2, case_count: 2 });

    // The URL alone shows the item again, completed.
    await p.page.reload();
    await expect.poll(() => p.page.locator(FEEDBACK.reviewCompleted).count()).toBe(1);
    expect(await p.page.locator(FEEDBACK.toSuiteDone).textContent()).toContain(SUITE_NAME);

    // The next item: skipped from the UI.
    await p.page.locator(FEEDBACK.reviewNext).click();
    await expect.poll(() => p.page.locator(FEEDBACK.reviewItem).getAttribute('data-item-id')).not.toBe(itemId);
    await expect.poll(() => p.page.locator(FEEDBACK.reviewItem).textContent()).toContain(`(${TRACES[1]})`);
    const second = (await p.page.locator(FEEDBACK.reviewItem).getAttribute('data-item-id'))!;
    expect(p.page.url()).toContain(`item=${second}`);
    await p.page.locator(FEEDBACK.reviewSkip).click();
    await expect.poll(() => p.page.locator(FEEDBACK.reviewStatus).textContent()).toBe('skipped');
    expect((await call<{ status: string }>(`/api/queues/${queueId}/items/${second}`)).status).toBe('skipped');
    expect(describeErrors(p)).toBe('');
  });

  it('answers an A/B comparison with both outputs side by side', async () => {
    const p = await open();
    await p.page.goto('/feedback');
    await p.page.locator(FEEDBACK.tab('compare')).click();
    await p.page.waitForURL(/[?&]tab=compare/);
    const row = p.page.locator(`${FEEDBACK.comparisonRow}[data-comparison-id="${comparisonId}"]`);
    await row.click();
    await p.page.waitForURL(new RegExp(`[?&]comparison=${comparisonId}`));
    const a = p.page.locator(FEEDBACK.comparisonSide('a'));
    const b = p.page.locator(FEEDBACK.comparisonSide('b'));
    await expect.poll(() => a.textContent()).toContain('Refunds: yes.');
    expect(await b.textContent()).toContain('keep the receipt');
    // Side by side at 1280 px: B to the right of A, on the same row.
    const [boxA, boxB] = await Promise.all([a.boundingBox(), b.boundingBox()]);
    expect(boxB!.x).toBeGreaterThan(boxA!.x + boxA!.width - 1);
    expect(Math.abs(boxB!.y - boxA!.y)).toBeLessThan(2);
    expect(await a.locator('a').getAttribute('href')).toBe(`/traces/${TRACES[1]}`);

    await p.page.getByLabel('B is better').check();
    await p.page.locator(FEEDBACK.comparisonReason).fill('mentions the receipt');
    await p.screenshot('feedback-comparison');
    await p.page.locator(FEEDBACK.comparisonSubmit).click();
    await expect.poll(() => p.page.locator(FEEDBACK.comparisonAnswered).textContent()).toContain('B is better');
    await p.screenshot('feedback-comparison-answered');

    const stored = await call<{ status: string; preferred: string; reason: string; feedback_id: string }>(`/api/feedback/comparisons/${comparisonId}`);
    expect(stored).toMatchObject({ status: 'answered', preferred: 'b', reason: 'mentions the receipt' });
    const fb = await call<{ type: string; preference: { chosen: string; chosen_trace_id: string; rejected_trace_id: string } }>(
      `/api/feedback/${stored.feedback_id}`,
    );
    expect(fb.preference).toMatchObject({ chosen_trace_id: TRACES[2], rejected_trace_id: TRACES[1] });
    expect(fb.preference.chosen).toContain('keep the receipt');
    // Answered: no longer waiting.
    await p.page.goto('/feedback?tab=compare');
    await expect.poll(() => p.page.locator('[data-testid="comparisons-empty"]').count()).toBe(1);
    expect(describeErrors(p)).toBe('');
  });

  it('lists the feedback given, filters it by kind and source in the URL, pages through it, and links each to its trace', async () => {
    const p = await open();
    await p.page.goto('/feedback?tab=given');
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(25);
    await p.screenshot('feedback-given');

    await p.page.locator(FEEDBACK.givenType).selectOption('correction');
    await p.page.waitForURL(/[?&]type=correction/);
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(1);
    const correction = p.page.locator(FEEDBACK.givenRow).first();
    expect(await correction.textContent()).toContain(CORRECTED.slice(0, 40));
    expect(await correction.textContent()).toContain('review_queue');

    await p.page.locator(FEEDBACK.givenType).selectOption('preference');
    await p.page.waitForURL(/[?&]type=preference/);
    // The URL changes before the new page of feedback replaces the correction's row: wait for it.
    const pref = p.page.locator(FEEDBACK.givenRow).first();
    await expect.poll(() => pref.textContent()).toContain('through an A/B comparison');
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(1);
    expect(await pref.locator(FEEDBACK.givenTraceLink).allTextContents()).toEqual([TRACES[2], TRACES[1]]);

    // Source and kind together, as a shared link gives them.
    await p.page.goto('/feedback?tab=given&type=rating&source=slack');
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(1);
    expect(await p.page.locator(FEEDBACK.givenRow).textContent()).toContain('thumbs down. too vague');
    expect(await p.page.locator(FEEDBACK.givenSource).inputValue()).toBe('slack');

    // 27 from one source: two pages.
    await p.page.locator(FEEDBACK.givenSource).fill('bulk-import');
    await p.page.getByRole('button', { name: 'Filter' }).click();
    await p.page.waitForURL(/[?&]source=bulk-import/);
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(25);
    await p.page.locator(FEEDBACK.givenNext).click();
    await p.page.waitForURL(/[?&]cursor=/);
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(2);
    expect(await p.page.locator(FEEDBACK.givenNext).count()).toBe(0);
    await p.page.locator(FEEDBACK.givenFirst).click();
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBe(25);

    // Each row links to its trace.
    await p.page.locator(FEEDBACK.givenTraceLink).first().click();
    await p.page.waitForURL(new RegExp(`/traces/${TRACES[2]}$`));
    expect(describeErrors(p)).toBe('');
  });

  it('creates a queue from the UI', async () => {
    const p = await open();
    await p.page.goto('/feedback');
    await p.page.locator(FEEDBACK.queueNew).click();
    await p.page.locator(FEEDBACK.queueName).fill('second look');
    await p.page.getByLabel('These trace ids').check();
    await p.page.locator(FEEDBACK.queueTraceIds).fill(`${TRACES[2]}\n${TRACES[0]}`);
    await p.screenshot('feedback-queue-create');
    await p.page.locator(FEEDBACK.queueCreate).click();
    await expect.poll(() => p.page.locator(FEEDBACK.queueCreated).textContent()).toContain('Queue "second look" created with 2 items');
    await p.page.waitForURL(/[?&]queue=/);
    const id = new URL(p.page.url()).searchParams.get('queue')!;
    await expect.poll(() => p.page.locator(FEEDBACK.queueRowNamed(id)).textContent()).toContain('second look');
    const stored = await call<{ name: string; score_names: Array<{ name: string; min: number; max: number }>; counts: { total: number } }>(`/api/queues/${id}`);
    expect(stored).toMatchObject({ name: 'second look', counts: { total: 2 } });
    expect(stored.score_names.map((c) => [c.name, c.min, c.max])).toEqual([['rating', 1, 5]]);
    const items = await call<{ items: Array<{ trace_id: string }> }>(`/api/queues/${id}/items`);
    expect(items.items.map((i) => i.trace_id)).toEqual([TRACES[2], TRACES[0]]);
    expect(describeErrors(p)).toBe('');
  });

  it('tells a read-only key, in words, that it may not review', async () => {
    const made = await call<{ key: string }>(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'viewer', role: 'viewer' } }, 201);
    const p = await open({ apiKey: made.key, project: svc.defaultProjectId });
    await p.page.goto(`/feedback?queue=${queueId}`);
    await p.page.locator(FEEDBACK.queueNext).click();
    await expect.poll(() => p.page.locator(FEEDBACK.queueNextMessage).textContent()).toContain('missing permission feedback:write');
    // The browser logs the 403 response itself; the page throws nothing.
    expect(p.errors.filter((e) => !e.includes('403'))).toEqual([]);
  });

  it('says what to do next in a project without feedback', async () => {
    const key = await svc.keyFor('fb-empty');
    const p = await open({ apiKey: key, project: 'fb-empty' });
    await p.page.goto('/feedback');
    await expect.poll(() => p.page.locator(FEEDBACK.queuesEmpty).textContent()).toContain('No review queues yet');
    expect(await p.page.locator(FEEDBACK.queuesEmpty).textContent()).toContain('/api/queues');
    await p.screenshot('feedback-empty');
    await p.page.locator(FEEDBACK.tab('compare')).click();
    await expect.poll(() => p.page.locator(FEEDBACK.comparisonsEmpty).textContent()).toContain('/api/feedback/comparisons');
    await p.page.locator(FEEDBACK.tab('given')).click();
    await expect.poll(() => p.page.locator(FEEDBACK.givenEmpty).textContent()).toContain('No feedback yet');
    expect(describeErrors(p)).toBe('');
  });

  it('fits a narrow window', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto(`/feedback?queue=${queueId}`);
    await expect.poll(() => p.page.locator(FEEDBACK.queueDetail).count()).toBe(1);
    await p.screenshot('feedback-queue-narrow');
    await p.page.goto(`/feedback?tab=compare&status=answered&comparison=${comparisonId}`);
    await expect.poll(() => p.page.locator(FEEDBACK.comparisonAnswered).count()).toBe(1);
    await p.screenshot('feedback-comparison-narrow');
    await p.page.goto('/feedback?tab=given');
    await expect.poll(() => p.page.locator(FEEDBACK.givenRow).count()).toBeGreaterThan(0);
    // The table scrolls inside its wrapper; the page itself does not.
    expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await p.screenshot('feedback-given-narrow');
    expect(describeErrors(p)).toBe('');
  });
});
