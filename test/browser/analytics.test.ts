import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeErrors, SCREENSHOT_DIR, type WatchedPage } from '../helpers/browser.js';
import { formatDuration } from '../../ui/src/lib/format.js';
import {
  ANALYTICS_SEL as SEL,
  fixtureScores,
  MINUTE,
  pearson,
  quantile,
  traceBody,
  TRACES,
  windowStartHoursAgo,
  writeScores,
  type FixtureTrace,
} from '../helpers/dashboard-analytics.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';

/**
 * The analytics page in Chromium against the real service: the fixture's traces and scores five
 * hours back (test/helpers/dashboard-analytics.ts) plus two traces scored minutes ago, so the
 * 24h and 1h ranges show different numbers. Every chart must have drawn its data (coloured
 * pixels on its canvas); the numbers are read from the tables and summaries next to them.
 * Screenshots: test-output/screenshots/analytics-*.png.
 */
const EMPTY_PROJECT = 'analytics-empty';

/** Two traces started ten minutes ago, scored now (POST /api/scores): the only data of the last hour. */
const RECENT: FixtureTrace[] = [
  { id: 'an-r1', at: 0, duration: 500, model: 'gpt-4o', llmMs: 300, inputTokens: 500, outputTokens: 50, toolMs: 100, toolError: false },
  { id: 'an-r2', at: 60_000, duration: 700, model: 'gpt-4o', llmMs: 400, inputTokens: 700, outputTokens: 70, toolMs: 100, toolError: false },
];
const RECENT_SCORES = [0.5, 0.4];

async function ingest(body: unknown): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Pixels of each canvas under `selector` that are strongly coloured (data marks; axes and grid lines are grey). */
async function colouredPixels(p: WatchedPage, selector: string): Promise<number[]> {
  return p.page.$$eval(selector, (canvases) =>
    canvases.map((el) => {
      const c = el as HTMLCanvasElement;
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 150 && Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
      }
      return n;
    }),
  );
}

const text = async (p: WatchedPage, selector: string) => (await p.page.locator(selector).first().textContent())?.trim();
/** The text of each cell of the first row `selector` finds. */
const cells = async (p: WatchedPage, selector: string) => (await p.page.locator(selector).first().locator('td').allTextContents()).map((t) => t.trim());

const { svc, open } = dashboardSuite({
  async seed() {
    const t0 = windowStartHoursAgo(5);
    for (const t of TRACES) await ingest(traceBody(t, t0));
    await writeScores(svc.clickhouse, svc.defaultProjectId, fixtureScores(t0));
    const recentStart = Date.now() - 10 * MINUTE;
    for (const [i, t] of RECENT.entries()) {
      await ingest(traceBody(t, recentStart));
      const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: t.id, name: 'faithfulness', value: RECENT_SCORES[i] } });
      expect(res.status).toBe(201);
    }
    await svc.keyFor(EMPTY_PROJECT);
  },
});

// Each trace's mean faithfulness (an-a1: 0.9 and 0.7) and its duration, fixture then recent.
const SCORES_24H = [0.8, 0.75, 0.6, 0.65, 0.3, 0.1, ...RECENT_SCORES];
const LATENCY_24H = [...TRACES, ...RECENT].map((t) => t.duration);

describe('analytics page in Chromium', () => {
  it('draws score trends, the correlation, percentiles and component health for the last 24 hours', async () => {
    const p = await open();
    await p.page.goto('/analytics');
    await p.page.locator(SEL.scoreRow('faithfulness')).waitFor();
    // faithfulness: 7 fixture scores + 2 recent; helpfulness: 2.
    const faithfulness = await cells(p, SEL.scoreRow('faithfulness'));
    expect(faithfulness.slice(0, 3)).toEqual(['faithfulness', '9', ((4 + 0.9) / 9).toFixed(2)]);
    // The latest bucket holds the two recent scores (0.45), or only the second should they straddle a bucket's edge.
    expect(['0.45', '0.40']).toContain(faithfulness[3]);
    expect(await p.page.locator(SEL.scoreRow('helpfulness')).locator('td').nth(1).textContent()).toBe('2');

    const r = pearson(SCORES_24H, LATENCY_24H);
    await expect
      .poll(() => text(p, SEL.correlationSentence))
      .toContain(`Pearson r = ${r.toFixed(2)} over 8 scored traces: higher latency goes with lower faithfulness`);

    await expect.poll(() => text(p, '[data-testid="percentiles-count"]')).toBe('8');
    expect(await text(p, '[data-testid="percentiles-error-rate"]')).toBe('25%');
    expect(await text(p, '[data-testid="percentiles-latency"]')).toBe('450 ms / 2.3 s / 2.86 s');

    const toolMs = [...TRACES, ...RECENT].map((t) => t.toolMs);
    await expect
      .poll(() => cells(p, SEL.healthRow('component', 'tool')))
      .toEqual(['tool', '8', '2', '25%', formatDuration(quantile(toolMs, 0.5)), formatDuration(quantile(toolMs, 0.95)), '0', '0', '0', '$0']);
    expect((await cells(p, SEL.healthRow('model', 'claude-3-5'))).slice(1, 6)).toEqual(['2', '0', '0%', '140 ms', '158 ms']);

    // Every chart drew its data.
    for (const selector of [SEL.scoresChart, SEL.correlationChart, SEL.percentilesChart, SEL.healthCharts]) {
      const inked = await colouredPixels(p, selector);
      expect(inked.length, selector).toBeGreaterThan(0);
      for (const n of inked) expect(n, selector).toBeGreaterThan(150);
    }
    expect(await p.page.locator(SEL.healthCharts).count()).toBe(4);
    await p.screenshot('analytics-24h');
    expect(describeErrors(p)).toBe('');
  });

  it('changing the range, the metric and the component type updates the URL and the data', async () => {
    const p = await open();
    await p.page.goto('/analytics');
    await expect.poll(() => text(p, '[data-testid="percentiles-count"]')).toBe('8');

    await p.page.locator(SEL.range).selectOption('1h');
    await p.page.waitForURL(/[?&]range=1h/);
    await expect.poll(() => text(p, '[data-testid="percentiles-count"]')).toBe('2');
    await expect.poll(() => p.page.locator(SEL.scoreRow('faithfulness')).locator('td').nth(1).textContent()).toBe('2');
    expect(await p.page.locator(SEL.scoreRow('helpfulness')).count()).toBe(0);
    await expect.poll(() => text(p, SEL.correlationSentence)).toContain('Only 2 scored traces with "faithfulness"');

    await p.page.locator(SEL.range).selectOption('24h');
    await p.page.waitForURL((url) => !url.search.includes('range='));
    await p.page.locator(SEL.metric).selectOption('tokens');
    await p.page.waitForURL(/[?&]metric=tokens/);
    await expect
      .poll(() => text(p, SEL.correlationSentence))
      .toMatch(/^Pearson r = -0\.\d\d over 8 scored traces: higher token use goes with lower faithfulness/);

    await p.page.locator(SEL.component).selectOption('generation');
    await p.page.waitForURL(/[?&]component_type=generation/);
    // LLM calls only: 6 in the fixture, 2 recent.
    await expect.poll(() => p.page.locator(SEL.healthTable).locator('tbody tr[data-component]').count()).toBe(1);
    // The summary now counts spans, not traces (both are 8 here).
    await expect.poll(() => text(p, `${SEL.percentilesSummary} dt`)).toBe('spans');
    expect(await text(p, '[data-testid="percentiles-count"]')).toBe('8');
    expect(await text(p, '[data-testid="percentiles-error-rate"]')).toBe('0%');
    expect(p.page.url()).toMatch(/metric=tokens/);

    // The URL alone gives the same page.
    await p.page.reload();
    await expect.poll(() => text(p, `${SEL.percentilesSummary} dt`)).toBe('spans');
    expect(await text(p, '[data-testid="percentiles-count"]')).toBe('8');
    expect(await p.page.locator(SEL.component).inputValue()).toBe('generation');
    expect(await p.page.locator(SEL.metric).inputValue()).toBe('tokens');
    await p.screenshot('analytics-generation-tokens');
    expect(describeErrors(p)).toBe('');
  });

  it('fits a narrow window: tables scroll inside their panels, the page does not', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto('/analytics');
    await p.page.locator(SEL.scoreRow('faithfulness')).waitFor();
    await expect.poll(() => p.page.locator(SEL.healthRow('component', 'tool')).count()).toBe(1);
    for (const n of await colouredPixels(p, SEL.percentilesChart)) expect(n).toBeGreaterThan(100);
    expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await p.screenshot('analytics-narrow');
    // Each section alone too, at full resolution: the whole narrow page is too tall to read in one image.
    for (const [i, section] of (await p.page.locator('section.panel').all()).entries()) {
      await section.screenshot({ path: path.join(SCREENSHOT_DIR, `analytics-narrow-section-${i + 1}.png`) });
    }
    expect(describeErrors(p)).toBe('');
  });

  it('asks for the panels below the first screen once the panels on it have their answers, after 3 s when those hang, never once left', async () => {
    const UPPER = ['/api/analytics/scores', '/api/analytics/correlation', '/api/analytics/timeseries', '/api/analytics/costs'];
    const LOWER = ['/api/judges/calibration', '/api/analytics/components', '/api/analytics/tools'];
    const p = await open();
    const asked = new Map<string, number>();
    const answered = new Map<string, number>();
    p.page.on('request', (r) => asked.set(new URL(r.url()).pathname, performance.now()));
    p.page.on('requestfinished', (r) => answered.set(new URL(r.url()).pathname, performance.now()));
    await p.page.goto('/analytics');
    await expect.poll(() => p.page.locator(SEL.healthRow('component', 'tool')).count()).toBe(1);
    await p.page.locator('[data-testid="tool-analytics-table"]').waitFor();
    await p.page.locator('[data-testid="calibration-empty"], [data-testid="calibration-list"]').first().waitFor();
    for (const shown of ['[data-testid="cost-total"]', '[data-testid="percentiles-count"]', SEL.correlationSentence]) await p.page.locator(shown).waitFor();
    const lastUpper = Math.max(...UPPER.map((u) => answered.get(u) ?? Infinity));
    expect(lastUpper).toBeLessThan(Infinity);
    for (const u of LOWER) expect(asked.get(u), u).toBeGreaterThan(lastUpper);

    // The costs hang: the panels below ask after a few seconds all the same, and show their data.
    const hung = await open();
    await hung.page.route('**/api/analytics/costs*', () => undefined);
    await hung.page.goto('/analytics');
    await hung.page.locator(SEL.scoreRow('faithfulness')).waitFor();
    await expect.poll(() => hung.page.locator(SEL.healthRow('component', 'tool')).count(), { timeout: 15_000 }).toBe(1);
    expect(await hung.page.locator('[data-testid="cost-total"]').count()).toBe(0);
    await hung.page.unrouteAll({ behavior: 'ignoreErrors' });

    // Left for the traces list while the costs hang: the lower panels never ask.
    const left = await open();
    const leftAsked: string[] = [];
    left.page.on('request', (r) => leftAsked.push(new URL(r.url()).pathname));
    await left.page.route('**/api/analytics/costs*', () => undefined);
    await left.page.goto('/analytics');
    await left.page.locator(SEL.scoreRow('faithfulness')).waitFor();
    await left.page.getByRole('link', { name: 'Traces', exact: true }).first().click();
    await left.page.waitForURL(/\/traces$/);
    await left.page.waitForTimeout(4_000);
    expect(leftAsked.filter((u) => LOWER.includes(u))).toEqual([]);
    expect(leftAsked).toContain('/api/traces');
    await left.page.unrouteAll({ behavior: 'ignoreErrors' });
    expect(describeErrors(p)).toBe('');
  });

  it('says what to do when a project has no traces or scores', async () => {
    const p = await open({ apiKey: await svc.keyFor(EMPTY_PROJECT), project: EMPTY_PROJECT });
    await p.page.goto('/analytics?range=7d');
    await p.page.locator(SEL.scoresEmpty).waitFor();
    expect(await text(p, SEL.scoresEmpty)).toContain('No scores in the last 7 days');
    expect(await text(p, SEL.scoresEmpty)).toContain('/api/scores');
    expect(await text(p, '[data-testid="component-health-empty"]')).toContain('/v1/traces');
    expect(await text(p, '[data-testid="percentiles-empty"]')).toContain('No traces started in the last 7 days');
    expect(await text(p, '[data-testid="correlation-empty"]')).toContain('run an evaluation');
    expect(await p.page.locator('canvas').count()).toBe(0);
    await p.screenshot('analytics-empty');
    expect(describeErrors(p)).toBe('');
  });
});
