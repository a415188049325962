import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComponentHealth, MetricSeries, ToolAnalytics } from '../../core/model/analytics.js';
import type { CostBreakdown } from '../../core/model/cost-analytics.js';
import { texts } from '../fixtures/corpus/texts.js';
import { HOUR, MINUTE, windowStartHoursAgo } from '../helpers/dashboard-analytics.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The dashboard's reads over a window of spans (component health, span series, tool calls, cost
 * analytics) count each span once, by the newest of its rows that started in the window (`FINAL`
 * after a PREWHERE: core/store/clickhouse/newest-span-rows.ts), and the trace series each trace
 * once, by its merged summary: a span re-sent (updated, as JSON ingest allows) with another start,
 * model or tokens counts with its new values, and a trace whose later write starts it before the
 * window no longer counts in it. Merges of `spans` are held back, so every write's rows stay in a
 * part of their own and the reads must choose between them. The spans carry what agents send (the
 * corpus' system prompt, question and multi-paragraph answer).
 */

let svc: TestApi;
/** Three whole hours, five hours back. */
const T0 = windowStartHoursAgo(5);
const WINDOW = `start_time=${new Date(T0).toISOString()}&end_time=${new Date(T0 + 3 * HOUR).toISOString()}&interval=1h`;
/** Six hours before T0 up to the window's end: holds every version of every span. */
const WIDE = `start_time=${new Date(T0 - 6 * HOUR).toISOString()}&end_time=${new Date(T0 + 3 * HOUR).toISOString()}&interval=1h`;

/** An LLM call's fields: its model and tokens, the corpus' system prompt and `question` in, `answer` out. */
function llmCall(c: { model: string; input: number; output: number }, question: string, answer: string) {
  return {
    name: 'chat',
    type: 'generation',
    model: c.model,
    input_tokens: c.input,
    output_tokens: c.output,
    input: [
      { role: 'system', content: texts.supportSystemPrompt },
      { role: 'user', content: question },
    ],
    output: answer,
  };
}

/** A trace: a root, one LLM call (`model`, tokens) answering with the corpus' texts, one tool call. */
function agentTrace(id: string, start: number, llm: { model: string; input: number; output: number; ms: number }) {
  const child = childrenOf(id, start);
  return ingestTrace(id, {
    name: 'support-agent',
    start,
    durationMs: 900,
    root: { span_id: `${id}-root`, name: 'support-agent', type: 'span', input: texts.supportQuestion, output: texts.supportAnswer },
    spans: [
      child('llm', 10, llm.ms, llmCall(llm, texts.supportQuestion, texts.supportAnswer)),
      child('tool', 400, 120, { name: 'order_lookup', type: 'tool', input: { order_id: 'A-1042' }, output: texts.orderLookupResult }),
    ],
  });
}

async function ingest(body: unknown): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function get<T>(path: string): Promise<T> {
  const res = await svc.api(path);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  svc = await startTestApi();
  await svc.clickhouse.command({ query: 'SYSTEM STOP MERGES agent_eval.spans' });
  // Stays: sent once, in the window.
  await ingest(agentTrace('nr-stays', T0 + 10 * MINUTE, { model: 'gpt-4o', input: 1000, output: 100, ms: 300 }));
  // Sent in the window; a later write adds a warm-up span five hours earlier, before the window.
  await ingest(agentTrace('nr-early', T0 + 20 * MINUTE, { model: 'gpt-4o', input: 2000, output: 200, ms: 300 }));
  await ingest(
    ingestTrace('nr-early', {
      name: 'support-agent',
      start: T0 - 5 * HOUR,
      durationMs: 100,
      root: { span_id: 'nr-early-warmup', name: 'warm-up', type: 'span', input: texts.ragParagraphs, output: texts.multilingual },
    }),
  );
  // Sent with one model, then re-sent in the next hour with another, more tokens and a longer call.
  await ingest(agentTrace('nr-updated', T0 + 30 * MINUTE, { model: 'gpt-4o', input: 3000, output: 300, ms: 300 }));
  await ingest(agentTrace('nr-updated', T0 + HOUR + 30 * MINUTE, { model: 'claude-sonnet-4', input: 4000, output: 400, ms: 700 }));
});
afterAll(async () => {
  await svc?.clickhouse.command({ query: 'SYSTEM START MERGES agent_eval.spans' });
  await svc?.stop();
});

/** Rows stored for a trace's spans, every version (what the reads choose from). */
async function storedRows(traceId: string): Promise<number> {
  const res = await svc.clickhouse.query({
    query: 'SELECT count() AS n FROM agent_eval.spans WHERE project_id = {project:String} AND trace_id = {trace:String}',
    query_params: { project: svc.defaultProjectId, trace: traceId },
    format: 'JSONEachRow',
  });
  return Number((await res.json<{ n: string }>())[0].n);
}

describe('the window reads with traces written more than once', () => {
  it('component health: each span once, an updated call with its new model, tokens and duration', async () => {
    // nr-updated's three spans are stored twice each, in two parts.
    expect(await storedRows('nr-updated')).toBe(6);
    const h = await get<ComponentHealth>(`/api/analytics/components?${WINDOW}`);
    // Three spans each of nr-stays, nr-updated and nr-early; nr-early's warm-up is before the window.
    expect(h.span_count).toBe(9);
    const byModel = Object.fromEntries(h.by_model.map((m) => [m.model, m]));
    expect(Object.keys(byModel).sort()).toEqual(['claude-sonnet-4', 'gpt-4o']);
    expect(byModel['gpt-4o']).toMatchObject({ span_count: 2, tokens: { total: 3300 } });
    expect(byModel['claude-sonnet-4']).toMatchObject({ span_count: 1, tokens: { total: 4400 } });
    const generation = h.by_component_type.find((c) => c.component_type === 'generation');
    expect(generation).toMatchObject({ span_count: 3, tokens: { total: 7700 } });
    // The calls' newest durations: 300, 300 and 700 ms (not nr-updated's first 300 as well).
    expect(generation!.latency_ms.p95).toBeCloseTo(300 + 0.9 * 400, 9);

    const wide = await get<ComponentHealth>(`/api/analytics/components?${WIDE}`);
    expect(wide.span_count).toBe(10);
  });

  it('the trace page: each span once in its newest row, whole or page by page, and the summary over them', async () => {
    type Span = { span_id: string; model: string | null; input_tokens: number; output_tokens: number; start_time: string };
    type Trace = {
      span_count: number;
      total_input_tokens: number;
      total_output_tokens: number;
      llm_call_count: number;
      spans: Span[];
      spans_next_cursor: string | null;
    };
    const whole = await get<Trace>('/api/traces/nr-updated');
    expect(whole).toMatchObject({ span_count: 3, total_input_tokens: 4000, total_output_tokens: 400, llm_call_count: 1, spans_next_cursor: null });
    expect(whole.spans.map((s) => s.span_id)).toEqual(['nr-updated-root', 'nr-updated-llm', 'nr-updated-tool']);
    expect(whole.spans[1]).toMatchObject({ model: 'claude-sonnet-4', input_tokens: 4000, output_tokens: 400 });
    expect(whole.spans[0].start_time).toBe(new Date(T0 + HOUR + 30 * MINUTE).toISOString());
    // Two spans a page: the same spans, each once, in the same order.
    const first = await get<Trace>('/api/traces/nr-updated?spans_limit=2');
    expect(first.spans.map((s) => s.span_id)).toEqual(['nr-updated-root', 'nr-updated-llm']);
    const next = await get<Trace>(`/api/traces/nr-updated?spans_limit=2&spans_cursor=${encodeURIComponent(first.spans_next_cursor!)}`);
    expect(next.spans.map((s) => s.span_id)).toEqual(['nr-updated-tool']);
    expect(next.spans_next_cursor).toBeNull();
  });

  it('span series: each LLM call once, in the hour of its newest start', async () => {
    const s = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&component_type=generation`);
    expect(s.counts).toEqual([2, 1, 0]);
    expect(s.latency_ms.p50).toEqual([300, 700, null]);
    const claude = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&model=claude-sonnet-4`);
    expect(claude.counts).toEqual([0, 1, 0]);
  });

  it('tool calls: each call once, though nr-updated sent its tool span twice', async () => {
    const t = await get<ToolAnalytics>(`/api/analytics/tools?${WINDOW.replace('&interval=1h', '')}`);
    expect(t.tool_call_count).toBe(3);
    expect(t.tools).toEqual([expect.objectContaining({ tool_name: 'order_lookup', call_count: 3, trace_count: 3, error_count: 0 })]);
  });

  it('trace series: each trace once, in the hour of its earliest start over all its writes', async () => {
    // nr-early's second write starts it five hours before the window: out of it, though its first
    // write's summary row alone started inside. nr-updated started at its first write's start.
    const s = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}`);
    expect(s.counts).toEqual([2, 0, 0]);
    // A trace's tokens over its spans, each span once (nr-updated's LLM call at its larger count).
    expect(s.tokens.p50[0]).toBeCloseTo((1100 + 4400) / 2, 9);
    const wide = await get<MetricSeries>(`/api/analytics/timeseries?${WIDE}`);
    expect(wide.overall.count).toBe(3);
    expect(wide.counts.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('cost analytics: tokens and traces by the newest model of each call; the costliest traces by their merged start', async () => {
    const c = await get<CostBreakdown>(`/api/analytics/costs?${WINDOW}&group_by=model`);
    const byModel = Object.fromEntries(c.groups.map((g) => [g.key, g]));
    expect(Object.keys(byModel).sort()).toEqual(['claude-sonnet-4', 'gpt-4o']);
    expect(byModel['gpt-4o']).toMatchObject({ total_tokens: 3300, traces: 2, tokens: [3300, 0, 0] });
    expect(byModel['claude-sonnet-4']).toMatchObject({ total_tokens: 4400, traces: 1, tokens: [0, 4400, 0] });
    expect(c.total).toMatchObject({ tokens: 7700, traces: 3 });
    // The costliest traces that started in the window: each once (nr-updated is stored in two
    // summary rows), not nr-early; nr-updated's cost is its call's newest price.
    expect(c.top_traces.map((t) => t.trace_id).sort()).toEqual(['nr-stays', 'nr-updated']);
    const updated = c.top_traces.find((t) => t.trace_id === 'nr-updated')!;
    expect(updated.tokens).toBe(4400);
    expect(updated.cost_usd).toBeCloseTo(byModel['claude-sonnet-4'].total_cost_usd, 12);

    const wide = await get<CostBreakdown>(`/api/analytics/costs?${WIDE}&group_by=model`);
    expect(wide.top_traces.map((t) => t.trace_id).sort()).toEqual(['nr-early', 'nr-stays', 'nr-updated']);
  });
});

describe("any writes and re-sends of a window's LLM calls (property)", () => {
  const MODELS = ['gpt-4o', 'claude-sonnet-4', 'llama-3.1-70b'] as const;
  /** One version of a call: its model and tokens, and when it starts: in the window or just before it. */
  const version = fc.record({
    model: fc.constantFrom(...MODELS),
    input: fc.integer({ min: 0, max: 50_000 }),
    output: fc.integer({ min: 0, max: 5_000 }),
    inside: fc.boolean(),
    minute: fc.integer({ min: 0, max: 50 }),
  });
  type Version = { model: string; input: number; output: number; inside: boolean; minute: number };
  /** A trace: its calls, each sent in one to three versions (write k sends every call's k-th version). */
  const traceSpec = fc.array(fc.array(version, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });

  it('component health and cost by model count the newest version of each call that started in the window', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(traceSpec, { minLength: 1, maxLength: 3 }), async (traces) => {
        run++;
        // A window of its own per run, two hours apart, well before the examples' data.
        const ws = T0 - (12 + 2 * run) * HOUR;
        const at = (v: Version) => (v.inside ? ws + v.minute * MINUTE : ws - 55 * MINUTE + v.minute * MINUTE);
        const writes = Math.max(...traces.flatMap((calls) => calls.map((versions) => versions.length)));
        for (let k = 0; k < writes; k++) {
          for (const [t, calls] of traces.entries()) {
            const id = `pr${run}-t${t}`;
            const sent = calls.flatMap((versions, c) => (versions[k] ? [{ c, v: versions[k] }] : []));
            if (sent.length === 0) continue;
            await ingest(
              ingestTrace(id, {
                name: 'research-agent',
                start: ws,
                durationMs: HOUR - MINUTE,
                root: { span_id: `${id}-root`, name: 'research-agent', type: 'span', input: texts.supportQuestion, output: texts.supportAnswer },
                spans: sent.map(({ c, v }) => ({
                  span_id: `${id}-call${c}`,
                  parent_span_id: `${id}-root`,
                  ...llmCall(v, texts.ragParagraphs, texts.multilingual),
                  start_time: new Date(at(v)).toISOString(),
                  end_time: new Date(at(v) + 1500).toISOString(),
                })),
              }),
            );
          }
        }
        // The model: each call's newest version among those that started in the window.
        const expected = new Map<string, { calls: number; tokens: number; traces: Set<number> }>();
        for (const [t, calls] of traces.entries())
          for (const versions of calls) {
            const newest = versions.filter((v) => v.inside).at(-1);
            if (!newest) continue;
            const m = expected.get(newest.model) ?? { calls: 0, tokens: 0, traces: new Set<number>() };
            m.calls++;
            m.tokens += newest.input + newest.output;
            m.traces.add(t);
            expected.set(newest.model, m);
          }
        const window = `start_time=${new Date(ws).toISOString()}&end_time=${new Date(ws + HOUR).toISOString()}&interval=1h`;
        const health = await get<ComponentHealth>(`/api/analytics/components?${window}`);
        expect(
          Object.fromEntries(health.by_model.filter((m) => m.model !== '').map((m) => [m.model, { calls: m.span_count, tokens: m.tokens.total }])),
        ).toEqual(Object.fromEntries([...expected].map(([model, m]) => [model, { calls: m.calls, tokens: m.tokens }])));
        const costs = await get<CostBreakdown>(`/api/analytics/costs?${window}&group_by=model`);
        expect(Object.fromEntries(costs.groups.map((g) => [g.key, { tokens: g.total_tokens, traces: g.traces }]))).toEqual(
          Object.fromEntries([...expected].map(([model, m]) => [model, { tokens: m.tokens, traces: m.traces.size }])),
        );
      }),
      { numRuns: 10 },
    );
  });
});
