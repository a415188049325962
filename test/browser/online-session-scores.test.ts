import { describe, expect, it } from 'vitest';
import type { OnlineRule, OnlineSessionEvaluationList } from '../../core/model/online-rule.js';
import { describeErrors } from '../helpers/browser.js';
import { loadCorpus } from '../helpers/corpus.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';
import { eventually } from '../helpers/eventually.js';

/**
 * Issue 30 in Chromium: an online session rule's scores on the session page (rule, scorer, score,
 * reason), after the real evaluator scored the session once it was idle; also at 420 px, no
 * console error. The session's turns are the corpus's SPEC trace with the corpus's texts.
 * Screenshots: test-output/screenshots/session-rule-scores*.png.
 */
const SPEC = loadCorpus().json.find((t) => t.name === 'spec')!.body;
const SESSION = 'trip-planning-4412';
let rule: OnlineRule;

function turn(n: number, answer: string) {
  const shift = Date.now() - 30_000 + n * 1000 - Date.parse(SPEC.start_time);
  const moved = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  return {
    ...SPEC,
    trace_id: `${SESSION}-${n}`,
    start_time: moved(SPEC.start_time),
    attributes: { ...SPEC.attributes, 'session.id': SESSION },
    spans: SPEC.spans
      .filter((s) => s.span_id !== 'spec-final')
      .map((s) => ({ ...s, start_time: moved(s.start_time), end_time: moved(s.end_time), ...(s.span_id === 'spec-agent' ? { output: answer } : {}) })),
  };
}

const { svc, open, call } = dashboardSuite({
  env: { ONLINE_EVAL_TICK_MS: '100' },
  async seed(svc) {
    const post = async (path: string, json: unknown) => {
      const res = await svc.api(path, { method: 'POST', json });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as unknown;
    };
    rule = (await post('/api/evals/online-rules', {
      name: 'trip conversations',
      target: 'session',
      idle_seconds: 1,
      scorers: ['contains'],
      expected: { outputContains: ['Kyoto'] },
      since: new Date(Date.now() - 3600_000).toISOString(),
    })) as OnlineRule;
    await post('/api/traces/ingest', turn(1, 'Flights LIS to TYO found.\n\n**Next:** the Kyoto leg.'));
    await post('/api/traces/ingest', turn(2, 'Weather service timed out; I will retry later.'));
  },
});

describe('online session rules in the dashboard', () => {
  it("shows the rule's scores of the session on its page, with their reasons, also at 420 px", async () => {
    await eventually(async () => {
      const list = await call<OnlineSessionEvaluationList>(`/api/evals/online-rules/${rule.id}/evaluations`);
      expect(list.evaluations.map((e) => e.status)).toEqual(['done']);
    }, 60_000);
    const p = await open();
    await p.page.goto(`/sessions/${SESSION}`);
    const row = p.page.locator('[data-testid="session-level-score"][data-score-name="contains"]');
    await expect.poll(() => row.count()).toBe(1);
    const cells = (await row.locator('td').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(cells[0]).toBe('trip conversations');
    expect(cells[1]).toBe('contains');
    expect(cells[2]).toBe('0.50');
    expect(cells[3]).toContain('mean over 2 turns');
    expect(cells[3]).toContain(`lowest turn 2 (trace ${SESSION}-2)`);
    expect(cells[3]).toContain('(2 turns)');
    expect(await row.getAttribute('data-rule-id')).toBe(rule.id);
    await p.page.getByTestId('session-level-scores').scrollIntoViewIfNeeded();
    await p.screenshot('session-rule-scores');
    await p.page.setViewportSize({ width: 420, height: 900 });
    await p.screenshot('session-rule-scores-420');
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(describeErrors(p)).toBe('');
    void svc;
  });
});
