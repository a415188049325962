import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SuiteVersion } from '../../core/model/suite.js';
import type { TraceList } from '../../core/model/trace.js';
import { caseTraceBody, caseTraceId } from '../../workflows/case-trace.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { corpusTexts } from '../helpers/corpus.js';
import { PAGE_OVERFLOWS_X, suiteBody } from '../helpers/dashboard-catalog.js';
import { SEL_TRACES as SEL, traceBody } from '../helpers/dashboard-traces.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';

/**
 * The traces list for scanning (issue 32): input/output previews on dense rows, sort by cost,
 * production apart from an evaluation run's case traces, two traces added to a suite at once, a
 * row opened by keyboard and by a click anywhere on it, the column choice kept in the URL; at
 * 1440 and 420 px with no console error and no sideways scroll. Real Chromium, the real service.
 * Screenshots: test-output/screenshots/traces-list-*.png.
 */
const PROJECT = 'ui-traces-list';
let key: string;
let suiteId: string;
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 420, height: 900 };

const texts = corpusTexts();
const now = Date.now();

/** Production traces: one gpt-4o call each; cost grows with the output tokens (p3 > p2 > p4 > p1). */
const PROD = [
  { id: 'tl-p1', tokens: 100 },
  { id: 'tl-p2', tokens: 20_000 },
  { id: 'tl-p3', tokens: 90_000 },
  { id: 'tl-p4', tokens: 700 },
].map((p, i) => ({ ...p, input: texts[i % texts.length], output: texts[(i + 3) % texts.length] }));
const BY_COST = ['tl-p3', 'tl-p2', 'tl-p4', 'tl-p1'];

/** An evaluation run's case traces, as the run workflow writes them. */
const RUN_ID = 'run-traces-list';
const EVAL_IDS = [0, 1].map((caseIndex) => caseTraceId({ runId: RUN_ID, caseIndex, trial: 0 }));

const rowIds = (p: WatchedPage) => p.page.locator(SEL.traceRow).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace-id')));
const headers = (p: WatchedPage) => p.page.locator('[data-testid="traces-table"] thead th').allInnerTexts();

const { svc, open } = dashboardSuite({
  timeout: 600_000,
  async seed(s) {
    key = await s.keyFor(PROJECT);
    const ingest = async (body: unknown) => {
      const res = await s.api('/api/traces/ingest', { method: 'POST', json: body, project: PROJECT });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    for (const [i, p] of PROD.entries()) {
      const body = traceBody(p.id, {
        name: `support ${p.id}`,
        start: now - 60_000 + i * 1000,
        durationMs: 800,
        spans: [{ id: `${p.id}-llm`, name: 'llm', type: 'generation', at: 10, ms: 500, model: 'gpt-4o', input_tokens: 50, output_tokens: p.tokens }],
      }) as { spans: Array<Record<string, unknown>> };
      Object.assign(body.spans[0], { input: p.input, output: p.output });
      await ingest(body);
    }
    for (const [caseIndex] of EVAL_IDS.entries()) {
      const startedAt = now - 30_000 + caseIndex * 1000;
      await ingest(
        caseTraceBody({
          key: { runId: RUN_ID, caseIndex, trial: 0 },
          caseName: `case ${caseIndex}`,
          agent: { id: 'agent-1', name: 'support-bot', version: 'v1' },
          input: { question: `eval question ${caseIndex}` },
          startedAt,
          endedAt: startedAt + 300,
          calls: [],
          details: {},
          avgScore: 1,
          status: 'passed',
        }),
      );
    }
    const res = await s.api('/api/suites', { method: 'POST', json: suiteBody('traces-list-suite', 'seed', 1), project: PROJECT });
    expect(res.status, await res.clone().text()).toBe(201);
    suiteId = ((await res.json()) as { id: string }).id;
  },
});

async function openList(viewport = WIDE, query = ''): Promise<WatchedPage> {
  const p = await open({ project: PROJECT, apiKey: key, viewport });
  await p.page.goto(`/traces${query}`);
  await expect.poll(async () => (await rowIds(p)).length, { message: 'rows listed' }).toBeGreaterThan(0);
  return p;
}

describe('traces list for scanning', () => {
  it('shows input and output previews on dense rows, about 30 to a 900 px screen', async () => {
    const p = await openList();
    await expect.poll(() => rowIds(p)).toHaveLength(6);
    const row = p.page.locator(SEL.traceRowOf('tl-p2'));
    const expected = PROD[1].input.replace(/\s+/g, ' ').trim().slice(0, 40);
    expect(await row.getByTestId('trace-input').innerText()).toContain(expected.slice(0, 20));
    expect((await row.getByTestId('trace-input').innerText()).includes('\n')).toBe(false);
    const heights = await p.page.locator(SEL.traceRow).evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
    expect(Math.max(...heights), 'row height (px)').toBeLessThanOrEqual(30);
    expect(await p.page.evaluate(PAGE_OVERFLOWS_X)).toBe(false);
    await p.screenshot('traces-list-wide');
    expect(describeErrors(p)).toBe('');
  });

  it('sorts by cost, the most expensive first, as the seeded costs order them', async () => {
    const p = await openList();
    await p.page.getByTestId('traces-sort-cost').click();
    await expect.poll(() => p.page.url()).toMatch(/[?&]sort=cost(&|$)/);
    await expect.poll(() => rowIds(p)).toEqual([...BY_COST, ...[...EVAL_IDS].sort().reverse()]);
    // The seeded costs, as the store priced them, order the traces the same way.
    const seeded = (await (await svc.api('/api/traces?source=production', { project: PROJECT })).json()) as TraceList;
    const priced = seeded.traces.map((t) => [t.trace_id, t.total_cost ?? -1] as const).sort((a, b) => b[1] - a[1]);
    expect(priced.map(([id]) => id)).toEqual(BY_COST);
    const costs = await p.page.locator(`${SEL.traceRow} [data-testid="trace-cost"]`).allInnerTexts();
    expect(costs.slice(0, 4).every((c) => c.startsWith('$'))).toBe(true);
    expect(await p.page.locator('th[aria-sort="descending"]').innerText()).toContain('Cost');
    await p.page.getByTestId('traces-sort-cost').click();
    await expect.poll(() => p.page.url()).toMatch(/order=asc/);
    await expect.poll(async () => (await rowIds(p)).slice(0, 4)).toEqual([...BY_COST].reverse());
    expect(describeErrors(p)).toBe('');
  });

  it('filters out evaluation traffic: production only, then the run alone', async () => {
    const p = await openList();
    await expect.poll(() => rowIds(p)).toHaveLength(6);
    await p.page.getByTestId('filter-source').selectOption('production');
    await expect.poll(() => p.page.url()).toMatch(/[?&]source=production(&|$)/);
    await expect.poll(async () => (await rowIds(p)).sort()).toEqual(PROD.map((t) => t.id).sort());
    await p.page.getByTestId('filter-source').selectOption('evaluation');
    await expect.poll(async () => (await rowIds(p)).sort()).toEqual([...EVAL_IDS].sort());
    expect(describeErrors(p)).toBe('');
  });

  it('bulk-adds two traces to a suite: its new version holds both, with their source trace ids', async () => {
    const p = await openList(WIDE, '?source=production');
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    for (const id of ['tl-p1', 'tl-p3']) await p.page.locator(SEL.traceRowOf(id)).getByTestId('trace-select').check();
    const bulk = p.page.getByTestId('traces-bulk');
    await expect.poll(() => bulk.getByTestId('traces-selected-count').innerText()).toBe('2 selected');
    await bulk.getByTestId('add-to-suite-open').click();
    await bulk.getByTestId('add-to-suite-suite').selectOption(suiteId);
    await bulk.getByTestId('add-to-suite-add').click();
    await expect.poll(() => bulk.getByTestId('add-to-suite-done').innerText()).toMatch(/Added 2 cases to traces-list-suite, version 2/);
    const suite = await svc.api(`/api/suites/${suiteId}`, { project: PROJECT });
    const detail = (await suite.json()) as SuiteVersion;
    expect(detail.version).toBe(2);
    const sources = detail.definition.cases.map((c) => (c as { source?: { trace_id: string } }).source?.trace_id).filter(Boolean);
    expect(sources.sort()).toEqual(['tl-p1', 'tl-p3']);
    await p.screenshot('traces-list-bulk');
    expect(describeErrors(p)).toBe('');
  });

  it('scores two selected traces at once: each gets the score', async () => {
    const p = await openList(WIDE, '?source=production');
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    for (const id of ['tl-p2', 'tl-p4']) await p.page.locator(SEL.traceRowOf(id)).getByTestId('trace-select').check();
    await p.page.getByTestId('traces-bulk-score').click();
    await p.page.getByTestId('traces-bulk-score-name').fill('reviewed');
    await p.page.getByTestId('traces-bulk-score-value').fill('0.8');
    await p.page.getByTestId('traces-bulk-score-value').press('Enter');
    await expect.poll(() => p.page.getByRole('status').innerText()).toContain('Scored 2 traces reviewed = 0.8');
    for (const id of ['tl-p2', 'tl-p4']) {
      const scores = (await (await svc.api(`/api/scores?trace_id=${id}`, { project: PROJECT })).json()) as { scores: Array<{ name: string; value: number }> };
      expect(scores.scores.map((x) => [x.name, x.value])).toContainEqual(['reviewed', 0.8]);
    }
    await p.page.reload();
    await expect.poll(() => p.page.locator(SEL.traceRowOf('tl-p4')).locator('[data-score-name="reviewed"]').count()).toBe(1);
    expect(describeErrors(p)).toBe('');
  });

  it('opens a row by keyboard (j then Enter) and by a click anywhere on it; the name link still works', async () => {
    const p = await openList(WIDE, '?source=production');
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    const ids = (await rowIds(p)) as string[];
    await p.page.locator(SEL.traceRow).first().focus();
    await p.page.keyboard.press('j');
    await p.page.keyboard.press('Enter');
    await expect.poll(() => p.page.url()).toContain(`/traces/${ids[1]}`);
    await p.page.goBack();
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    await p.page.locator(SEL.traceRowOf(ids[2])).locator('td.num').first().click();
    await expect.poll(() => p.page.url()).toContain(`/traces/${ids[2]}`);
    await p.page.goBack();
    await p.page.locator(SEL.traceRowOf(ids[0])).getByRole('link').first().click();
    await expect.poll(() => p.page.url()).toContain(`/traces/${ids[0]}`);
    expect(describeErrors(p)).toBe('');
  });

  it('keeps the chosen columns in the URL through a reload', async () => {
    const p = await openList();
    expect(await headers(p)).toContain('Output');
    await p.page.getByTestId('traces-columns').locator('summary').click();
    await p.page.getByTestId('traces-column-output').uncheck();
    await expect.poll(() => p.page.url()).toMatch(/[?&]cols=/);
    await p.page.getByTestId('traces-column-spans').check();
    await expect.poll(async () => (await headers(p)).includes('Spans')).toBe(true);
    await p.page.reload();
    await expect.poll(async () => (await rowIds(p)).length).toBe(6);
    const after = await headers(p);
    expect(after).toContain('Spans');
    expect(after).not.toContain('Output');
    expect(describeErrors(p)).toBe('');
  });

  it('exports two selected traces as one file holding exactly their spans, texts byte for byte', async () => {
    const p = await openList(WIDE, '?source=production');
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    const picked = ['tl-p1', 'tl-p3'];
    for (const id of picked) await p.page.locator(SEL.traceRowOf(id)).getByTestId('trace-select').check();
    await p.page.getByTestId('traces-bulk-export').click();
    await p.page.getByTestId('traces-bulk-export-kind').selectOption('spans');
    await p.page.getByTestId('traces-bulk-export-format').selectOption('jsonl');
    await p.screenshot('traces-list-export');
    const [download] = await Promise.all([p.page.waitForEvent('download'), p.page.getByTestId('traces-bulk-export-go').click()]);
    expect(download.suggestedFilename()).toBe('traces-2-spans.jsonl');
    const file = await readFile(await download.path(), 'utf8');
    const rows = file
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { trace_id: string; span_id: string; input: string; output: string });
    for (const id of picked) {
      const trace = (await (await svc.api(`/api/traces/${id}`, { project: PROJECT })).json()) as { spans: Array<{ span_id: string }> };
      expect(
        rows
          .filter((r) => r.trace_id === id)
          .map((r) => r.span_id)
          .sort(),
      ).toEqual(trace.spans.map((sp) => sp.span_id).sort());
      // The seeded texts (corpus: blank lines, code fences, emoji, RTL) as sent, byte for byte.
      const seeded = PROD.find((x) => x.id === id)!;
      expect(rows.filter((r) => r.input === seeded.input && r.output === seeded.output)).toHaveLength(1);
    }
    expect(new Set(rows.map((r) => r.trace_id))).toEqual(new Set(picked));
    await expect.poll(() => p.page.getByRole('status').innerText()).toContain('Exported the spans of 2 traces');
    expect(describeErrors(p)).toBe('');
  });

  it('deletes two selected traces after a confirmation naming them: gone from the list and the API', async () => {
    const doomed = ['tl-del-1', 'tl-del-2'];
    for (const [i, id] of doomed.entries()) {
      const res = await svc.api('/api/traces/ingest', {
        method: 'POST',
        project: PROJECT,
        json: traceBody(id, { name: `to delete ${i}`, start: Date.now() - 5_000 + i, durationMs: 100, spans: [] }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    const p = await openList(WIDE, '?source=production');
    await expect.poll(() => rowIds(p)).toHaveLength(6);
    for (const id of doomed) await p.page.locator(SEL.traceRowOf(id)).getByTestId('trace-select').check();
    let asked = '';
    p.page.once('dialog', (d) => {
      asked = d.message();
      void d.accept();
    });
    await p.page.getByTestId('traces-bulk-delete').click();
    await expect.poll(() => p.page.getByTestId('traces-deleted').innerText(), { message: 'deleted' }).toMatch(/^Deleted 2 traces/);
    expect(asked).toBe('Delete 2 traces with their spans, scores and feedback? This cannot be undone.');
    await expect.poll(() => rowIds(p)).toHaveLength(4);
    expect(await rowIds(p)).not.toContain('tl-del-1');
    for (const id of doomed) await expect.poll(async () => (await svc.api(`/api/traces/${id}`, { project: PROJECT })).status).toBe(404);
    expect(describeErrors(p)).toBe('');
  });

  it('at 420 px: the list scrolls inside its table, not the page; no console error', async () => {
    const p = await openList(NARROW, '?sort=cost');
    await expect.poll(() => rowIds(p)).toHaveLength(6);
    await p.page.locator(SEL.traceRowOf('tl-p1')).getByTestId('trace-select').check();
    await expect.poll(() => p.page.getByTestId('traces-bulk').isVisible()).toBe(true);
    expect(await p.page.evaluate(PAGE_OVERFLOWS_X)).toBe(false);
    await p.screenshot('traces-list-narrow');
    expect(describeErrors(p)).toBe('');
  });
});
