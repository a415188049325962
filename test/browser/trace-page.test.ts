import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { nestedAgentTrace, SEL } from '../helpers/dashboard.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { traceBody } from '../helpers/dashboard-traces.js';
import { FAILING_STEPS, HOSTILE_MARKDOWN, NEEDLE, NEEDLE_STEP, researchIds, researchTrace } from '../helpers/dashboard-trace-page.js';

/**
 * The trace page for finding things in a big trace (issue 32), in Chromium against the real
 * service: the root span shown on open, the model, tokens and cost on each row, errors marked on
 * folded ancestors, the error count that walks through the errors (the keyboard finds the third
 * error of a 2,000-span trace), span search and filters that open the paths to their matches, the
 * resizable split, the forms in a drawer, markdown rendered and sanitized with a Raw toggle,
 * agents and chains drawn apart, an axis whose labels never overlap, "1 error", at 1440 and
 * 420 px, and the time to first content of a 2,000- and a 10,000-span trace.
 * Screenshots: test-output/screenshots/trace-page-*.png.
 */
const BIG = 'tp-2k';
const HUGE = 'tp-10k';
const SMALL = 'tp-md';
const ONE_ERROR = 'tp-one-error';
const ids = researchIds(BIG);
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 420, height: 860 };

const { open } = dashboardSuite({
  timeout: 300_000,
  async seed(svc) {
    const now = Date.now();
    const bodies = [
      researchTrace(BIG, 2_000, { start: now - 300_000 }),
      nestedAgentTrace(HUGE, 10_000, { start: now - 400_000, name: 'huge-run' }),
      // 2.6 s long: an axis of 500 ms steps, whose last labels used to overlap ("2000 m2500 ms").
      traceBody(SMALL, {
        name: 'markdown-run',
        start: now - 200_000,
        durationMs: 2_600,
        spans: [
          { id: `${SMALL}-hostile`, name: 'hostile tool', type: 'tool', at: 100, ms: 2_400, output: HOSTILE_MARKDOWN },
          { id: `${SMALL}-plain`, name: 'plain text', type: 'tool', at: 200, ms: 300, output: 'Just a sentence, no markup at all.' },
        ],
      }),
      traceBody(ONE_ERROR, {
        name: 'one-error-run',
        start: now - 100_000,
        durationMs: 500,
        status: 'error',
        spans: [{ id: `${ONE_ERROR}-t`, name: 'flaky tool', type: 'tool', at: 10, ms: 100, status: 'error' }],
      }),
    ];
    for (const body of bodies) {
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
      expect(res.status, await res.clone().text()).toBe(201);
    }
  },
});

const row = (page: Page, spanId: string) => page.locator(SEL.waterfallRowOf(spanId));
const detailId = (page: Page) => page.locator(SEL.spanDetail).getAttribute('data-span-id');

/** Whether the element is wholly inside the viewport of the page. */
const inView = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
  });

async function openTrace(traceId: string, viewport = WIDE, query = ''): Promise<WatchedPage> {
  const p = await open({ viewport });
  await p.page.goto(`/traces/${traceId}${query}`);
  await p.page.locator(SEL.spanDetail).waitFor({ timeout: 30_000 });
  return p;
}

/** Nothing wider than the window: no sideways scroll. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describe('trace page: a 2,000-span trace', () => {
  it('opens on the root span: the trace input and output at once; rows carry model, tokens, cost, status; agents and chains stand apart', async () => {
    const p = await openTrace(BIG);
    // The root is shown without a ?span= in the URL.
    expect(await detailId(p.page)).toBe(ids.root);
    expect(p.page.url()).not.toContain('span=');
    await expect.poll(() => p.page.getByTestId('content-input').textContent()).toContain('Summarize our refund and shipping policies.');
    await expect.poll(() => p.page.getByTestId('markdown-rendered').locator('h2').textContent()).toBe('Findings');
    expect(await inView(p.page, '[data-testid="content-input"]')).toBe(true);
    expect(await inView(p.page, '[data-testid="content-output"]')).toBe(true);
    expect(await row(p.page, ids.root).getAttribute('aria-selected')).toBe('true');

    // Each model call's row: its model, tokens and cost; tools carry none.
    const llmFacts = row(p.page, ids.llm(1)).getByTestId('waterfall-facts');
    await expect.poll(() => llmFacts.textContent()).toContain('gpt-4o');
    expect(await llmFacts.textContent()).toMatch(/1\.3k tok/);
    expect(await llmFacts.textContent()).toMatch(/\$\d/);
    expect(await llmFacts.getAttribute('title')).toContain('1,201 in / 80 out tokens');
    expect(((await row(p.page, ids.tool(1)).getByTestId('waterfall-facts').textContent()) ?? '').trim()).toBe('');

    // Agents and chains: kinds of their own, a colour and a shape apart from a plain span's.
    expect(await row(p.page, ids.root).getAttribute('data-kind')).toBe('agent');
    expect(await row(p.page, ids.chain(1)).getAttribute('data-kind')).toBe('chain');
    expect(await row(p.page, ids.agent(1)).getAttribute('data-kind')).toBe('agent');
    const look = (spanId: string) =>
      row(p.page, spanId)
        .locator('.kind')
        .evaluate((el) => {
          const s = getComputedStyle(el);
          return `${s.backgroundColor} ${s.borderRadius} ${s.transform}`;
        });
    const [agent, chain, tool] = [await look(ids.agent(1)), await look(ids.chain(1)), await look(ids.tool(1))];
    expect(new Set([agent, chain, tool]).size).toBe(3);
    expect(await p.page.getByTestId('span-kind').textContent()).toBe('agent');
    await p.screenshot('trace-page-open-1440');
    expect(describeErrors(p)).toBe('');
  });

  it('finds and opens the third error with the keyboard, through folded ancestors that show their errors', async () => {
    const p = await openTrace(BIG);
    const errorsButton = p.page.getByTestId('trace-errors');
    await expect.poll(() => errorsButton.textContent()).toBe('4 errors');

    // Fold every step: the errors are hidden, and their chains say so.
    await p.page.getByRole('button', { name: 'Collapse all' }).click();
    const marked = row(p.page, ids.chain(FAILING_STEPS[0])).getByTestId('waterfall-errors-below');
    await p.page.locator(SEL.waterfallViewport).evaluate((el) => (el.scrollTop = 26 * 30));
    await expect.poll(() => marked.getAttribute('data-errors')).toBe('1');
    await p.screenshot('trace-page-folded-errors');

    // Tab to the error count, Enter three times: the third error, unfolded, in view, shown.
    await p.page.getByTestId('span-search').focus();
    for (let i = 0; i < 20 && !(await errorsButton.evaluate((el) => el === document.activeElement)); i++) await p.page.keyboard.press('Shift+Tab');
    expect(await errorsButton.evaluate((el) => el === document.activeElement)).toBe(true);
    for (let i = 0; i < 3; i++) await p.page.keyboard.press('Enter');
    const third = ids.tool(FAILING_STEPS[2]);
    await p.page.waitForURL(new RegExp(`span=${third}`));
    await expect.poll(() => detailId(p.page)).toBe(third);
    await expect.poll(() => p.page.getByTestId('span-error').textContent()).toContain(`search ${FAILING_STEPS[2]} timed out`);
    expect(await p.page.getByTestId('trace-error-position').textContent()).toBe('error 3 of 4');
    await expect.poll(() => inView(p.page, SEL.waterfallRowOf(third))).toBe(true);
    expect(await row(p.page, third).getByTestId('waterfall-error-mark').count()).toBe(1);
    await p.screenshot('trace-page-third-error');

    // In the waterfall, E and Shift+E step through the errors too.
    await p.page.locator(SEL.waterfallViewport).focus();
    await p.page.keyboard.press('e');
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(FAILING_STEPS[3]));
    await p.page.keyboard.press('e');
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(FAILING_STEPS[0]));
    await p.page.keyboard.press('Shift+E');
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(FAILING_STEPS[3]));
    expect(describeErrors(p)).toBe('');
  });

  it('searches a span by text in its output: the match opens, its path unfolded, the rest hidden', async () => {
    const p = await openTrace(BIG);
    await p.page.getByRole('button', { name: 'Collapse all' }).click();
    const search = p.page.getByTestId('span-search');
    await search.fill('card ending 4242');
    await expect.poll(() => p.page.getByTestId('span-match-count').getAttribute('data-matches')).toBe('1');
    await search.press('Enter');
    const needle = ids.tool(NEEDLE_STEP);
    await p.page.waitForURL(new RegExp(`span=${needle}`));
    await expect.poll(() => p.page.getByTestId('content-output').textContent()).toContain(NEEDLE);
    // Only the path to the match: root, chain, agent, the tool; the chain was folded and is open.
    await expect
      .poll(() => p.page.locator(SEL.waterfallRow).evaluateAll((els) => els.map((e) => e.getAttribute('data-span-id'))))
      .toEqual([ids.root, ids.chain(NEEDLE_STEP), ids.agent(NEEDLE_STEP), needle]);
    expect(await row(p.page, needle).getAttribute('data-match')).toBe('true');
    expect(await row(p.page, ids.chain(NEEDLE_STEP)).getAttribute('data-match')).toBe('false');
    expect(await p.page.getByTestId('span-match-count').textContent()).toContain('1 of 1 match');
    await p.screenshot('trace-page-search-output');

    // The text is in an output, not a name: "name only" finds nothing.
    await p.page.getByTestId('span-search-scope').selectOption('name');
    await expect.poll(() => p.page.getByTestId('span-match-count').getAttribute('data-matches')).toBe('0');
    await expect.poll(() => p.page.getByTestId('span-no-match').count()).toBe(1);

    // Filters: failing tools; then agents by name.
    await p.page.getByTestId('span-filter-clear').click();
    await p.page.getByTestId('span-filter-type').selectOption('tool');
    await p.page.getByTestId('span-filter-status').selectOption('error');
    await expect.poll(() => p.page.getByTestId('span-match-count').getAttribute('data-matches')).toBe(String(FAILING_STEPS.length));
    await p.page.getByTestId('span-match-next').click();
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(FAILING_STEPS[0]));
    await p.page.getByTestId('span-filter-type').selectOption('agent');
    await p.page.getByTestId('span-filter-status').selectOption('');
    await search.fill('researcher 12');
    // researcher 12, 120-129: eleven agents (the root agent's name does not match).
    await expect.poll(() => p.page.getByTestId('span-match-count').getAttribute('data-matches')).toBe('11');
    await p.screenshot('trace-page-filter-agents');
    await p.page.getByTestId('span-filter-clear').click();
    await expect.poll(() => p.page.getByTestId('span-match-count').count()).toBe(0);
    expect(await search.inputValue()).toBe('');
    expect(describeErrors(p)).toBe('');
  });

  it('resizes the split by dragging and with the keyboard, and keeps it across a reload', async () => {
    const p = await openTrace(BIG);
    const left = p.page.locator('[data-testid="trace-split"] > .left');
    const before = (await left.boundingBox())!.width;
    const handle = p.page.getByTestId('trace-split-handle');
    const box = (await handle.boundingBox())!;
    await p.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await p.page.mouse.down();
    await p.page.mouse.move(box.x - 250, box.y + box.height / 2, { steps: 5 });
    await p.page.mouse.up();
    const dragged = (await left.boundingBox())!.width;
    expect(dragged).toBeLessThan(before - 200);
    await handle.focus();
    await p.page.keyboard.press('ArrowRight');
    const nudged = (await left.boundingBox())!.width;
    expect(nudged).toBeGreaterThan(dragged);
    await p.page.reload();
    await p.page.locator(SEL.spanDetail).waitFor();
    await expect.poll(async () => Math.round((await left.boundingBox())!.width)).toBe(Math.round(nudged));
    await p.screenshot('trace-page-split-resized');
    expect(describeErrors(p)).toBe('');
  });

  it('keeps the score, rating and correction forms in a drawer, folded until opened', async () => {
    const p = await openTrace(BIG, WIDE, `?span=${ids.llm(2)}`);
    const drawer = p.page.getByTestId('feedback-drawer');
    expect(await drawer.getAttribute('data-open')).toBe('false');
    expect(await p.page.getByTestId('score-form').isVisible()).toBe(false);
    await p.page.getByTestId('feedback-drawer-toggle').click();
    await expect.poll(() => p.page.getByTestId('score-form').isVisible()).toBe(true);
    expect(await p.page.getByTestId('correction-form').textContent()).toContain(`plan 2`);
    await p.screenshot('trace-page-drawer-open');
    await p.page.getByTestId('feedback-drawer-toggle').click();
    await expect.poll(() => p.page.getByTestId('score-form').isVisible()).toBe(false);
    expect(describeErrors(p)).toBe('');
  });

  it('at 420 px: no sideways scroll, the root shown, search and the error count work', async () => {
    const p = await openTrace(BIG, NARROW);
    expect(await detailId(p.page)).toBe(ids.root);
    expect(await pageWidth(p.page)).toBeLessThanOrEqual(NARROW.width + 1);
    await expect.poll(() => row(p.page, ids.llm(1)).getByTestId('waterfall-facts').textContent()).toContain('tok');
    await p.screenshot('trace-page-open-420');
    await p.page.getByTestId('trace-errors').click();
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(FAILING_STEPS[0]));
    await p.page.getByTestId('span-search').fill('card ending 4242');
    await p.page.getByTestId('span-search').press('Enter');
    await expect.poll(() => detailId(p.page)).toBe(ids.tool(NEEDLE_STEP));
    expect(await pageWidth(p.page)).toBeLessThanOrEqual(NARROW.width + 1);
    await p.screenshot('trace-page-search-420');
    await p.page.getByTestId('feedback-drawer-toggle').click();
    await expect.poll(() => p.page.getByTestId('score-form').isVisible()).toBe(true);
    expect(await pageWidth(p.page)).toBeLessThanOrEqual(NARROW.width + 1);
    expect(describeErrors(p)).toBe('');
  });
});

describe('trace page: markdown, the axis, the error count', () => {
  it('renders markdown sanitized (no script, image, frame, style or javascript: link), with a Raw toggle', async () => {
    const p = await openTrace(SMALL, WIDE, `?span=${SMALL}-hostile`);
    const output = p.page.getByTestId('content-output');
    const rendered = output.getByTestId('markdown-rendered');
    await expect.poll(() => rendered.locator('h1').textContent()).toBe('Report');
    expect(await rendered.locator('script, img, iframe, style, [onerror], [onclick], [style]').count()).toBe(0);
    // Raw HTML is shown as the text it is.
    expect(await rendered.textContent()).toContain('<script>window.__xss = 2</script>');
    const links = await rendered
      .locator('a')
      .evaluateAll((els) => els.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]));
    expect(links).toContainEqual(['docs', 'https://example.com/docs', '_blank', 'noopener noreferrer nofollow']);
    // The image is a link to it; the javascript: link has no href.
    expect(links).toContainEqual(['a chart', 'https://example.com/chart.png', '_blank', 'noopener noreferrer nofollow']);
    expect(links.some(([, href]) => (href ?? '').toLowerCase().startsWith('javascript'))).toBe(false);
    expect(await rendered.locator('strong').first().textContent()).toBe('bold');
    expect(await p.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await p.page.locator('body').isVisible()).toBe(true);
    await p.screenshot('trace-page-markdown-hostile');

    await output.getByTestId('markdown-raw').click();
    await expect.poll(() => output.getByTestId('markdown').getAttribute('data-view')).toBe('raw');
    expect(await output.locator('pre').first().textContent()).toContain('<img src="x" onerror="window.__xss = 1">');
    expect(await p.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    // Plain text stays plain: no toggle.
    await p.page.locator(SEL.waterfallRowOf(`${SMALL}-plain`)).click();
    await expect.poll(() => p.page.getByTestId('content-output').textContent()).toContain('Just a sentence');
    expect(await p.page.getByTestId('content-output').getByTestId('markdown').count()).toBe(0);
    // No request left this origin: the image was never loaded.
    expect(p.failedRequests).toEqual([]);
    expect(describeErrors(p)).toBe('');
  });

  for (const [label, viewport] of [
    ['1440', WIDE],
    ['420', NARROW],
  ] as const) {
    it(`draws the time axis with no label over another at ${label} px`, async () => {
      const p = await openTrace(SMALL, viewport);
      const ticks = p.page.getByTestId('waterfall-tick');
      await expect.poll(() => ticks.count()).toBeGreaterThanOrEqual(2);
      const boxes = await ticks.evaluateAll((els) =>
        els.map((e) => ({ text: e.textContent, ...e.getBoundingClientRect().toJSON() }) as { text: string; left: number; right: number }),
      );
      const axis = (await p.page.getByTestId('waterfall-axis').boundingBox())!;
      for (let i = 1; i < boxes.length; i++) expect(boxes[i].left, `${boxes[i - 1].text} / ${boxes[i].text}`).toBeGreaterThanOrEqual(boxes[i - 1].right);
      for (const b of boxes) {
        expect(b.left).toBeGreaterThanOrEqual(axis.x - 1);
        expect(b.right).toBeLessThanOrEqual(axis.x + axis.width + 1);
      }
      expect(boxes.map((b) => b.text)).toContain('0');
      expect(boxes.at(-1)!.text).toMatch(/ s$/);
      await p.page.getByTestId('waterfall').screenshot({ path: `test-output/screenshots/trace-page-axis-${label}.png` });
      expect(await pageWidth(p.page)).toBeLessThanOrEqual(viewport.width + 1);
      expect(describeErrors(p)).toBe('');
    });
  }

  it('says "1 error", not "1 errors"', async () => {
    const p = await openTrace(ONE_ERROR);
    await expect.poll(() => p.page.getByTestId('trace-errors').textContent()).toBe('1 error');
    await p.page.getByTestId('trace-errors').click();
    await expect.poll(() => detailId(p.page)).toBe(`${ONE_ERROR}-t`);
    expect(describeErrors(p)).toBe('');
  });
});

describe('trace page: time to first content (cold)', () => {
  it('shows the rows and the root span of a 2,000- and a 10,000-span trace in a fresh browser context', async () => {
    const figures: Record<string, number[]> = {};
    for (const [label, traceId] of [
      ['2000', BIG],
      ['10000', HUGE],
    ] as const) {
      figures[label] = [];
      for (let i = 0; i < 3; i++) {
        const p = await open({ viewport: WIDE });
        await p.page.goto(`/traces/${traceId}`, { waitUntil: 'commit' });
        // Navigation start to the frame that first has ten rows and the root's input and output.
        const handle = await p.page.waitForFunction(
          () =>
            document.querySelectorAll('[data-testid="waterfall-row"]').length >= 10 &&
            document.querySelector('[data-testid="span-detail"] [data-testid="content-output"]') !== null
              ? performance.now()
              : false,
          undefined,
          { polling: 'raf', timeout: 30_000 },
        );
        figures[label].push(Math.round((await handle.jsonValue()) as number));
        expect(describeErrors(p)).toBe('');
        await p.close();
      }
    }
    console.log(JSON.stringify({ trace_page_first_content_ms: figures }));
    // Under 1 s is the target (docs/benchmarks.md); a loaded test machine gets room.
    for (const ms of Object.values(figures)) expect(Math.min(...ms)).toBeLessThan(5_000);
  });
});
