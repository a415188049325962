import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../ui/src/lib/cost.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { writeScores } from '../helpers/dashboard-analytics.js';
import { CALIBRATION_SEL as SEL, calibrationScore, SAFETY_KAPPA, SAFETY_PAIRS, TONE_PAIRS } from '../helpers/dashboard-calibration.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';

/**
 * Judge calibration and cost on the dashboard, in Chromium against the real service: the
 * analytics page states each judge's agreement with people in words with its numbers, and the
 * traces list, a trace and a span show what the model calls cost. Screenshots:
 * test-output/screenshots/calibration-*.png.
 */
const EMPTY_PROJECT = 'calibration-empty';
const MINUTE = 60_000;

/** gpt-4o-mini at list price: $0.15 per million input tokens, $0.60 output. */
const CALL_COST = (2000 * 0.15 + 400 * 0.6) / 1e6;

const text = async (p: WatchedPage, selector: string) => (await p.page.locator(selector).first().textContent())?.replace(/\s+/g, ' ').trim();

const { svc, open } = dashboardSuite({
  async seed() {
    const start = Date.now() - 30 * MINUTE;
    const scores = [];
    let t = 0;
    const trace = async (id: string) => {
      const at = start + t * 1000;
      const child = childrenOf(id, at);
      const body = ingestTrace(id, {
        name: 'support-answer',
        start: at,
        durationMs: 900,
        root: { span_id: `${id}-root`, name: 'agent', type: 'span' },
        spans: [
          child('llm', 10, 790, { name: 'answer', type: 'generation', model: 'gpt-4o-mini', input_tokens: 2000, output_tokens: 400 }),
          child('local', 800, 50, { name: 'rerank', type: 'generation', model: 'in-house-reranker', input_tokens: 100, output_tokens: 1 }),
        ],
      });
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
      expect(res.status, await res.clone().text()).toBe(201);
      t++;
    };
    for (const [judge, person, count] of SAFETY_PAIRS) {
      for (let k = 0; k < count; k++) {
        const id = `cal-ui-safe-${t}`;
        await trace(id);
        scores.push(
          calibrationScore(id, 'safety_judge', judge, 'eval', 'safety_judge', start + 5 * MINUTE),
          calibrationScore(id, 'safety_judge', person, 'annotation', 'reviewer', start + 6 * MINUTE),
        );
      }
    }
    for (const [judge, person] of TONE_PAIRS) {
      const id = `cal-ui-tone-${t}`;
      await trace(id);
      scores.push(
        calibrationScore(id, 'tone_judge', judge, 'eval', 'tone_judge', start + 5 * MINUTE),
        calibrationScore(id, 'tone_judge', person, 'annotation', 'reviewer', start + 6 * MINUTE),
      );
    }
    await writeScores(svc.clickhouse, svc.defaultProjectId, scores);
    await svc.keyFor(EMPTY_PROJECT);
  },
});

describe('judge calibration on the analytics page', () => {
  it('says per judge how well it agrees with people, with kappa, pairs and the band confusion', async () => {
    const p = await open();
    await p.page.goto('/analytics');
    const safety = p.page.locator(SEL.judge('safety_judge'));
    await safety.waitFor();
    expect(await text(p, `${SEL.judge('safety_judge')} ${SEL.summary}`)).toBe(
      `safety_judge agrees well with people: kappa ${SAFETY_KAPPA.toFixed(2)} over 40 pairs`,
    );
    expect(await text(p, `${SEL.judge('safety_judge')} ${SEL.level}`)).toBe('substantial agreement');
    expect(await text(p, `${SEL.judge('safety_judge')} ${SEL.pairs}`)).toBe('40');
    expect(await text(p, `${SEL.judge('safety_judge')} ${SEL.kappa}`)).toBe(SAFETY_KAPPA.toFixed(2));
    // Most pairs first; the judge with five pairs says it is uncertain.
    expect(await p.page.locator('[data-testid="calibration-judge"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-judge')))).toEqual([
      'safety_judge',
      'tone_judge',
    ]);
    expect(await text(p, `${SEL.judge('tone_judge')} ${SEL.summary}`)).toMatch(
      /^tone_judge .+: kappa -?\d\.\d\d over 5 pairs \(fewer than 30 pairs: uncertain\)$/,
    );

    // The band confusion opens on demand: the judge's band in rows, people's in columns.
    await safety.locator('summary').click();
    const rows = await safety
      .locator(`${SEL.confusion} tbody tr`)
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));
    expect(rows).toEqual([
      ['8', '0', '2', '0'],
      ['0', '0', '0', '0'],
      ['0', '0', '10', '2'],
      ['0', '0', '3', '15'],
    ]);
    await p.screenshot('calibration-analytics');
    expect(describeErrors(p)).toBe('');
  });

  it('tells a project without paired scores how to calibrate a judge', async () => {
    const key = await svc.keyFor(EMPTY_PROJECT);
    const p = await open({ apiKey: key, project: EMPTY_PROJECT });
    await p.page.goto('/analytics');
    await p.page.locator(SEL.empty).waitFor();
    expect(await text(p, SEL.empty)).toContain("No judge's scores in the last 24 hours have people's scores on the same traces yet");
    expect(await text(p, SEL.empty)).toContain('"source": "annotation"');
    expect(describeErrors(p)).toBe('');
  });

  it('fits a narrow window', async () => {
    const p = await open({ viewport: { width: 420, height: 900 } });
    await p.page.goto('/analytics');
    await p.page.locator(SEL.judge('safety_judge')).waitFor();
    // No horizontal page scroll: the panel wraps within the window.
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await p.page.locator(SEL.panel).scrollIntoViewIfNeeded();
    await p.screenshot('calibration-analytics-narrow');
    expect(describeErrors(p)).toBe('');
  });
});

describe('cost on the dashboard', () => {
  it('shows what traces, spans and models cost, and which calls have no price', async () => {
    const p = await open();
    await p.page.goto('/traces');
    const row = p.page.locator(SEL.traceRow('cal-ui-safe-0'));
    await row.waitFor();
    expect(await row.locator(SEL.traceCost).textContent()).toBe(`${formatUsd(CALL_COST)}+1 unpriced`);
    await p.screenshot('calibration-traces-cost');

    await p.page.goto('/traces/cal-ui-safe-0?span=cal-ui-safe-0-llm');
    await p.page.locator(SEL.spanCost).waitFor();
    expect(await text(p, SEL.traceCost)).toBe(`${formatUsd(CALL_COST)} (+ 1 call of unknown price)`);
    expect(await text(p, SEL.spanCost)).toMatch(new RegExp(`^\\${formatUsd(CALL_COST)} \\(prices \\d{4}-\\d{2}-\\d{2}\\)$`));
    await p.screenshot('calibration-span-cost');

    await p.page.goto('/traces/cal-ui-safe-0?span=cal-ui-safe-0-local');
    await expect.poll(() => text(p, SEL.spanCost)).toBe('unknown: the price table has no price for model in-house-reranker');

    await p.page.goto('/analytics');
    await p.page.locator(SEL.healthCost('gpt-4o-mini')).waitFor();
    expect(await text(p, SEL.healthCost('gpt-4o-mini'))).toBe(formatUsd(45 * CALL_COST));
    expect(await text(p, SEL.healthCost('in-house-reranker'))).toBe('$0+45 unpriced');
    expect(describeErrors(p)).toBe('');
  });
});
