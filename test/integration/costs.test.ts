import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPriceTable, loadPriceTable, parsePriceFile, SHIPPED_PRICES_FILE, type PriceFile } from '../../core/cost/price-table.js';
import type { RecomputeResult, RunCost, TraceCost } from '../../core/model/cost.js';
import type { ComponentHealth, MetricSeries } from '../../core/model/analytics.js';
import type { SpanRecord } from '../../core/model/span.js';
import type { TraceDetail, TraceList } from '../../core/model/trace.js';
import { createCostReads } from '../../core/store/clickhouse/cost-reads.js';
import { spanRow } from '../../core/store/clickhouse/rows.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { makeDataDir, startTestApi, type TestApi } from '../helpers/server.js';

/**
 * Cost at ingest (docs/costs.md): every generation span priced from the versioned table whichever
 * way it came in, summed into its trace, shown by the trace and analytics APIs, and repriced by
 * POST /api/admin/recompute-costs. The service runs with an override file merged over the
 * shipped table, as AGENT_EVAL_PRICES_FILE sets it.
 */

let svc: TestApi;
let version: string;
const HOUR = 3_600_000;
/** Every span of these tests starts in [T0, T0 + 1h). */
const T0 = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const WINDOW = { from: new Date(T0).toISOString(), to: new Date(T0 + HOUR).toISOString() };
const iso = (ms: number) => new Date(ms).toISOString();

const OVERRIDE = { version: 'it-1', providers: { acme: { models: { 'acme-llm': { input: 1, output: 2 } } } } };

/** USD by hand: tokens times the list price per million. */
const usd = (tokens: number, perMillion: number) => (tokens * perMillion) / 1e6;
const MINI = { input: 0.15, output: 0.6, cached: 0.075 };
const SONNET = { input: 3, output: 15, cached: 0.3 };

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as T;
}
const getTrace = async (id: string) => json<TraceDetail>(await svc.api(`/api/traces/${id}?spans_limit=100`));

/** A JSON ingest body: an agent span, two generations (one with cached tokens), an unknown model, a tool call. */
function agentTrace(id: string, start: number) {
  /** A span under the agent span, `from` to `to` ms after the trace's start. */
  const child = (key: string, name: string, type: string, from: number, to: number, fields: Record<string, unknown>) => ({
    span_id: `${id}-${key}`,
    parent_span_id: `${id}-root`,
    name,
    type,
    start_time: iso(start + from),
    end_time: iso(start + to),
    ...fields,
  });
  return {
    trace_id: id,
    name: 'cost-agent',
    status: 'ok',
    duration_ms: 500,
    start_time: iso(start),
    spans: [
      { span_id: `${id}-root`, name: 'agent', type: 'span', start_time: iso(start), end_time: iso(start + 500) },
      child('plan', 'plan', 'generation', 1, 100, {
        model: 'gpt-4o-mini-2024-07-18',
        input_tokens: 1000,
        output_tokens: 500,
        attributes: { 'gen_ai.usage.cache_read_input_tokens': 200 },
      }),
      child('answer', 'answer', 'generation', 200, 300, { model: 'openai/gpt-4o-mini', input_tokens: 3000, output_tokens: 100 }),
      child('local', 'local model', 'generation', 300, 350, { model: 'my-local-llama', input_tokens: 50, output_tokens: 50 }),
      child('tool', 'search', 'tool', 400, 450, { attributes: { tool_name: 'search' } }),
    ],
  };
}
const PLAN_COST = usd(800, MINI.input) + usd(200, MINI.cached) + usd(500, MINI.output);
const ANSWER_COST = usd(3000, MINI.input) + usd(100, MINI.output);

beforeAll(async () => {
  const dataDir = makeDataDir();
  const override = path.join(dataDir, 'prices.json');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(override, JSON.stringify(OVERRIDE));
  svc = await startTestApi({ AGENT_EVAL_DATA_DIR: dataDir, AGENT_EVAL_PRICES_FILE: override });
  version = `${loadPriceTable().version}+it-1`;
  await json(await svc.api('/api/traces/ingest', { method: 'POST', json: agentTrace('cost-json', T0 + 60_000) }), 201);
});
afterAll(async () => {
  await svc?.stop();
});

describe('cost at ingest', () => {
  it('prices each generation span of a JSON trace, stores the parts and the table version, and sums them into the trace', async () => {
    const t = await getTrace('cost-json');
    const byName = Object.fromEntries(t.spans.map((s) => [s.name, s]));
    expect(byName.plan.cached_input_tokens).toBe(200);
    const plan = byName.plan.cost!;
    expect(plan.version).toBe(version);
    expect(plan.input).toBeCloseTo(usd(800, MINI.input), 15);
    expect(plan.cached_input).toBeCloseTo(usd(200, MINI.cached), 15);
    expect(plan.output).toBeCloseTo(usd(500, MINI.output), 15);
    expect(plan.total).toBeCloseTo(PLAN_COST, 15);
    // A provider prefix and a date suffix find the same row of the table.
    expect(byName.answer.cost?.version).toBe(version);
    expect(byName.answer.cost?.total).toBeCloseTo(ANSWER_COST, 15);
    // An unknown model is unpriced, not free; spans that are no model call carry no cost.
    expect(byName['local model'].cost).toBeNull();
    expect(byName.search.cost).toBeNull();
    expect(byName.agent.cost).toBeNull();
    expect(t.total_cost).toBeCloseTo(PLAN_COST + ANSWER_COST, 15);
    expect(t.unpriced_llm_call_count).toBe(1);
    expect(t.llm_call_count).toBe(3);
  });

  it('shows the cost in the trace list, and a re-sent trace counts once', async () => {
    await json(await svc.api('/api/traces/ingest', { method: 'POST', json: agentTrace('cost-json', T0 + 60_000) }), 201);
    const list = await json<TraceList>(await svc.api(`/api/traces?start_time=${WINDOW.from}&name=cost-agent`));
    const row = list.traces.find((x) => x.trace_id === 'cost-json');
    expect(row?.total_cost).toBeCloseTo(PLAN_COST + ANSWER_COST, 15);
    expect(row?.unpriced_llm_call_count).toBe(1);
  });

  it('prices OTLP spans the same way (GenAI conventions, cached tokens included), and models only the override knows', async () => {
    const nano = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const attr = (key: string, v: string | number) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });
    const span = (spanId: string, model: string, input: number, output: number, cached?: number) => ({
      traceId: 'c0570000000000000000000000000001',
      spanId,
      name: `chat ${model}`,
      kind: 3,
      startTimeUnixNano: nano(T0 + 120_000),
      endTimeUnixNano: nano(T0 + 121_000),
      attributes: [
        attr('gen_ai.operation.name', 'chat'),
        attr('gen_ai.request.model', model),
        attr('gen_ai.usage.input_tokens', input),
        attr('gen_ai.usage.output_tokens', output),
        ...(cached === undefined ? [] : [attr('gen_ai.usage.cache_read.input_tokens', cached)]),
      ],
    });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [attr('service.name', 'otlp-agent')] },
          scopeSpans: [
            {
              scope: { name: 'test' },
              spans: [span('0000000000000a01', 'claude-sonnet-4-6', 2000, 100, 1000), span('0000000000000a02', 'acme-llm', 1_000_000, 1_000_000)],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${svc.apiUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': svc.apiKey! },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const t = await getTrace('c0570000000000000000000000000001');
    const sonnet = usd(1000, SONNET.input) + usd(1000, SONNET.cached) + usd(100, SONNET.output);
    expect(t.spans.find((s) => s.span_id === '0000000000000a01')?.cost?.total).toBeCloseTo(sonnet, 15);
    // $1 per million in, $2 per million out: the override's own model.
    expect(t.spans.find((s) => s.span_id === '0000000000000a02')?.cost).toMatchObject({ total: 3, version });
    expect(t.total_cost).toBeCloseTo(sonnet + 3, 12);
  });
});

describe('analytics cost columns', () => {
  it('sums cost per model and component, and per time bucket', async () => {
    const range = `start_time=${WINDOW.from}&end_time=${WINDOW.to}`;
    const health = await json<ComponentHealth>(await svc.api(`/api/analytics/components?${range}`));
    const mini = health.by_model.filter((m) => m.model.includes('gpt-4o-mini')).reduce((sum, m) => sum + m.cost_usd, 0);
    expect(mini).toBeCloseTo(PLAN_COST + ANSWER_COST, 15);
    const local = health.by_model.find((m) => m.model === 'my-local-llama');
    expect(local).toMatchObject({ cost_usd: 0, unpriced_llm_calls: 1 });
    const generation = health.by_component_type.find((c) => c.component_type === 'generation');
    expect(generation?.unpriced_llm_calls).toBe(1);

    const series = await json<MetricSeries>(await svc.api(`/api/analytics/timeseries?${range}&interval=1h`));
    expect(series.cost_usd).toHaveLength(1);
    expect(series.cost_usd[0]).toBeCloseTo(series.overall.cost_usd, 15);
    expect(series.overall.cost_usd).toBeGreaterThan(PLAN_COST + ANSWER_COST + 3);
    const spans = await json<MetricSeries>(await svc.api(`/api/analytics/timeseries?${range}&interval=1h&level=span&model=acme-llm`));
    expect(spans.overall.cost_usd).toBeCloseTo(3, 12);
  });
});

describe('recompute after a price change', () => {
  const reads = () => createCostReads(svc.clickhouse);
  const shipped = () => parsePriceFile(JSON.parse(fs.readFileSync(SHIPPED_PRICES_FILE, 'utf8')), 'shipped');
  const withMini = (v: string, input: number, output: number): PriceFile =>
    parsePriceFile({ version: v, providers: { openai: { models: { 'gpt-4o-mini': { input, output } } } } }, v);

  it('rewrites the spans whose cost changed with the new version, updates their traces, and reports the counts', async () => {
    const doubled = buildPriceTable(shipped(), withMini('double', 0.3, 1.2));
    const window = { from: new Date(WINDOW.from), to: new Date(WINDOW.to) };
    const first = await reads().recompute(svc.defaultProjectId, window.from, window.to, doubled);
    // cost-json: plan, answer, local; the OTLP trace: sonnet and acme-llm (not in this table).
    expect(first).toMatchObject({ version: doubled.version, spans_examined: 5, spans_changed: 3, spans_unpriced: 2, traces_updated: 2 });
    // Every priced span gets the new version; acme-llm loses its price (this table does not have it).
    expect(first.spans_rewritten).toBe(4);
    expect(first.unpriced_models.sort()).toEqual(['acme-llm', 'my-local-llama']);

    const t = await getTrace('cost-json');
    const plan = t.spans.find((s) => s.name === 'plan')!;
    // No cached price in this table: cached tokens at the input price.
    expect(plan.cost?.version).toBe(doubled.version);
    expect(plan.cost?.total).toBeCloseTo(usd(1000, 0.3) + usd(500, 1.2), 15);
    expect(t.total_cost).toBeCloseTo(usd(1000, 0.3) + usd(500, 1.2) + usd(3000, 0.3) + usd(100, 1.2), 15);

    // The same table again: nothing left to change.
    const again = await reads().recompute(svc.defaultProjectId, window.from, window.to, doubled);
    expect(again).toMatchObject({ spans_examined: 5, spans_changed: 0, spans_rewritten: 0 });

    // Back to the service's own table through the API: a lower price replaces the higher one.
    const back = await json<RecomputeResult>(await svc.api('/api/admin/recompute-costs', { method: 'POST', json: WINDOW }));
    expect(back).toMatchObject({ version, spans_changed: 3, spans_rewritten: 4, spans_examined: 5 });
    // The table in use, as the API shows it: the version the spans now carry, per-million prices.
    const table = await json<{ version: string; currency: string; models: Array<{ model: string; input: number }> }>(await svc.api('/api/admin/prices'));
    expect(table).toMatchObject({ version, currency: 'USD' });
    expect(table.models.length).toBeGreaterThan(10);
    expect((await getTrace('cost-json')).total_cost).toBeCloseTo(PLAN_COST + ANSWER_COST, 15);
    const otlp = await getTrace('c0570000000000000000000000000001');
    expect(otlp.spans.find((s) => s.span_id === '0000000000000a02')?.cost).toMatchObject({ total: 3, version });
    expect(otlp.unpriced_llm_call_count).toBe(0);
    // Each span is still read once.
    expect(otlp.spans).toHaveLength(2);
  });

  it('prices spans stored before costs existed', async () => {
    const start = T0 + 30 * 60_000;
    const legacy: SpanRecord = {
      project_id: svc.defaultProjectId,
      trace_id: 'cost-legacy',
      span_id: 'old-call',
      parent_span_id: null,
      name: 'old call',
      span_type: 'generation',
      component_type: 'generation',
      convention: 'spec',
      kind: '',
      status: 'ok',
      status_message: '',
      start_time: start,
      end_time: start + 10,
      duration_ms: 10,
      model: 'gpt-4o-mini',
      input: '',
      output: '',
      input_tokens: 2000,
      output_tokens: 1000,
      attributes: { 'gen_ai.usage.cache_read_input_tokens': '1000' },
      resource_attributes: {},
      scope_name: '',
      scope_version: '',
      events: '[]',
    };
    // Rows as a collector without prices wrote them: no cost columns, no cost state.
    await svc.clickhouse.insert({ table: 'agent_eval.spans', values: [spanRow(legacy)], format: 'JSONEachRow' });
    await svc.clickhouse.insert({
      table: 'agent_eval.trace_stats_input',
      values: encodeRowBatch([legacy]).stats.map((l) => JSON.parse(l) as object),
      format: 'JSONEachRow',
    });
    expect((await getTrace('cost-legacy')).total_cost).toBeNull();

    const r = await json<RecomputeResult>(await svc.api('/api/admin/recompute-costs', { method: 'POST', json: { from: start, to: start + 1 } }));
    expect(r).toMatchObject({ spans_examined: 1, spans_rewritten: 1, spans_changed: 1, traces_updated: 1 });
    const t = await getTrace('cost-legacy');
    // Cached tokens read from the attributes the old row kept.
    expect(t.spans[0]).toMatchObject({ cached_input_tokens: 1000, cost: { version } });
    expect(t.total_cost).toBeCloseTo(usd(1000, MINI.input) + usd(1000, MINI.cached) + usd(1000, MINI.output), 15);
  });

  it('needs projects:admin and a valid window', async () => {
    const { key } = await json<{ key: string }>(
      await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'member', role: 'member' } }),
      201,
    );
    const denied = await json<{ details: string }>(await svc.api('/api/admin/recompute-costs', { method: 'POST', key, json: WINDOW }), 403);
    expect(denied.details).toBe('missing permission projects:admin');
    const bad = await json<{ details: Array<{ field: string }> }>(
      await svc.api('/api/admin/recompute-costs', { method: 'POST', json: { from: WINDOW.to, to: WINDOW.from } }),
      422,
    );
    expect(bad.details.map((d) => d.field)).toEqual(['to']);
    expect((await svc.api('/api/admin/recompute-costs', { method: 'POST', json: { from: 'yesterday' } })).status).toBe(422);
  });

  it('lists the table in force', async () => {
    const prices = await json<{ version: string; models: Array<{ model: string; input: number }> }>(await svc.api('/api/admin/prices'));
    expect(prices.version).toBe(version);
    expect(prices.models.find((m) => m.model === 'acme-llm')).toMatchObject({ input: 1 });
  });
});

describe('run cost', () => {
  it("sums the costs of the traces of a run's trials, the judges' calls apart", async () => {
    const start = T0 + 40 * 60_000;
    const [traceA, traceB] = ['c057a000000000000000000000000001', 'c057b000000000000000000000000002'];
    const call = (trace: string, id: string, model: string, input: number, output: number, attributes: Record<string, string> = {}) => ({
      span_id: id,
      parent_span_id: `${trace.slice(0, 12)}0000root`,
      name: 'call',
      type: 'generation',
      start_time: iso(start + 10),
      end_time: iso(start + 20),
      model,
      input_tokens: input,
      output_tokens: output,
      attributes,
    });
    const trace = (id: string, calls: Array<Record<string, unknown>>) => ({
      trace_id: id,
      name: 'eval: case',
      status: 'ok',
      duration_ms: 100,
      start_time: iso(start),
      spans: [{ span_id: `${id.slice(0, 12)}0000root`, name: 'eval case', type: 'span', start_time: iso(start), end_time: iso(start + 100) }, ...calls],
    });
    await json(
      await svc.api('/api/traces/ingest', {
        method: 'POST',
        json: trace(traceA, [
          call(traceA, 'a000000000000001', 'gpt-4o-mini', 1000, 500),
          call(traceA, 'a000000000000002', 'gpt-4o-mini', 2000, 100, { 'agent_eval.judge': 'helpfulness_judge' }),
        ]),
      }),
      201,
    );
    await json(await svc.api('/api/traces/ingest', { method: 'POST', json: trace(traceB, [call(traceB, 'b000000000000001', 'my-local-llama', 10, 10)]) }), 201);

    const run = await json<{ id: string }>(
      await svc.api('/api/runs', {
        method: 'POST',
        json: { execution: 'local', agentId: 'cost-agent', dataset: { items: [{ input: 'a' }, { input: 'b' }] }, scorers: ['contains'] },
      }),
      201,
    );
    const res = await svc.api(`/api/runs/${run.id}/results`, {
      method: 'POST',
      json: {
        results: [
          { case_index: 0, details: { contains: { score: 1 } }, duration_ms: 100, trace_id: traceA },
          { case_index: 1, details: { contains: { score: 1 } }, duration_ms: 100, trace_id: traceB },
        ],
      },
    });
    expect(res.ok, await res.clone().text()).toBe(true);

    const agentUsd = usd(1000, MINI.input) + usd(500, MINI.output);
    const judgeUsd = usd(2000, MINI.input) + usd(100, MINI.output);
    const view = await json<{ cost: RunCost }>(await svc.api(`/api/runs/${run.id}`));
    expect(view.cost).toMatchObject({ unpriced_llm_calls: 1, traces: 2 });
    expect(view.cost.total_usd).toBeCloseTo(agentUsd + judgeUsd, 15);
    expect(view.cost.judges_usd).toBeCloseTo(judgeUsd, 15);
    // The first family reads the same run.
    expect((await json<{ cost: RunCost }>(await svc.api(`/api/evals/runs/${run.id}`))).cost.total_usd).toBeCloseTo(agentUsd + judgeUsd, 15);

    const { results } = await json<{ results: Array<{ case_index: number; cost: TraceCost }> }>(await svc.api(`/api/runs/${run.id}/results`));
    const byCase = new Map(results.map((r) => [r.case_index, r.cost]));
    expect(byCase.get(0)?.total_usd).toBeCloseTo(agentUsd + judgeUsd, 15);
    expect(byCase.get(0)?.judges_usd).toBeCloseTo(judgeUsd, 15);
    expect(byCase.get(1)).toEqual({ total_usd: 0, judges_usd: 0, unpriced_llm_calls: 1 });
  });
});
