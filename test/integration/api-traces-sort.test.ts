import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FieldIssue } from '../../core/errors.js';
import type { TraceList } from '../../core/model/trace.js';
import { corpusTexts } from '../helpers/corpus.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * GET /api/traces for scanning (docs/api.md): `sort` / `order` (time, duration, cost, tokens, a
 * score) with keyset paging in each order, `source` (production, evaluation, online-judge), and
 * each trace's root input and output previews.
 */
let svc: TestApi;
const project = 'project-sort';
const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const texts = corpusTexts();
const longest = texts.reduce((a, b) => (a.length >= b.length ? a : b));

interface Spec {
  id: string;
  minute: number;
  durationMs: number;
  /** Output tokens of its one priced generation (gpt-4o), or none. */
  tokens?: number;
  attributes?: Record<string, string>;
  rootAttributes?: Record<string, string>;
  input?: unknown;
  output?: unknown;
}

function trace(s: Spec) {
  const start = base + s.minute * 60_000;
  return {
    trace_id: s.id,
    name: `trace ${s.id}`,
    status: 'ok',
    duration_ms: s.durationMs,
    start_time: iso(start),
    ...(s.attributes ? { attributes: s.attributes } : {}),
    spans: [
      {
        span_id: `${s.id}-root`,
        name: 'agent',
        type: 'span',
        start_time: iso(start),
        end_time: iso(start + s.durationMs),
        input: s.input,
        output: s.output,
        ...(s.rootAttributes ? { attributes: s.rootAttributes } : {}),
      },
      ...(s.tokens === undefined
        ? []
        : [
            {
              span_id: `${s.id}-llm`,
              parent_span_id: `${s.id}-root`,
              name: 'llm',
              type: 'generation',
              model: 'gpt-4o',
              input_tokens: 10,
              output_tokens: s.tokens,
              start_time: iso(start + 1),
              end_time: iso(start + 2),
            },
          ]),
    ],
  };
}

const SPECS: Spec[] = [
  { id: 's-a', minute: 1, durationMs: 400, tokens: 5000, input: longest, output: texts[1] },
  { id: 's-b', minute: 2, durationMs: 9000, tokens: 100, input: 'short question?', output: { answer: 42 } },
  { id: 's-c', minute: 3, durationMs: 50, tokens: 90_000, attributes: { 'agent_eval.run_id': 'run-1', 'agent_eval.case_index': '0' } },
  { id: 's-d', minute: 4, durationMs: 700, attributes: { 'agent_eval.online_rule_id': 'rule-1', 'agent_eval.scored_trace_id': 's-a' } },
  { id: 's-e', minute: 5, durationMs: 700, tokens: 100 },
];
/** The SDK's evaluate() names its run on the root span only (sent over OTLP, no trace header); beside a production trace. */
const SDK_SPECS: Spec[] = [
  { id: 's-g', minute: 6, durationMs: 10, rootAttributes: { 'agent_eval.run_id': 'local-run', 'agent_eval.case_index': '2' } },
  { id: 's-h', minute: 7, durationMs: 10, rootAttributes: { 'app.route': '/chat' } },
];
/** A chat at the root: the preview shows the last user and assistant messages, not the system prompt. */
const CHAT: Spec = {
  id: 's-f',
  minute: 0,
  durationMs: 10,
  input: [
    { role: 'system', content: 'You are a support agent. '.repeat(20) },
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: texts[2] },
  ],
  output: { role: 'assistant', content: 'Your refund is on its way.' },
};

async function list(query: string): Promise<TraceList> {
  const res = await svc.api(`/api/traces${query}`, { project });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as TraceList;
}
const ids = async (query: string) => (await list(query)).traces.map((t) => t.trace_id);

async function walk(query: string, limit: number): Promise<string[]> {
  const walked: string[] = [];
  let page = await list(`?${query}&limit=${limit}`);
  for (;;) {
    walked.push(...page.traces.map((t) => t.trace_id));
    if (!page.next_cursor) return walked;
    page = await list(`?${query}&limit=${limit}&cursor=${page.next_cursor}`);
  }
}

beforeAll(async () => {
  svc = await startTestApi();
  for (const s of SPECS) {
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: trace(s), project });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  for (const s of SDK_SPECS) {
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: trace(s), project: `${project}-sdk` });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  const chat = await svc.api('/api/traces/ingest', { method: 'POST', json: trace(CHAT), project: `${project}-chat` });
  expect(chat.status, await chat.clone().text()).toBe(201);
  for (const [id, value] of [
    ['s-a', 0.2],
    ['s-b', 0.9],
    ['s-e', 0.5],
  ] as const) {
    const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: id, name: 'quality', value }, project });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /api/traces sort', () => {
  it('orders by each key, both ways, traces without the key last', async () => {
    expect(await ids('?sort=time&order=asc')).toEqual(['s-a', 's-b', 's-c', 's-d', 's-e']);
    expect(await ids('?sort=duration')).toEqual(['s-b', 's-e', 's-d', 's-a', 's-c']);
    expect(await ids('?sort=tokens')).toEqual(['s-c', 's-a', 's-e', 's-b', 's-d']);
    const byCost = await list('?sort=cost');
    expect(byCost.traces.map((t) => t.trace_id)).toEqual(['s-c', 's-a', 's-e', 's-b', 's-d']);
    expect(byCost.traces[0].total_cost).toBeGreaterThan(byCost.traces[1].total_cost!);
    expect(byCost.traces.at(-1)!.total_cost).toBeNull();
    expect(await ids('?sort=cost&order=asc')).toEqual(['s-b', 's-e', 's-a', 's-c', 's-d']);
    expect(await ids('?sort=score&sort_score=quality')).toEqual(['s-b', 's-e', 's-a', 's-d', 's-c']);
    expect(await ids('?sort=score&sort_score=quality&order=asc')).toEqual(['s-a', 's-e', 's-b', 's-c', 's-d']);
  });

  it('pages by cursor in every order to the same list, whatever the page size', async () => {
    const orders = fc.constantFrom(
      'sort=time',
      'sort=time&order=asc',
      'sort=duration',
      'sort=cost',
      'sort=cost&order=asc',
      'sort=tokens&order=asc',
      'sort=score&sort_score=quality',
    );
    await fc.assert(
      fc.asyncProperty(orders, fc.integer({ min: 1, max: 4 }), async (query, limit) => {
        expect(await walk(query, limit)).toEqual(await ids(`?${query}`));
      }),
      { numRuns: 12 },
    );
  });

  it('refuses a cursor of another sort, sort=score without its name, and unknown keys, naming each (422)', async () => {
    const byCost = await list('?sort=cost&limit=1');
    for (const [query, param] of [
      [`?sort=duration&cursor=${byCost.next_cursor}`, 'cursor'],
      [`?cursor=${byCost.next_cursor}`, 'cursor'],
      ['?sort=score', 'sort_score'],
      ['?sort_score=quality', 'sort_score'],
      ['?sort=price', 'sort'],
      ['?order=up', 'order'],
      ['?source=staging', 'source'],
    ]) {
      const res = await svc.api(`/api/traces${query}`, { project });
      expect(res.status, query).toBe(422);
      const body = (await res.json()) as { details: FieldIssue[] };
      expect(
        body.details.map((d) => d.field),
        query,
      ).toContain(param);
    }
  });
});

describe('GET /api/traces source', () => {
  it('separates production traffic from evaluation cases and online judges', async () => {
    expect(await ids('?source=production')).toEqual(['s-e', 's-b', 's-a']);
    expect(await ids('?source=evaluation')).toEqual(['s-c']);
    expect(await ids('?source=online-judge')).toEqual(['s-d']);
    expect((await list('?source=production&sort=cost&limit=1')).total).toBe(3);
    const sdk = async (source: string) =>
      ((await (await svc.api(`/api/traces?source=${source}`, { project: `${project}-sdk` })).json()) as TraceList).traces.map((t) => t.trace_id);
    expect(await sdk('evaluation')).toEqual(['s-g']);
    expect(await sdk('production')).toEqual(['s-h']);
  });
});

describe('GET /api/traces previews', () => {
  it("shows the root span's input and output on one line, cut at 120 characters", async () => {
    const byId = new Map((await list('')).traces.map((t) => [t.trace_id, t]));
    const a = byId.get('s-a')!;
    const folded = longest.replace(/\s+/g, ' ').trim();
    expect(a.input_preview).toBe(`${Array.from(folded).slice(0, 120).join('').trimEnd()}…`);
    expect(a.output_preview).not.toMatch(/\n/);
    expect(byId.get('s-b')!.input_preview).toBe('short question?');
    expect(byId.get('s-b')!.output_preview).toContain('42');
    expect(byId.get('s-e')!.input_preview).toBeNull();
    expect(byId.get('s-e')!.output_preview).toBeNull();
    const chat = ((await (await svc.api('/api/traces', { project: `${project}-chat` })).json()) as TraceList).traces[0];
    expect(chat.input_preview!.replace(/…$/, '')).toBe(texts[2].replace(/\s+/g, ' ').trim().slice(0, chat.input_preview!.replace(/…$/, '').length));
    expect(chat.input_preview!.length).toBeGreaterThan(10);
    expect(chat.output_preview).toBe('Your refund is on its way.');
  });
});

describe('GET /api/traces previews, span ids shared across traces', () => {
  it("reads each trace's own root, not a span of another trace with the same id", async () => {
    const ids = `${project}-ids`;
    const span = (id: string, input: string, parent?: string) => ({
      span_id: id,
      ...(parent ? { parent_span_id: parent } : {}),
      name: 'step',
      type: 'span',
      input,
      output: `${input}, answered`,
      start_time: iso(base + (parent ? 1 : 0)),
      end_time: iso(base + 10),
    });
    const post = async (trace: string, spans: unknown[]) => {
      const json = { trace_id: trace, name: trace, status: 'ok', start_time: iso(base), duration_ms: 10, spans };
      expect((await svc.api('/api/traces/ingest', { method: 'POST', json, project: ids })).status).toBe(201);
    };
    await post('p-a', [span('shared', 'the root of p-a')]);
    await post('p-b', [span('b-root', 'the root of p-b'), span('shared', 'a step of p-b', 'b-root')]);
    const listed = ((await (await svc.api('/api/traces', { project: ids })).json()) as TraceList).traces;
    const byId = Object.fromEntries(listed.map((t) => [t.trace_id, [t.input_preview, t.output_preview]]));
    expect(byId).toEqual({
      'p-a': ['the root of p-a', 'the root of p-a, answered'],
      'p-b': ['the root of p-b', 'the root of p-b, answered'],
    });
  });
});

describe('GET /api/traces sort by tokens and cost, traces written in parts', () => {
  const multi = `${project}-parts`;
  const generation = (trace: string, id: string, outputTokens: number, minute: number) => ({
    span_id: id,
    parent_span_id: `${trace}-root`,
    name: 'llm',
    type: 'generation',
    model: 'gpt-4o',
    input_tokens: 10,
    output_tokens: outputTokens,
    input: texts[3],
    output: texts[4],
    start_time: iso(base + minute * 60_000 + 1),
    end_time: iso(base + minute * 60_000 + 2),
  });
  const post = async (path: string, json: unknown) => {
    const res = await svc.api(path, { method: 'POST', json, project: multi });
    expect(res.status, await res.clone().text()).toBe(201);
  };
  const root = (trace: string, minute: number) => ({
    trace_id: trace,
    name: trace,
    status: 'ok',
    start_time: iso(base + minute * 60_000),
    duration_ms: 5000,
    spans: [{ span_id: `${trace}-root`, name: 'agent', type: 'span', start_time: iso(base + minute * 60_000), end_time: iso(base + minute * 60_000 + 5000) }],
  });
  const listed = async (query: string) =>
    ((await (await svc.api(`/api/traces?${query}`, { project: multi })).json()) as TraceList).traces.map((t) => ({
      id: t.trace_id,
      tokens: t.total_input_tokens + t.total_output_tokens,
      cost: t.total_cost,
    }));

  it('orders by the totals the list shows, a re-sent span counted once, before and after the parts merge', async () => {
    // Each write its own insert, kept apart: the summaries' merges wait until the end.
    await svc.clickhouse.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });
    try {
      // m-a: three writes of different spans (630 tokens); m-b: one generation sent three times (510); m-c: one write (560).
      await post('/api/traces/ingest', { ...root('m-a', 1), spans: [...root('m-a', 1).spans, generation('m-a', 'm-a-1', 100, 1)] });
      await post('/api/spans', { trace_id: 'm-a', spans: [generation('m-a', 'm-a-2', 200, 1)] });
      await post('/api/spans', { trace_id: 'm-a', spans: [generation('m-a', 'm-a-3', 300, 1)] });
      await post('/api/traces/ingest', { ...root('m-b', 2), spans: [...root('m-b', 2).spans, generation('m-b', 'm-b-1', 500, 2)] });
      await post('/api/spans', { trace_id: 'm-b', spans: [generation('m-b', 'm-b-1', 500, 2)] });
      await post('/api/spans', { trace_id: 'm-b', spans: [generation('m-b', 'm-b-1', 500, 2)] });
      await post('/api/traces/ingest', { ...root('m-c', 3), spans: [...root('m-c', 3).spans, generation('m-c', 'm-c-1', 550, 3)] });
      const rows = await svc.clickhouse.query({
        query: "SELECT trace_id, count() AS n FROM agent_eval.trace_stats WHERE trace_id IN ('m-a', 'm-b', 'm-c') GROUP BY trace_id ORDER BY trace_id",
        format: 'JSONEachRow',
      });
      expect((await rows.json<{ n: string | number }>()).map((r) => Number(r.n))).toEqual([3, 3, 1]);

      const check = async () => {
        const byTokens = await listed('sort=tokens');
        expect(byTokens.map((t) => [t.id, t.tokens])).toEqual([
          ['m-a', 630],
          ['m-c', 560],
          ['m-b', 510],
        ]);
        expect(byTokens.every((t) => typeof t.cost === 'number' && t.cost > 0)).toBe(true);
        expect((await listed('sort=tokens&order=asc')).map((t) => t.id)).toEqual(['m-b', 'm-c', 'm-a']);
        const byCost = await listed('sort=cost');
        expect(byCost.map((t) => t.id)).toEqual(['m-a', 'm-c', 'm-b']);
        // Each cost is that trace's generations priced once each: with m-b's 10 + 500 and m-c's
        // 10 + 550 tokens giving the two prices, m-a's 30 + 600 cost 3 x m-b's - 900 output tokens.
        const [a, c, b] = byCost.map((t) => t.cost!);
        const perOutputToken = (c - b) / 50;
        expect(perOutputToken).toBeGreaterThan(0);
        expect(a).toBeCloseTo(3 * b - 900 * perOutputToken, 9);
        expect((await listed('sort=cost&order=asc')).map((t) => t.id)).toEqual(['m-b', 'm-c', 'm-a']);
      };
      await check();
      await svc.clickhouse.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
      await svc.clickhouse.command({ query: 'OPTIMIZE TABLE agent_eval.trace_stats FINAL' });
      await check();
    } finally {
      await svc.clickhouse.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
    }
  });
});
