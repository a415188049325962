import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComponentHealth, MetricSeries } from '../../core/model/analytics.js';
import type { CostBreakdown } from '../../core/model/cost-analytics.js';
import { texts } from '../fixtures/corpus/texts.js';
import { HOUR, MINUTE, windowStartHoursAgo } from '../helpers/dashboard-analytics.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * The dashboard's reads over a window of spans (component health, span series, cost analytics)
 * count each span once, where its newest row puts it (and the trace series each trace once, by its
 * merged summary): a span re-sent (updated, as JSON ingest
 * allows) with another start, model or tokens counts with its new values, and one whose new start
 * left the window no longer counts in it. The spans carry what agents send (the corpus' system
 * prompt, question and multi-paragraph answer).
 */

let svc: TestApi;
/** Three whole hours, five hours back. */
const T0 = windowStartHoursAgo(5);
const WINDOW = `start_time=${new Date(T0).toISOString()}&end_time=${new Date(T0 + 3 * HOUR).toISOString()}&interval=1h`;
/** Six hours before T0 up to the window's end: holds every version of every span. */
const WIDE = `start_time=${new Date(T0 - 6 * HOUR).toISOString()}&end_time=${new Date(T0 + 3 * HOUR).toISOString()}&interval=1h`;

/** A trace: a root, one LLM call (`model`, tokens) answering with the corpus' texts, one tool call. */
function agentTrace(id: string, start: number, llm: { model: string; input: number; output: number; ms: number }) {
  const child = childrenOf(id, start);
  return ingestTrace(id, {
    name: 'support-agent',
    start,
    durationMs: 900,
    root: { span_id: `${id}-root`, name: 'support-agent', type: 'span', input: texts.supportQuestion, output: texts.supportAnswer },
    spans: [
      child('llm', 10, llm.ms, {
        name: 'chat',
        type: 'generation',
        model: llm.model,
        input_tokens: llm.input,
        output_tokens: llm.output,
        input: [
          { role: 'system', content: texts.supportSystemPrompt },
          { role: 'user', content: texts.supportQuestion },
        ],
        output: texts.supportAnswer,
      }),
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
  await svc?.stop();
});

describe('the window reads with traces written more than once', () => {
  it('component health: each span once, an updated call with its new model, tokens and duration', async () => {
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

  it('span series: each LLM call once, in the hour of its newest start', async () => {
    const s = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&component_type=generation`);
    expect(s.counts).toEqual([2, 1, 0]);
    expect(s.latency_ms.p50).toEqual([300, 700, null]);
    const claude = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&model=claude-sonnet-4`);
    expect(claude.counts).toEqual([0, 1, 0]);
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
