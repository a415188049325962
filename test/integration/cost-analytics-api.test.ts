import { describe, expect, it } from 'vitest';
import type { CostBreakdown } from '../../core/model/cost-analytics.js';
import type { TraceList } from '../../core/model/trace.js';
import { caseTraceBody, caseTraceId } from '../../workflows/case-trace.js';
import { corpusTexts } from '../helpers/corpus.js';
import { ingestTrace, spanAt } from '../helpers/ingest-trace.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';

/**
 * GET /api/analytics/costs (issue 32, docs/api.md "Analytics"): what model calls cost by model,
 * prompt, user, session and evaluation run, per bucket, and the costliest traces and sessions,
 * over agent traces of corpus texts whose costs the store priced (read back from GET /api/traces:
 * the figures must add up to the same). Another project's calls never count; bad parameters are
 * 422s naming them.
 */
const svc = useTestApi({ AUTH_MODE: 'none' });
const PROJECT = 'cost-analytics';
const OTHER = 'cost-analytics-other';
const texts = corpusTexts();
const now = Date.now();

/** Six traces: models, users, sessions and prompts crossed; tokens grow so costs differ. */
const TRACES = [
  { id: 'ca-1', model: 'gpt-4o', user: 'ana', session: 's-1', prompt: ['support', '1'], tokens: 1_000 },
  { id: 'ca-2', model: 'gpt-4o', user: 'ana', session: 's-1', prompt: ['support', '2'], tokens: 50_000 },
  { id: 'ca-3', model: 'gpt-4o-mini', user: 'bo', session: 's-2', prompt: ['support', '2'], tokens: 9_000 },
  { id: 'ca-4', model: 'claude-sonnet-4', user: 'bo', session: 's-3', prompt: ['triage', '1'], tokens: 20_000 },
  { id: 'ca-5', model: 'claude-sonnet-4', user: 'cy', session: 's-3', prompt: ['triage', '1'], tokens: 3_000 },
  { id: 'ca-6', model: 'gpt-4o', user: 'cy', session: 's-4', prompt: ['support', '1'], tokens: 100_000 },
].map((t, i) => ({ ...t, start: now - 3_600_000 + i * 60_000, input: texts[i % texts.length], output: texts[(i + 2) % texts.length] }));
const RUN_ID = '0b6a3bd6-64a1-4a4e-9d3e-4f5f5b0e2a11';

function body(t: (typeof TRACES)[number]) {
  return ingestTrace(t.id, {
    name: `support ${t.id}`,
    start: t.start,
    durationMs: 2_000,
    attributes: { 'user.id': t.user, 'session.id': t.session },
    root: { span_id: `${t.id}-root`, name: 'agent.run', type: 'span', input: t.input, output: t.output },
    spans: [
      spanAt(t.start, 10, 1_500, {
        span_id: `${t.id}-llm`,
        parent_span_id: `${t.id}-root`,
        name: 'chat',
        type: 'generation',
        model: t.model,
        input_tokens: t.tokens,
        output_tokens: Math.round(t.tokens / 10),
        input: t.input,
        output: t.output,
        attributes: { 'agent_eval.prompt.name': t.prompt[0], 'agent_eval.prompt.version': t.prompt[1] },
      }),
    ],
  });
}

async function costs(query: string, project = PROJECT): Promise<CostBreakdown> {
  return expectJson<CostBreakdown>(await svc.api(`/api/analytics/costs?${query}`, { project }), 200);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('cost analytics', () => {
  let costOf: Map<string, number>;
  /** The evaluation case trace's session, as the run workflow names it. */
  let evalSession: string;

  it('ingests priced agent traces (and another project that never counts)', async () => {
    for (const t of TRACES) {
      const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body(t), project: PROJECT });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    expect((await svc.api('/api/traces/ingest', { method: 'POST', json: body({ ...TRACES[0], id: 'other-1' }), project: OTHER })).status).toBe(201);
    // An evaluation run's case trace: a model call of its own.
    const key = { runId: RUN_ID, caseIndex: 0, trial: 0 };
    const evalTrace = caseTraceBody({
      key,
      caseName: 'case 0',
      agent: { id: 'agent-1', name: 'support-bot', version: 'v1' },
      input: { question: texts[0] },
      startedAt: now - 1_800_000,
      endedAt: now - 1_799_000,
      calls: [],
      details: {},
      avgScore: 1,
      status: 'passed',
    }) as { spans: Array<Record<string, unknown>> };
    evalTrace.spans.push(
      spanAt(now - 1_800_000, 5, 500, {
        span_id: 'eval-llm',
        parent_span_id: evalTrace.spans[0].span_id,
        name: 'chat',
        type: 'generation',
        model: 'gpt-4o',
        input_tokens: 7_000,
        output_tokens: 700,
      }),
    );
    expect((await svc.api('/api/traces/ingest', { method: 'POST', json: evalTrace, project: PROJECT })).status).toBe(201);
    const list = await expectJson<TraceList>(await svc.api('/api/traces?limit=50', { project: PROJECT }), 200);
    costOf = new Map(list.traces.map((t) => [t.trace_id, t.total_cost ?? 0]));
    evalSession = list.traces.find((t) => t.trace_id === caseTraceId(key))?.session_id ?? '';
    expect(costOf.size).toBe(TRACES.length + 1);
    expect([...costOf.values()].every((c) => c > 0)).toBe(true);
    expect(costOf.has(caseTraceId(key))).toBe(true);
  });

  it('sums cost by model, prompt, user and session as the traces are priced', async () => {
    const expectGroups = (c: CostBreakdown, keyOf: (t: (typeof TRACES)[number]) => string, evalKey: string) => {
      const want = new Map<string, number>();
      for (const t of TRACES) want.set(keyOf(t), (want.get(keyOf(t)) ?? 0) + costOf.get(t.id)!);
      want.set(evalKey, (want.get(evalKey) ?? 0) + costOf.get(caseTraceId({ runId: RUN_ID, caseIndex: 0, trial: 0 }))!);
      const got = new Map(c.groups.map((g) => [g.key, g.total_cost_usd]));
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [k, v] of want) expect(got.get(k), `${c.group_by} ${k}`).toBeCloseTo(v, 10);
      // Costliest first, and the buckets add up to each total.
      expect(c.groups.map((g) => g.total_cost_usd)).toEqual([...c.groups.map((g) => g.total_cost_usd)].sort((a, b) => b - a));
      for (const g of c.groups) expect(sum(g.cost_usd)).toBeCloseTo(g.total_cost_usd, 10);
      expect(c.total.cost_usd).toBeCloseTo(sum([...costOf.values()]), 10);
      expect(c.total.traces).toBe(TRACES.length + 1);
    };
    expectGroups(await costs('range=24h&group_by=model'), (t) => t.model, 'gpt-4o');
    expectGroups(await costs('range=24h&group_by=prompt'), (t) => `${t.prompt[0]} v${t.prompt[1]}`, '');
    expectGroups(await costs('range=24h&group_by=user'), (t) => t.user, '');
    expectGroups(await costs('range=24h&group_by=session'), (t) => t.session, evalSession);
    const bySuite = await costs('range=24h&group_by=suite');
    expect(bySuite.groups.find((g) => g.key === RUN_ID)?.total_cost_usd).toBeCloseTo(costOf.get(caseTraceId({ runId: RUN_ID, caseIndex: 0, trial: 0 }))!, 10);
    // The run is not in this project's runs: no suite to name it by.
    expect(bySuite.groups.find((g) => g.key === RUN_ID)?.label).toBeNull();
    const byAgent = await costs('range=24h&group_by=agent');
    expect(byAgent.total.cost_usd).toBeCloseTo(sum([...costOf.values()]), 10);
  });

  it('lists the costliest traces and sessions, most expensive first', async () => {
    const c = await costs('range=7d&interval=1d');
    const ranked = [...costOf.entries()].sort((a, b) => b[1] - a[1]);
    expect(c.top_traces.map((t) => t.trace_id)).toEqual(ranked.map(([id]) => id));
    expect(c.top_traces[0]).toMatchObject({ trace_id: 'ca-6', name: 'support ca-6' });
    for (const t of c.top_traces) {
      expect(t.cost_usd).toBeCloseTo(costOf.get(t.trace_id)!, 10);
      expect(t.tokens).toBeGreaterThan(0);
    }
    const bySession = new Map<string, number>();
    for (const t of TRACES) bySession.set(t.session, (bySession.get(t.session) ?? 0) + costOf.get(t.id)!);
    expect(c.top_sessions[0].session_id).toBe('s-4');
    for (const s of c.top_sessions.filter((x) => bySession.has(x.session_id))) expect(s.cost_usd).toBeCloseTo(bySession.get(s.session_id)!, 10);
    // Most expensive first; each session with the number of its traces that started in the window.
    expect(c.top_sessions.map((s) => s.cost_usd)).toEqual([...c.top_sessions.map((s) => s.cost_usd)].sort((a, b) => b - a));
    for (const id of bySession.keys()) {
      expect(c.top_sessions.find((s) => s.session_id === id)?.traces).toBe(TRACES.filter((t) => t.session === id).length);
    }
    expect(c.buckets).toHaveLength(c.groups[0].cost_usd.length);
  });

  it('counts a trace that called two models once in the total, and once in each model', async () => {
    const project = 'cost-analytics-two-models';
    const start = now - 600_000;
    const call = (id: string, model: string, offset: number) =>
      spanAt(start, offset, 500, {
        span_id: id,
        parent_span_id: 'tm-root',
        name: 'chat',
        type: 'generation',
        model,
        input_tokens: 2_000,
        output_tokens: 300,
        input: texts[1],
        output: texts[2],
      });
    const json = ingestTrace('tm-1', {
      name: 'two models',
      start,
      durationMs: 2_000,
      root: { span_id: 'tm-root', name: 'agent.run', type: 'span', input: texts[0], output: texts[3] },
      spans: [call('tm-a', 'gpt-4o', 10), call('tm-b', 'gpt-4o-mini', 700)],
    });
    expect((await svc.api('/api/traces/ingest', { method: 'POST', json, project })).status).toBe(201);
    const c = await costs('range=24h&group_by=model', project);
    expect(c.groups.map((g) => [g.key, g.traces]).sort()).toEqual([
      ['gpt-4o', 1],
      ['gpt-4o-mini', 1],
    ]);
    expect(c.total.traces).toBe(1);
    expect(c.top_traces.map((t) => [t.trace_id, t.tokens])).toEqual([['tm-1', 4_600]]);
    expect(c.top_traces[0].cost_usd).toBeCloseTo(c.total.cost_usd, 10);
  });

  it('keeps projects apart and answers bad parameters with 422 naming them', async () => {
    const other = await costs('range=24h', OTHER);
    expect(other.total.traces).toBe(1);
    expect(other.top_traces.map((t) => t.trace_id)).toEqual(['other-1']);
    for (const [q, field] of [
      ['group_by=color', 'group_by'],
      ['range=24h&start_time=2026-01-01T00:00:00Z', 'range'],
      ['start_time=2026-02-30T00:00:00Z', 'start_time'],
      ['range=90d&interval=1m', 'interval'],
      ['group_by=%00', 'group_by'],
    ]) {
      const res = await svc.api(`/api/analytics/costs?${q}`, { project: PROJECT });
      expect(res.status, q).toBe(422);
      expect(JSON.stringify(await res.json()), q).toContain(field);
    }
  });
});
