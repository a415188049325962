import { describe, expect, it } from 'vitest';
import type { Feedback } from '../../core/model/feedback.js';
import type { Score } from '../../core/model/score.js';
import { describeErrors, type WatchedPage } from '../helpers/browser.js';
import { LONG_TEXT_TAIL, longText, NESTED_JSON, SEL_TRACES as SEL, traceBody } from '../helpers/dashboard-traces.js';
import { dashboardSuite } from '../helpers/dashboard-suite.js';

/**
 * The traces list's filters (model, component type, min duration, span errors, score below,
 * search) and score column; the trace page's conversation, JSON tree and folded text, and its
 * score, rating and correction forms; trace comparison. Real Chromium against the real service
 * (chDB, PostgreSQL, credentials required). Screenshots: test-output/screenshots/traces-*.png.
 */
/** The filters' own project, so its list holds exactly these traces. */
const FILTERS_PROJECT = 'ui-filters';
let filtersKey: string;
const NARROW = { width: 420, height: 900 };

/** At NARROW: nothing scrolls sideways, and the page recorded no error; `shot` names its screenshot. */
async function expectFitsNarrow(p: WatchedPage, shot: string): Promise<void> {
  const width = await p.page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(NARROW.width + 1);
  await p.screenshot(shot);
  expect(describeErrors(p)).toBe('');
}

async function ingest(body: unknown, project?: string): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function score(traceId: string, name: string, value: number, project?: string): Promise<void> {
  const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: traceId, name, value }, project });
  expect(res.status).toBe(201);
}

const rowIds = async (p: WatchedPage) => (await p.page.locator(SEL.traceRow).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace-id')))).sort();

const now = Date.now();

// The filters' traces (newest first): err, claude, gpt, plain.
const FILTER_TRACES = [
  traceBody('ft-plain', {
    name: 'flt-delta',
    start: now - 40_000,
    durationMs: 50,
    spans: [{ id: 'ft-plain-1', name: 'think', type: 'reasoning', at: 5, ms: 20 }],
  }),
  traceBody('ft-gpt', {
    name: 'flt-alpha',
    start: now - 30_000,
    durationMs: 300,
    spans: [
      { id: 'ft-gpt-1', name: 'llm', type: 'generation', at: 10, ms: 200, model: 'gpt-4o', input_tokens: 40, output_tokens: 10, input: 'hello', output: 'hi' },
    ],
  }),
  traceBody('ft-claude', {
    name: 'flt-beta',
    start: now - 20_000,
    durationMs: 4000,
    spans: [
      { id: 'ft-claude-1', name: 'llm', type: 'generation', at: 10, ms: 1000, model: 'claude-3', input_tokens: 80, output_tokens: 20 },
      { id: 'ft-claude-2', name: 'search docs', type: 'retrieval', at: 1100, ms: 500, output: 'three documents' },
    ],
  }),
  traceBody('ft-err', {
    name: 'flt-gamma',
    start: now - 10_000,
    durationMs: 100,
    spans: [{ id: 'ft-err-1', name: 'call api', type: 'tool', at: 10, ms: 50, status: 'error', input: { query: 'Orange Marmalade recipe' } }],
  }),
];

// The trace page's trace: a chat with a tool call, a JSON output, a long text.
const CHAT = 'tp-chat';
const CHAT_LLM = `${CHAT}-llm`;
const CHAT_JSON = `${CHAT}-json`;
const CHAT_LONG = `${CHAT}-long`;
const CHAT_TRACE = traceBody(CHAT, {
  name: 'support-chat',
  start: now - 50_000,
  durationMs: 2000,
  spans: [
    {
      id: CHAT_LLM,
      name: 'chat completion',
      type: 'generation',
      at: 10,
      ms: 800,
      model: 'gpt-4o',
      input_tokens: 120,
      output_tokens: 30,
      input: [
        { role: 'system', content: 'You are a support agent for an online shop.' },
        { role: 'user', content: 'Can I get a refund for order 1234?' },
      ],
      output: [
        {
          role: 'assistant',
          content: 'Let me check the policy.',
          tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'search_docs', arguments: '{"query":"refund policy","top_k":3}' } }],
        },
      ],
    },
    { id: CHAT_JSON, name: 'lookup order', type: 'tool', at: 900, ms: 300, input: { order_id: 1234 }, output: NESTED_JSON },
    {
      id: CHAT_LONG,
      name: 'write summary',
      type: 'generation',
      at: 1300,
      ms: 600,
      model: 'gpt-4o',
      input_tokens: 500,
      output_tokens: 900,
      input: 'Summarize the case.',
      output: longText(6000),
    },
  ],
});

// Comparison: B's llm answers otherwise, with more tokens and slower; A has a cache span, B a retry.
const CMP_A = 'cmp-a';
const CMP_B = 'cmp-b';
function compareTrace(id: string, b: boolean) {
  return traceBody(id, {
    name: b ? 'checkout-v2' : 'checkout-v1',
    start: now - (b ? 60_000 : 70_000),
    durationMs: b ? 1500 : 1000,
    spans: [
      { id: `${id}-plan`, name: 'plan', type: 'planning', at: 5, ms: 100 },
      {
        id: `${id}-llm`,
        name: 'llm',
        type: 'generation',
        at: 120,
        ms: b ? 700 : 300,
        model: 'claude-3',
        input_tokens: 100,
        output_tokens: b ? 50 : 20,
        input: 'Which shipping option?',
        output: b ? 'Use express shipping for this order.' : 'Use standard shipping for this order.',
      },
      ...(b
        ? [{ id: `${id}-retry`, name: 'retry', type: 'tool', at: 850, ms: 200, output: 'ok' }]
        : [{ id: `${id}-cache`, name: 'cache lookup', type: 'tool', at: 450, ms: 10, output: 'miss' }]),
      { id: `${id}-answer`, name: 'answer', type: 'span', at: b ? 1100 : 500, ms: 50, output: 'Done.' },
    ],
  });
}

const { svc, open } = dashboardSuite({
  timeout: 600_000,
  async seed() {
    filtersKey = await svc.keyFor(FILTERS_PROJECT);
    for (const t of FILTER_TRACES) await ingest(t, FILTERS_PROJECT);
    await score('ft-gpt', 'quality', 0.9, FILTERS_PROJECT);
    await score('ft-claude', 'quality', 0.3, FILTERS_PROJECT);
    await ingest(CHAT_TRACE);
    await ingest(compareTrace(CMP_A, false));
    await ingest(compareTrace(CMP_B, true));
  },
});

describe('traces list: filters in the URL, search, scores', () => {
  const ALL = ['ft-claude', 'ft-err', 'ft-gpt', 'ft-plain'];

  /** A fresh /traces with all four traces listed. */
  async function list(p: WatchedPage): Promise<void> {
    await p.page.goto('/traces');
    await expect.poll(() => rowIds(p)).toEqual(ALL);
  }

  it('narrows the list by each filter, keeps it in the URL, and a reload of the URL gives the same list', async () => {
    const p = await open({ project: FILTERS_PROJECT, apiKey: filtersKey });
    const cases: Array<{ apply: () => Promise<void>; url: RegExp; expected: string[] }> = [
      {
        apply: async () => {
          await p.page.getByTestId('filter-model').fill('gpt-4o');
          await p.page.getByTestId('filter-model').press('Enter');
        },
        url: /[?&]model=gpt-4o(&|$)/,
        expected: ['ft-gpt'],
      },
      {
        apply: () =>
          p.page
            .getByTestId('filter-component')
            .selectOption('retrieval')
            .then(() => undefined),
        url: /[?&]component_type=retrieval(&|$)/,
        expected: ['ft-claude'],
      },
      {
        apply: async () => {
          await p.page.getByTestId('filter-min-duration').fill('1s');
          await p.page.getByTestId('filter-apply').click();
        },
        url: /[?&]min_duration_ms=1000(&|$)/,
        expected: ['ft-claude'],
      },
      {
        apply: () =>
          p.page
            .getByTestId('filter-has-errors')
            .selectOption('true')
            .then(() => undefined),
        url: /[?&]has_errors=true(&|$)/,
        expected: ['ft-err'],
      },
      {
        apply: () =>
          p.page
            .getByTestId('filter-has-errors')
            .selectOption('false')
            .then(() => undefined),
        url: /[?&]has_errors=false(&|$)/,
        expected: ['ft-claude', 'ft-gpt', 'ft-plain'],
      },
      {
        apply: async () => {
          await p.page.getByTestId('filter-score-name').fill('quality');
          await p.page.getByTestId('filter-score-below').fill('0.5');
          await p.page.getByTestId('filter-apply').click();
        },
        url: /[?&]score_name=quality&score_below=0.5(&|$)/,
        expected: ['ft-claude'],
      },
      {
        // Search reads span inputs: the word is only in the tool span's JSON input, in other case.
        apply: async () => {
          await p.page.getByTestId('filter-search').fill('marmalade');
          await p.page.getByTestId('filter-search').press('Enter');
        },
        url: /[?&]search=marmalade(&|$)/,
        expected: ['ft-err'],
      },
      {
        apply: async () => {
          await p.page.getByTestId('filter-search').fill('FLT-ALPHA');
          await p.page.getByTestId('filter-apply').click();
        },
        url: /[?&]search=FLT-ALPHA(&|$)/,
        expected: ['ft-gpt'],
      },
    ];
    for (const [i, c] of cases.entries()) {
      await list(p);
      await c.apply();
      await p.page.waitForURL(c.url);
      await expect.poll(() => rowIds(p), { message: `filter ${i}: ${c.url}` }).toEqual(c.expected);
      // The URL alone gives the same list.
      await p.page.reload();
      await expect.poll(() => rowIds(p), { message: `filter ${i} after reload` }).toEqual(c.expected);
    }
    // Inputs show the filters the URL holds.
    expect(await p.page.getByTestId('filter-search').inputValue()).toBe('FLT-ALPHA');

    // Several at once, from a shared link.
    await p.page.goto('/traces?component_type=generation&min_duration_ms=250&score_name=quality&score_below=0.95');
    await expect.poll(() => rowIds(p)).toEqual(['ft-claude', 'ft-gpt']);
    expect(await p.page.getByTestId('filter-min-duration').inputValue()).toBe('250ms');
    expect(await p.page.getByTestId('filter-score-name').inputValue()).toBe('quality');
    expect(await p.page.getByTestId('filter-score-below').inputValue()).toBe('0.95');
    expect(await p.page.getByTestId('filter-component').inputValue()).toBe('generation');
    await p.screenshot('traces-list-filtered');

    // A bad duration is refused in words, not sent.
    await p.page.getByTestId('filter-min-duration').fill('soon');
    await p.page.getByTestId('filter-apply').click();
    await expect.poll(() => p.page.getByTestId('filter-error').textContent()).toContain('Min duration');
    expect(p.page.url()).toContain('min_duration_ms=250');

    await p.page.getByTestId('filter-clear').click();
    await expect.poll(() => rowIds(p)).toEqual(ALL);
    expect(new URL(p.page.url()).search).toBe('');
    expect(describeErrors(p)).toBe('');
  });

  it("shows each trace's scores in the list", async () => {
    const p = await open({ project: FILTERS_PROJECT, apiKey: filtersKey });
    await list(p);
    const chips = (id: string) => p.page.locator(SEL.traceRowOf(id)).locator(SEL.scoreChip).allTextContents();
    await expect.poll(() => chips('ft-claude')).toEqual(['quality: 0.3']);
    expect(await chips('ft-gpt')).toEqual(['quality: 0.9']);
    expect(await chips('ft-plain')).toEqual([]);
    await p.screenshot('traces-list-scores');
    expect(describeErrors(p)).toBe('');
  });

  it('works on a narrow window: the filters wrap and the table scrolls inside its wrapper', async () => {
    const p = await open({ project: FILTERS_PROJECT, apiKey: filtersKey, viewport: NARROW });
    await list(p);
    await expectFitsNarrow(p, 'traces-list-narrow');
  });
});

describe('trace page: content, scores and feedback', () => {
  it('shows chat input and output as a conversation, with the tool call', async () => {
    const p = await open();
    await p.page.goto(`/traces/${CHAT}?span=${CHAT_LLM}`);
    const input = p.page.locator(SEL.contentInput);
    await expect.poll(() => input.getAttribute('data-kind')).toBe('chat');
    const messages = input.locator(SEL.chatMessage);
    expect(await messages.count()).toBe(2);
    expect(await messages.evaluateAll((els) => els.map((e) => e.getAttribute('data-role')))).toEqual(['system', 'user']);
    expect(await messages.nth(1).textContent()).toContain('Can I get a refund for order 1234?');
    const output = p.page.locator(SEL.contentOutput);
    expect(await output.locator(SEL.chatMessage).count()).toBe(1);
    const call = output.locator(SEL.toolCall);
    expect(await call.textContent()).toContain('search_docs');
    expect(await call.textContent()).toContain('call_7');
    // The call's JSON arguments as a tree.
    expect(await call.textContent()).toContain('refund policy');
    expect(await call.textContent()).toContain('top_k');
    // Model, tokens and convention of the span.
    expect(await p.page.getByTestId('span-model').textContent()).toBe('gpt-4o');
    expect(await p.page.getByTestId('span-tokens').textContent()).toContain('120 in, 30 out');
    expect(await p.page.locator(SEL.spanDetail).textContent()).toContain('Convention');
    await p.screenshot('traces-trace-chat');
    expect(describeErrors(p)).toBe('');
  });

  it('shows JSON as a tree whose nested objects fold and unfold', async () => {
    const p = await open();
    await p.page.goto(`/traces/${CHAT}?span=${CHAT_JSON}`);
    const output = p.page.locator(SEL.contentOutput);
    await expect.poll(() => output.getAttribute('data-kind')).toBe('json');
    const tree = output.locator(SEL.jsonTree);
    // Small JSON starts unfolded.
    await expect.poll(() => tree.textContent()).toContain('initial_ms');
    const config = tree
      .locator('summary')
      .filter({ hasText: /^\s*config:/ })
      .locator('xpath=..');
    expect(await config.getAttribute('data-testid')).toBe('json-node');
    expect(await config.getAttribute('open')).not.toBeNull();
    await config.locator('summary').first().click();
    await expect.poll(() => config.getAttribute('open')).toBeNull();
    // Folded: its keys are gone, a summary says what is inside.
    await expect.poll(() => tree.textContent()).not.toContain('initial_ms');
    expect(await config.locator('summary').first().textContent()).toMatch(/\{\s*2 keys\s*\}/);
    expect(await tree.textContent()).toContain('Shipping times');
    await p.screenshot('traces-trace-json-folded');
    await config.locator('summary').first().click();
    await expect.poll(() => tree.textContent()).toContain('initial_ms');
    // Collapse all, then expand all.
    await output.getByTestId('json-collapse-all').click();
    await expect.poll(() => tree.textContent()).not.toContain('Shipping times');
    await output.getByTestId('json-expand-all').click();
    await expect.poll(() => tree.textContent()).toContain('Shipping times');
    // Raw: the pretty-printed text.
    await output.getByTestId('json-raw').click();
    await expect.poll(() => output.locator('pre').first().textContent()).toContain('"max_ms": 2000');
    expect(describeErrors(p)).toBe('');
  });

  it('folds long text with "show all", and folds it again', async () => {
    const p = await open();
    await p.page.goto(`/traces/${CHAT}?span=${CHAT_LONG}`);
    // A generation's output is its conversation's response (the stored output is folded away under it).
    const output = p.page.getByTestId('llm-output');
    const folded = output.locator(SEL.foldedText);
    await expect.poll(() => folded.getAttribute('data-folded')).toBe('true');
    const shown = (await folded.locator('pre').textContent())!;
    expect(shown.length).toBeLessThan(1600);
    expect(shown).not.toContain(LONG_TEXT_TAIL);
    await p.screenshot('traces-trace-long-text');
    const toggle = output.locator(SEL.foldedToggle);
    expect(await toggle.textContent()).toMatch(/Show all \([\d,]+ more characters\)/);
    await toggle.click();
    await expect.poll(() => folded.locator('pre').textContent()).toContain(LONG_TEXT_TAIL);
    expect(await toggle.textContent()).toContain('Show less');
    await toggle.click();
    await expect.poll(() => folded.locator('pre').textContent()).not.toContain(LONG_TEXT_TAIL);
    expect(describeErrors(p)).toBe('');
  });

  it('adds a score, a rating and a correction from the page: they are listed at once and stored', async () => {
    const p = await open();
    await p.page.goto(`/traces/${CHAT}`);
    const scores = p.page.getByTestId('trace-score-list');
    await expect.poll(() => scores.textContent()).toContain('No scores yet');

    // The forms are in a drawer beside the span detail, folded until opened.
    await p.page.getByTestId('feedback-drawer-toggle').click();
    // A score.
    await p.page.getByTestId('score-name').fill('helpfulness');
    await p.page.getByTestId('score-value').fill('0.75');
    await p.page.getByTestId('score-reason').fill('clear and polite');
    await p.page.getByTestId('score-submit').click();
    const helpful = scores.locator(`${SEL.scoreRow}[data-score-name="helpfulness"]`);
    await expect.poll(() => helpful.count()).toBe(1);
    expect(await helpful.textContent()).toContain('0.75');
    expect(await helpful.textContent()).toContain('clear and polite');
    expect(await p.page.getByTestId('trace-score').allTextContents()).toContain('helpfulness: 0.75');

    // A rating: thumbs up with a comment.
    await p.page.getByTestId('rating-comment').fill('solved my problem');
    await p.page.getByTestId('rating-up').click();
    const feedback = p.page.getByTestId('trace-feedback');
    const rating = feedback.locator(`${SEL.feedbackItem}[data-type="rating"]`);
    await expect.poll(() => rating.count()).toBe(1);
    expect(await rating.textContent()).toContain('thumbs up');
    expect(await rating.textContent()).toContain('solved my problem');
    // Its score (rating = 1) joins the scores.
    await expect.poll(() => scores.locator(`${SEL.scoreRow}[data-score-name="rating"]`).textContent()).toContain('1');

    // A correction of the selected span's output.
    await p.page.locator(`[data-testid="waterfall-row"][data-span-id="${CHAT_JSON}"]`).click();
    await p.page.waitForURL(new RegExp(`span=${CHAT_JSON}`));
    await expect.poll(() => p.page.getByTestId('correction-form').textContent()).toContain('lookup order');
    await p.page.getByTestId('correction-text').fill('{"status": "done", "order": 1234}');
    await p.page.getByTestId('correction-submit').click();
    const correction = feedback.locator(`${SEL.feedbackItem}[data-type="correction"]`);
    await expect.poll(() => correction.count()).toBe(1);
    expect(await correction.textContent()).toContain('"order": 1234');
    expect(await correction.textContent()).toContain(`Correction of span ${CHAT_JSON}`);
    await expect.poll(() => scores.locator(`${SEL.scoreRow}[data-score-name="correction"]`).count()).toBe(1);
    await p.page.getByTestId('trace-feedback').scrollIntoViewIfNeeded();
    await p.screenshot('traces-trace-feedback');

    // Stored: the API lists them.
    const stored = (await (await svc.api(`/api/scores?trace_id=${CHAT}`)).json()) as { scores: Score[] };
    expect(stored.scores.find((s) => s.name === 'helpfulness')).toMatchObject({ value: 0.75, reason: 'clear and polite', source: 'annotation' });
    expect(stored.scores.find((s) => s.name === 'rating')).toMatchObject({ value: 1, reason: 'solved my problem' });
    const given = (await (await svc.api(`/api/feedback?trace_id=${CHAT}`)).json()) as { feedback: Feedback[] };
    const types = given.feedback.map((f) => f.type).sort();
    expect(types).toEqual(['correction', 'rating']);
    const corr = given.feedback.find((f) => f.type === 'correction');
    expect(corr).toMatchObject({
      span_id: CHAT_JSON,
      source: 'web-ui',
      correction: { corrected: '{"status": "done", "order": 1234}', original: JSON.stringify(NESTED_JSON) },
    });
    expect(given.feedback.find((f) => f.type === 'rating')).toMatchObject({ rating: { thumbs: 'up', value: 1, comment: 'solved my problem' } });

    // After a reload they are still there.
    await p.page.reload();
    await expect.poll(() => p.page.getByTestId('trace-feedback').locator(SEL.feedbackItem).count()).toBe(2);
    expect(describeErrors(p)).toBe('');
  });

  it('tells a viewer key in words that it may not add feedback', async () => {
    const res = await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'ui viewer', role: 'viewer' } });
    expect(res.status).toBe(201);
    const viewer = ((await res.json()) as { key: string }).key;
    const p = await open({ apiKey: viewer });
    await p.page.goto(`/traces/${CHAT}`);
    // A viewer reads: the lists load.
    await expect.poll(() => p.page.getByTestId('trace-feedback').textContent()).not.toContain('Loading');
    await expect.poll(() => p.page.getByTestId('trace-score-list').textContent()).not.toContain('Loading');
    await p.page.getByTestId('feedback-drawer-toggle').click();
    await p.page.getByTestId('rating-down').click();
    await expect.poll(() => p.page.getByTestId('rating-error').textContent()).toContain('may not do that');
    expect(await p.page.getByTestId('rating-error').textContent()).toContain('feedback:write');
    await p.page.getByTestId('score-name').fill('q');
    await p.page.getByTestId('score-value').fill('0.5');
    await p.page.getByTestId('score-submit').click();
    await expect.poll(() => p.page.getByTestId('score-error').textContent()).toContain('traces:write');
    // The browser logs each refused request; nothing else may be logged.
    expect(p.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
  });

  it('works on a narrow window', async () => {
    const p = await open({ viewport: NARROW });
    await p.page.goto(`/traces/${CHAT}?span=${CHAT_LLM}`);
    await expect.poll(() => p.page.locator(SEL.contentInput).getAttribute('data-kind')).toBe('chat');
    await expectFitsNarrow(p, 'traces-trace-narrow');
  });
});

describe('compare traces', () => {
  it('goes from a trace to the comparison, aligns the span trees and highlights what changed', async () => {
    const p = await open();
    await p.page.goto(`/traces/${CMP_A}`);
    await p.page.getByTestId('trace-compare-link').click();
    await p.page.waitForURL((u) => u.pathname === '/compare/traces' && u.searchParams.get('a') === CMP_A);
    await expect.poll(() => p.page.getByTestId('trace-compare-recent').count()).toBeGreaterThan(0);
    await p.screenshot('traces-compare-pick');
    await p.page
      .locator(`[data-testid="trace-compare-recent"][data-trace-id="${CMP_B}"]`)
      .getByRole('link', { name: `Use ${CMP_B} as trace B` })
      .click();
    await p.page.waitForURL((u) => u.searchParams.get('b') === CMP_B);

    const row = (path: string) => p.page.locator(SEL.compareRowAt(path));
    await expect.poll(() => p.page.locator(SEL.compareRow).count()).toBe(6);
    expect(await p.page.locator(SEL.compareRow).evaluateAll((els) => els.map((e) => [e.getAttribute('data-path'), e.getAttribute('data-state')]))).toEqual([
      ['agent.run#0', 'both'],
      ['agent.run#0/plan#0', 'both'],
      ['agent.run#0/llm#0', 'both'],
      // B's retry comes after the span B has before it (llm); A's cache lookup after A's llm.
      ['agent.run#0/retry#0', 'only-b'],
      ['agent.run#0/cache lookup#0', 'only-a'],
      ['agent.run#0/answer#0', 'both'],
    ]);
    // The llm: slower by 400 ms (notable), 30 more tokens, another output.
    const llm = row('agent.run#0/llm#0');
    expect(await llm.getAttribute('data-output')).toBe('changed');
    expect(await llm.getByTestId('trace-compare-token-delta').textContent()).toBe('+30');
    expect(await llm.getByTestId('trace-compare-duration-delta').textContent()).toBe('+400 ms');
    expect(await llm.getByTestId('trace-compare-duration-delta').getAttribute('data-notable')).toBe('true');
    expect(await llm.textContent()).toContain('changed');
    expect(await row('agent.run#0/plan#0').getAttribute('data-output')).toBe('same');
    expect(await row('agent.run#0/cache lookup#0').textContent()).toContain('missing in B');
    expect(await row('agent.run#0/retry#0').textContent()).toContain('missing in A');
    const summary = (await p.page.getByTestId('trace-compare-summary').textContent())!;
    expect(summary).toContain('+500 ms (+50%)');
    expect(summary).toContain('+30 tokens');
    expect(summary).toContain('1 only in A');
    expect(summary).toContain('1 only in B');
    expect(summary).toContain('1 changed output');

    // The selected pair: both outputs, and their difference.
    await llm.click();
    await p.page.waitForURL((u) => u.searchParams.get('row') === 'agent.run#0/llm#0');
    const pair = p.page.getByTestId('trace-compare-selected');
    await expect.poll(() => pair.getByTestId('trace-compare-pair-a').textContent()).toContain('Use standard shipping for this order.');
    expect(await pair.getByTestId('trace-compare-pair-b').textContent()).toContain('Use express shipping for this order.');
    const diff = pair.getByTestId('trace-compare-output-diff');
    expect(await diff.locator('del').allTextContents()).toEqual(['standard']);
    expect(await diff.locator('ins').allTextContents()).toEqual(['express']);
    await p.screenshot('traces-compare');

    // The URL alone restores the comparison and the selection.
    await p.page.reload();
    await expect.poll(() => p.page.getByTestId('trace-compare-pair-b').textContent()).toContain('Use express shipping');
    expect(await llm.getAttribute('aria-pressed')).toBe('true');
    expect(describeErrors(p)).toBe('');
  });

  it('says so in words when a trace does not exist, and works on a narrow window', async () => {
    const p = await open({ viewport: NARROW });
    await p.page.goto(`/compare/traces?a=${CMP_A}&b=no-such-trace`);
    await expect.poll(() => p.page.getByTestId('trace-compare-error').textContent()).toContain('No trace "no-such-trace" in this project');
    p.errors.splice(0, p.errors.length, ...p.errors.filter((e) => !/status of 404/.test(e)));
    await p.page.goto(`/compare/traces?a=${CMP_A}&b=${CMP_B}&row=${encodeURIComponent('agent.run#0/llm#0')}`);
    await expect.poll(() => p.page.locator(SEL.compareRow).count()).toBe(6);
    await expectFitsNarrow(p, 'traces-compare-narrow');
  });
});
