import { describe, expect, it } from 'vitest';
import type { TraceList } from '../../core/model/trace.js';
import { formatUsd } from '../../ui/src/lib/cost.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { corpusTexts } from '../helpers/corpus.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { eventually } from '../helpers/eventually.js';

/**
 * The analytics page's Cost section in Chromium against the real service (issue 32): agent traces
 * of corpus texts spread over the last six days, three models, two services, users and sessions,
 * and one 1M-token trace that flattens a linear chart. "See cost per model for last week": the
 * per-model table must show each model's cost as GET /api/traces prices its traces; the log-scale
 * toggle redraws the charts (the token percentiles' too); the most expensive trace opens from its
 * link. At 1440 and 420 px, no console error, nothing scrolls sideways.
 * Screenshots: test-output/screenshots/cost-analytics-*.png.
 */
const DAY = 86_400_000;
const texts = corpusTexts();
const now = Date.now();

const TRACES = [
  { n: 1, model: 'gpt-4o', service: 'support-bot', user: 'ana', session: 'cs-1', daysAgo: 6, tokens: 4_000 },
  { n: 2, model: 'gpt-4o-mini', service: 'support-bot', user: 'ana', session: 'cs-1', daysAgo: 5, tokens: 12_000 },
  { n: 3, model: 'claude-sonnet-4', service: 'triage-bot', user: 'bo', session: 'cs-2', daysAgo: 3, tokens: 8_000 },
  { n: 4, model: 'gpt-4o', service: 'triage-bot', user: 'cy', session: 'cs-3', daysAgo: 2, tokens: 1_000_000 },
  { n: 5, model: 'claude-sonnet-4', service: 'support-bot', user: 'cy', session: 'cs-3', daysAgo: 1, tokens: 2_000 },
  { n: 6, model: 'gpt-4o-mini', service: 'support-bot', user: 'bo', session: 'cs-4', daysAgo: 0, tokens: 30_000 },
].map((t, i) => ({
  ...t,
  id: `c05a0000000000000000000000000${String(t.n).padStart(3, '0')}`,
  start: now - t.daysAgo * DAY - 3_600_000,
  input: texts[i % texts.length],
  output: texts[(i + 1) % texts.length],
}));
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4'];

const nano = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const attr = (key: string, v: string | number) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });

/** The trace over OTLP/HTTP JSON: the agent is the resource's service.name; a root agent span and its model call. */
function otlpBody(t: (typeof TRACES)[number]) {
  const span = (spanId: string, name: string, at: number, ms: number, attributes: unknown[], parentSpanId?: string) => ({
    traceId: t.id,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name,
    kind: 1,
    startTimeUnixNano: nano(t.start + at),
    endTimeUnixNano: nano(t.start + at + ms),
    attributes,
  });
  const root = `${String(t.n).padStart(4, '0')}000000000001`;
  return {
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', t.service)] },
        scopeSpans: [
          {
            scope: { name: 'cost-analytics-test' },
            spans: [
              span(root, `answer ${t.n}`, 0, 3_000, [
                attr('openinference.span.kind', 'AGENT'),
                attr('session.id', t.session),
                attr('user.id', t.user),
                attr('input.value', t.input),
                attr('output.value', t.output),
              ]),
              span(
                `${String(t.n).padStart(4, '0')}000000000002`,
                `chat ${t.model}`,
                20,
                2_000,
                [
                  attr('gen_ai.operation.name', 'chat'),
                  attr('gen_ai.request.model', t.model),
                  attr('gen_ai.usage.input_tokens', t.tokens),
                  attr('gen_ai.usage.output_tokens', Math.round(t.tokens / 20)),
                ],
                root,
              ),
            ],
          },
        ],
      },
    ],
  };
}

/** Each trace's cost as the traces list prices it. */
let costOf = new Map<string, number>();

const { svc, open } = dashboardSuite({
  async seed(s) {
    for (const t of TRACES) {
      const res = await fetch(`${s.apiUrl}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': s.apiKey! },
        body: JSON.stringify(otlpBody(t)),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    // OTLP is written behind the request: wait until the traces list prices all six.
    costOf = await eventually(async () => {
      const list = (await (await s.api('/api/traces?limit=50')).json()) as TraceList;
      expect(list.traces.filter((t) => (t.total_cost ?? 0) > 0)).toHaveLength(TRACES.length);
      return new Map(list.traces.map((t) => [t.trace_id, t.total_cost ?? 0]));
    });
  },
});

const SEL = {
  section: '[data-testid="cost-analytics"]',
  groupRow: (key: string) => `[data-testid="cost-groups"] tbody tr[data-group="${key}"]`,
  costChart: '[data-testid="cost-usd-chart"] canvas',
  tokensChart: '[data-testid="cost-tokens-chart"] canvas',
  topTraces: '[data-testid="cost-top-traces"] tbody tr',
  topSessions: '[data-testid="cost-top-sessions"] tbody tr',
};

const cellTexts = async (p: WatchedPage, selector: string) => (await p.page.locator(selector).first().locator('td').allTextContents()).map((t) => t.trim());
/** The canvas's pixels as a data URL: a redraw in another scale changes it. */
const canvasImage = (p: WatchedPage, selector: string) => p.page.$eval(selector, (c) => (c as HTMLCanvasElement).toDataURL());
/** Strongly coloured pixels of a canvas (the lines; axes and grid are grey). */
const inked = (p: WatchedPage, selector: string) =>
  p.page.$eval(selector, (el) => {
    const c = el as HTMLCanvasElement;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 150 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++;
    return n;
  });

const sumWhere = (pick: (t: (typeof TRACES)[number]) => boolean) => TRACES.filter(pick).reduce((a, t) => a + costOf.get(t.id)!, 0);

describe('cost analytics in Chromium', () => {
  it('shows cost per model for the last week, switches to a log scale and opens the most expensive trace', async () => {
    expect(costOf.size).toBe(TRACES.length);
    expect([...costOf.values()].every((c) => c > 0)).toBe(true);
    const p = await open({ viewport: { width: 1440, height: 1000 } });
    await p.page.goto('/analytics?range=7d');
    const section = p.page.locator(SEL.section);
    await section.scrollIntoViewIfNeeded();
    await p.page.locator(SEL.groupRow('gpt-4o')).waitFor();

    // Cost per model, the costliest first, as the traces list prices each model's traces.
    const rows = await p.page.locator('[data-testid="cost-groups"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-group')));
    const byModel = MODELS.map((m) => [m, sumWhere((t) => t.model === m)] as const).sort((a, b) => b[1] - a[1]);
    expect(rows).toEqual(byModel.map(([m]) => m));
    for (const [m, usd] of byModel) {
      const cells = await cellTexts(p, SEL.groupRow(m));
      expect(cells[0]).toBe(m);
      expect(cells[1], m).toBe(formatUsd(usd));
      expect(cells[4], m).toBe(String(TRACES.filter((t) => t.model === m).length));
    }
    const total = sumWhere(() => true);
    expect(await p.page.locator('[data-testid="cost-total"]').textContent()).toBe(formatUsd(total));
    expect(await p.page.locator('[data-testid="cost-traces"]').textContent()).toBe(String(TRACES.length));

    // A week is drawn per day unless hours are chosen.
    const caption = () => p.page.locator('[data-testid="cost-chart"] figcaption').first().textContent();
    expect(await caption()).toBe('Cost by model, per day');
    expect(await p.page.locator('[data-testid="cost-bucket"]').inputValue()).toBe('1d');
    await p.page.locator('[data-testid="cost-bucket"]').selectOption('1h');
    await expect.poll(caption).toBe('Cost by model, per hour');
    expect((await cellTexts(p, SEL.groupRow(byModel[0][0])))[1]).toBe(formatUsd(byModel[0][1]));
    await p.page.locator('[data-testid="cost-bucket"]').selectOption('1d');
    await expect.poll(caption).toBe('Cost by model, per day');

    // By agent (the service that sent the spans).
    await p.page.locator('[data-testid="cost-group-by"]').selectOption('agent');
    await p.page.locator(SEL.groupRow('triage-bot')).waitFor();
    expect((await cellTexts(p, SEL.groupRow('triage-bot')))[1]).toBe(formatUsd(sumWhere((t) => t.service === 'triage-bot')));
    expect((await cellTexts(p, SEL.groupRow('support-bot')))[1]).toBe(formatUsd(sumWhere((t) => t.service === 'support-bot')));
    await p.page.locator('[data-testid="cost-group-by"]').selectOption('model');
    await p.page.locator(SEL.groupRow('gpt-4o-mini')).waitFor();

    // The 1M-token trace flattens the linear chart; the log scale redraws both charts.
    expect(await inked(p, SEL.costChart)).toBeGreaterThan(150);
    const linearCost = await canvasImage(p, SEL.costChart);
    const linearTokens = await canvasImage(p, SEL.tokensChart);
    await p.screenshot('cost-analytics-linear');
    await p.page.locator('[data-testid="cost-log-scale"]').check();
    await expect.poll(() => p.page.locator('[data-testid="cost-chart"]').getAttribute('data-scale')).toBe('log');
    await expect.poll(() => canvasImage(p, SEL.costChart)).not.toBe(linearCost);
    await expect.poll(() => canvasImage(p, SEL.tokensChart)).not.toBe(linearTokens);
    expect(await inked(p, SEL.costChart)).toBeGreaterThan(150);
    await section.screenshot({ path: 'test-output/screenshots/cost-analytics-log.png' });

    // The token percentiles' chart has its own log scale.
    const tokenPercentiles = '[data-testid="tokens-chart"] canvas';
    const before = await canvasImage(p, tokenPercentiles);
    await p.page.locator('[data-testid="tokens-log-scale"]').check();
    await expect.poll(() => p.page.locator('[data-testid="tokens-chart"]').getAttribute('data-scale')).toBe('log');
    await expect.poll(() => canvasImage(p, tokenPercentiles)).not.toBe(before);

    // The most expensive traces and sessions, costliest first.
    const ranked = [...costOf.entries()].sort((a, b) => b[1] - a[1]);
    expect(await p.page.locator(SEL.topTraces).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-trace')))).toEqual(ranked.map(([id]) => id));
    expect((await cellTexts(p, SEL.topTraces))[3]).toBe(formatUsd(ranked[0][1]));
    const sessions = [...new Set(TRACES.map((t) => t.session))].map((s) => [s, sumWhere((t) => t.session === s)] as const).sort((a, b) => b[1] - a[1]);
    expect(await p.page.locator(SEL.topSessions).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-session')))).toEqual(sessions.map(([s]) => s));
    expect((await cellTexts(p, SEL.topSessions))[2]).toBe(formatUsd(sessions[0][1]));

    expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
    expect(describeErrors(p)).toBe('');

    await p.page.locator(SEL.topTraces).first().locator('a').click();
    await p.page.waitForURL(new RegExp(`/traces/${ranked[0][0]}$`));
    await expect.poll(() => p.page.locator('h1').first().textContent()).toContain(`answer ${TRACES.find((t) => t.id === ranked[0][0])!.n}`);
    expect(describeErrors(p)).toBe('');
  });

  it('fits 420 px: the Cost section scrolls nothing sideways', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto('/analytics?range=7d');
    await p.page.locator(SEL.groupRow('gpt-4o')).waitFor();
    await p.page.locator('[data-testid="cost-log-scale"]').check();
    expect(await inked(p, SEL.costChart)).toBeGreaterThan(100);
    expect(await p.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await p.page.locator(SEL.section).screenshot({ path: 'test-output/screenshots/cost-analytics-narrow.png' });
    expect(describeErrors(p)).toBe('');
  });

  it('answers a project without model calls with a sentence, not a chart', async () => {
    const key = await svc.keyFor('cost-empty');
    const p = await open({ apiKey: key, project: 'cost-empty' });
    await p.page.goto('/analytics?range=7d');
    await p.page.locator('[data-testid="cost-empty"]').waitFor();
    expect(await p.page.locator('[data-testid="cost-empty"]').textContent()).toContain('No model calls in the last 7 days');
    expect(await p.page.locator('[data-testid="cost-usd-chart"]').count()).toBe(0);
    expect(describeErrors(p)).toBe('');
  });
});
