import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnlineEvaluationList, OnlineRule } from '../../core/model/online-rule.js';
import { isSampled } from '../../core/online/sampling.js';
import type { Score } from '../../core/model/score.js';
import type { TraceDetail } from '../../core/model/trace.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { extraOnlineEvaluators } from '../helpers/online-evaluators.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { onlineRulesApi } from '../helpers/online-rules-api.js';
import { expectJson } from '../helpers/test-service-hooks.js';

// The real service (chDB, embedded PostgreSQL, its worker's online evaluator ticking every 100 ms)
// and a local OpenAI stand-in for the judges. Each test has its own project, so rules never see
// another test's traces.

let svc: TestService;
let openai: FakeProvider;
let extraMetadata: MetadataStore | undefined;

beforeAll(async () => {
  openai = await startFakeProvider('openai');
  openai.setDefault((req) =>
    JSON.stringify(req.body).includes('FAIL-ME')
      ? { status: 400, message: 'this judge is refused' }
      : { verdict: { score: 0.75, reason: 'helpful enough', evidence: ['the answer'] } },
  );
  svc = await startTestService({ ...fakeProviderEnv({ openai }), ONLINE_EVAL_TICK_MS: '100', ONLINE_EVAL_LEASE_MS: '10000' });
});

afterAll(async () => {
  await extraMetadata?.close();
  await svc?.stop();
  await openai?.close();
});

interface TraceOpts {
  name?: string;
  status?: 'ok' | 'error';
  attributes?: Record<string, string>;
  /** When the trace ended, in ms before now (default 200 ms: traces reach the store as they end). */
  endedAgoMs?: number;
  output?: string;
  retrieval?: boolean;
}

/** A JSON ingest body: a root span with an input and an output, and optionally a retrieval span. */
function prodTrace(traceId: string, o: TraceOpts = {}) {
  const end = Date.now() - (o.endedAgoMs ?? 200);
  const start = end - 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const spans: Array<Record<string, unknown>> = [
    {
      span_id: `${traceId}-root`,
      name: 'agent',
      type: 'span',
      start_time: iso(start),
      end_time: iso(end),
      input: 'what is the status?',
      output: o.output ?? 'the answer is ok',
      ...(o.status === 'error' ? { status: 'error' } : {}),
    },
  ];
  if (o.retrieval)
    spans.push({
      span_id: `${traceId}-docs`,
      parent_span_id: `${traceId}-root`,
      name: 'search docs',
      type: 'retrieval',
      start_time: iso(start + 10),
      end_time: iso(start + 20),
      output: 'doc',
    });
  return {
    trace_id: traceId,
    name: o.name ?? 'agent-run',
    status: o.status ?? 'ok',
    duration_ms: 1000,
    start_time: iso(start),
    attributes: o.attributes ?? {},
    spans,
  };
}

function client(project: string) {
  return {
    ...onlineRulesApi(svc, project),
    evaluations: async (id: string) =>
      expectJson<OnlineEvaluationList>(await svc.api(`/api/evals/online-rules/${id}/evaluations?limit=1000`, { project }), 200),
    scores: async (traceId: string) =>
      (await expectJson<{ scores: Score[] }>(await svc.api(`/api/scores?trace_id=${encodeURIComponent(traceId)}`, { project }), 200)).scores,
  };
}

async function newProject(): Promise<ReturnType<typeof client>> {
  const project = `online-${randomUUID().slice(0, 8)}`;
  await svc.keyFor(project);
  return client(project);
}

/** Every stored row of a rule's scores, per trace: how many rows and how many distinct score ids. */
async function storedScores(project: string, ruleId: string): Promise<Map<string, { rows: number; ids: number; value: number }>> {
  const rs = await svc.clickhouse.query({
    query: `SELECT trace_id, count() AS rows, uniqExact(score_id) AS ids, any(value) AS value FROM agent_eval.scores
            WHERE project_id = {project:String} AND attributes['agent_eval.online_rule_id'] = {rule:String} GROUP BY trace_id`,
    query_params: { project, rule: ruleId },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ trace_id: string; rows: string; ids: string; value: number }>();
  return new Map(rows.map((r) => [r.trace_id, { rows: Number(r.rows), ids: Number(r.ids), value: Number(r.value) }]));
}

const since = () => new Date(Date.now() - 3600_000).toISOString();

/** Sent 25 at a time. */
async function ingestAll(c: ReturnType<typeof client>, bodies: Array<() => unknown>): Promise<void> {
  for (let i = 0; i < bodies.length; i += 25) await Promise.all(bodies.slice(i, i + 25).map((b) => c.ingest(b())));
}

/**
 * Rules wait this long after a trace's last write (on top of the store's allowance for writes in
 * flight, INSERT_SETTLE_MS). The traces of the tests using it are each one write, so it need not
 * be long; the delay's own test ('waits delay_seconds ...') sends a late span with a delay of its own.
 */
const DELAY = 1;
const OK = { outputContains: ['ok'] };

/** A span of type span from `startMs` to `endMs` (epoch milliseconds), as POST /api/traces/ingest and /api/spans take it. */
const plainSpan = (span_id: string, name: string, startMs: number, endMs: number, more: Record<string, unknown> = {}) => ({
  span_id,
  name,
  type: 'span',
  start_time: new Date(startMs).toISOString(),
  end_time: new Date(endMs).toISOString(),
  ...more,
});

describe('an online rule', () => {
  it('scores the traces its deterministic sample takes, each exactly once, at the configured rate', async () => {
    const c = await newProject();
    const rule = await c.create({
      name: 'half',
      filter: { trace_name: 'sampled-' },
      sample_rate: 0.5,
      scorers: ['contains'],
      expected: OK,
      delay_seconds: DELAY,
      since: since(),
    });
    expect(rule).toMatchObject({
      name: 'half',
      sample_rate: 0.5,
      delay_seconds: DELAY,
      enabled: true,
      stats: { scored: 0, skipped_by_sampling: 0, errors: 0, pending: 0 },
    });
    const n = 200;
    const ids = Array.from({ length: n }, (_, i) => `sampled-${i}-${randomUUID().slice(0, 8)}`);
    await ingestAll(c, [
      ...ids.map((id) => () => prodTrace(id, { name: id })),
      ...Array.from({ length: 20 }, (_, i) => () => prodTrace(`other-${i}-${randomUUID()}`, { name: 'something else' })),
    ]);

    const done = await eventually(async () => {
      const r = await c.rule(rule.id);
      expect(r.stats.scored + r.stats.skipped_by_sampling).toBe(n);
      expect(r.stats.pending).toBe(0);
      return r;
    }, 60_000);

    const expected = ids.filter((id) => isSampled(rule.id, id, 0.5));
    // The count is the decision function's, and that is within the binomial expectation (4 sd).
    expect(Math.abs(expected.length - n / 2)).toBeLessThan(4 * Math.sqrt(n * 0.25));
    expect(done.stats).toMatchObject({ scored: expected.length, skipped_by_sampling: n - expected.length, errors: 0, lag_seconds: 0 });
    expect(done.stats.last_scored_at).not.toBeNull();

    const stored = await storedScores(c.project, rule.id);
    expect([...stored.keys()].sort()).toEqual([...expected].sort());
    for (const [traceId, s] of stored) expect(s, traceId).toEqual({ rows: 1, ids: 1, value: 1 });

    const evaluations = await c.evaluations(rule.id);
    expect(evaluations.total).toBe(expected.length);
    expect(evaluations.evaluations.every((e) => e.status === 'done' && e.attempts === 1)).toBe(true);

    const [score] = await c.scores(expected[0]);
    expect(score).toMatchObject({
      trace_id: expected[0],
      name: 'contains',
      scorer_name: 'contains',
      source: 'eval',
      value: 1,
      attributes: { 'agent_eval.online_rule_id': rule.id, 'agent_eval.online_rule': 'half' },
    });
    expect(evaluations.evaluations.find((e) => e.trace_id === expected[0])?.scores).toEqual({
      contains: { score_id: score.id, value: 1, reason: score.reason },
    });

    // Later scans find nothing new: nobody is scored twice.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await c.rule(rule.id)).stats).toMatchObject({ scored: expected.length, skipped_by_sampling: n - expected.length });
    expect([...(await storedScores(c.project, rule.id)).values()].every((s) => s.rows === 1)).toBe(true);
  });

  it('scores only the traces its filter matches: name, attributes, component type, status', async () => {
    const c = await newProject();
    const rules = {
      name: await c.create({ name: 'by name', filter: { trace_name: 'CHECKOUT' }, scorers: ['contains'], expected: OK, delay_seconds: DELAY, since: since() }),
      attributes: await c.create({
        name: 'by attributes',
        filter: { attributes: { env: 'prod' } },
        scorers: ['contains'],
        expected: OK,
        delay_seconds: DELAY,
        since: since(),
      }),
      component: await c.create({
        name: 'by component',
        filter: { component_type: 'retrieval' },
        scorers: ['contains'],
        expected: OK,
        delay_seconds: DELAY,
        since: since(),
      }),
      status: await c.create({ name: 'by status', filter: { status: 'error' }, scorers: ['contains'], expected: OK, delay_seconds: DELAY, since: since() }),
      all: await c.create({
        name: 'all of them',
        filter: { trace_name: 'search', status: 'error', attributes: { env: 'prod', team: 'a' }, component_type: 'retrieval' },
        scorers: ['contains'],
        expected: OK,
        delay_seconds: DELAY,
        since: since(),
      }),
    };
    const t = (k: string) => `filters-${k}-${c.project}`;
    await ingestAll(c, [
      () => prodTrace(t('a'), { name: 'shop checkout', attributes: { env: 'prod' }, retrieval: true }),
      () => prodTrace(t('b'), { name: 'shop checkout', attributes: { env: 'staging' }, status: 'error' }),
      () => prodTrace(t('c'), { name: 'doc search', attributes: { env: 'prod', team: 'a' }, status: 'error', retrieval: true }),
      () => prodTrace(t('d'), { name: 'doc search' }),
      () => prodTrace(t('e'), { name: 'doc search', attributes: { env: 'prod', team: 'b' }, status: 'error', retrieval: true }),
    ]);
    const want = { name: ['a', 'b'], attributes: ['a', 'c', 'e'], component: ['a', 'c', 'e'], status: ['b', 'c', 'e'], all: ['c'] };
    for (const [key, rule] of Object.entries(rules)) {
      await eventually(async () => {
        const r = await c.rule(rule.id);
        expect(r.stats.scored, key).toBe(want[key as keyof typeof want].length);
        expect(r.stats.pending).toBe(0);
      });
      expect([...(await storedScores(c.project, rule.id)).keys()].sort(), key).toEqual(want[key as keyof typeof want].map(t).sort());
    }
  });

  it('waits delay_seconds after a trace ends, so a late span is in what it scores', async () => {
    const c = await newProject();
    const rule = await c.create({ name: 'patient', scorers: ['contains'], expected: { outputContains: ['late answer'] }, delay_seconds: 4, since: since() });
    const id = `late-${c.project}`;
    const end = Date.now();
    await c.ingest({
      trace_id: id,
      name: 'slow agent',
      status: 'ok',
      duration_ms: 500,
      start_time: new Date(end - 500).toISOString(),
      spans: [plainSpan('root', 'agent', end - 500, end, { input: 'question' })],
    });
    await new Promise((r) => setTimeout(r, 1500));
    // The final answer arrives as a late span of the same trace.
    await expectJson(
      await svc.api('/api/spans', {
        method: 'POST',
        project: c.project,
        json: {
          trace_id: id,
          spans: [plainSpan('answer', 'final', end - 100, end, { parent_span_id: 'root', output: 'the late answer' })],
        },
      }),
      201,
    );
    expect((await c.evaluations(rule.id)).total).toBe(0);
    const evaluation = await eventually(async () => {
      const [e] = (await c.evaluations(rule.id)).evaluations;
      expect(e?.status).toBe('done');
      return e;
    }, 30_000);
    expect(Date.parse(evaluation.created_at) - end).toBeGreaterThanOrEqual(4000);
    expect(evaluation.scores?.contains.value).toBe(1);
  });

  it('runs LLM judges: the score links to the judge trace, which holds the calls and is never scored itself', async () => {
    const c = await newProject();
    const before = openai.requests.length;
    const rule = await c.create({ name: 'helpful', scorers: ['helpfulness_judge'], delay_seconds: DELAY, since: since() });
    const failing = await c.create({
      name: 'refused judge',
      scorers: [{ name: 'llmJudge', config: { prompt: 'FAIL-ME: is {{output}} polite?' } }],
      delay_seconds: DELAY,
      since: since(),
    });
    const ids = [0, 1, 2].map((i) => `judged-${i}-${c.project}`);
    await ingestAll(
      c,
      ids.map((id) => () => prodTrace(id)),
    );
    const done = await eventually(async () => {
      const r = await c.rule(rule.id);
      expect(r.stats.scored).toBe(3);
      expect((await c.rule(failing.id)).stats.scored).toBe(3);
      return r;
    }, 60_000);
    expect(done.stats).toMatchObject({ errors: 0, judge_tokens: 3 * 150 });
    // The default judge model is in the shipped price table: every call is priced.
    expect(done.stats.cost_usd).toBeGreaterThan(0);
    expect((await c.evaluations(rule.id)).evaluations.every((e) => (e.cost_usd ?? 0) > 0)).toBe(true);

    const [score] = await c.scores(ids[0]).then((all) => all.filter((s) => s.name === 'helpfulness_judge'));
    expect(score).toMatchObject({ source: 'eval', value: 0.75, reason: 'helpful enough', evidence: ['the answer'] });
    const judgeTraceId = score.attributes?.['agent_eval.judge_trace_id'];
    expect(judgeTraceId).toMatch(/^[0-9a-f]{32}$/);
    const judgeTrace = await eventually(async () => expectJson<TraceDetail>(await svc.api(`/api/traces/${judgeTraceId}`, { project: c.project }), 200));
    expect(judgeTrace.attributes).toMatchObject({
      'agent_eval.online_rule_id': rule.id,
      'agent_eval.scored_trace_id': ids[0],
      'agent_eval.score_id': score.id,
    });
    const calls = judgeTrace.spans.filter((s) => s.type === 'generation');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ model: expect.any(String) as string, input_tokens: 120, output_tokens: 30 });
    expect(JSON.parse(calls[0].input)).toMatchObject({ messages: [{ role: 'user' }] });
    expect(Number(calls[0].attributes['agent_eval.cost_usd'])).toBeGreaterThan(0);

    // The refused judge scores 0 with the provider's error, counted as an error.
    const refused = (await c.scores(ids[0])).find((s) => s.name === 'llmJudge');
    expect(refused).toMatchObject({ value: 0, reason: expect.stringMatching(/^scorer error: .*400/) as string });
    expect((await c.rule(failing.id)).stats.errors).toBe(3);

    // Six judgings, each one call; the judges' own traces were never scored by either rule.
    await new Promise((r) => setTimeout(r, 1500));
    expect(openai.requests.length - before).toBe(6);
    expect((await c.evaluations(rule.id)).evaluations.map((e) => e.trace_id).sort()).toEqual([...ids].sort());
    expect((await c.rule(rule.id)).stats.scored).toBe(3);
  });

  it('takes the traces that ended at or after since', async () => {
    const c = await newProject();
    const t = Date.now() - 2000;
    const at = (id: string, endMs: number) => ({ ...prodTrace(id), duration_ms: 0, start_time: new Date(endMs).toISOString(), spans: [] });
    await c.ingest(at(`before-${c.project}`, t - 1));
    await c.ingest(at(`at-${c.project}`, t));
    const rule = await c.create({ name: 'since', scorers: ['contains'], expected: OK, delay_seconds: 0, since: new Date(t).toISOString() });
    expect(rule.since).toBe(new Date(t).toISOString());
    await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0 }));
    expect([...(await storedScores(c.project, rule.id)).keys()]).toEqual([`at-${c.project}`]);
  });

  it('scores a trace that reaches the store long after it ended (by when it was stored, not when it ended)', async () => {
    const c = await newProject();
    const endedAgoMs = 2 * 3600_000;
    const rule = await c.create({
      name: 'held back',
      scorers: ['contains'],
      expected: OK,
      delay_seconds: 0,
      since: new Date(Date.now() - 86_400_000).toISOString(),
    });
    // The rule has scanned past the trace's end before the trace is stored at all.
    await eventually(async () => expect(Date.parse((await c.rule(rule.id)).stats.watermark)).toBeGreaterThan(Date.now() - endedAgoMs / 2));
    const id = `held-back-${c.project}`;
    await c.ingest(prodTrace(id, { endedAgoMs }));
    await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 1, pending: 0 }));
    const [evaluation] = (await c.evaluations(rule.id)).evaluations;
    expect(evaluation).toMatchObject({ trace_id: id, status: 'done' });
    expect(Date.now() - Date.parse(evaluation.trace_end)).toBeGreaterThan(endedAgoMs);
    expect([...(await storedScores(c.project, rule.id)).keys()]).toEqual([id]);
  });

  it('does not present traces to the rules again when their costs are recomputed', async () => {
    const c = await newProject();
    const rule = await c.create({ name: 'none sampled', sample_rate: 0, scorers: ['contains'], expected: OK, delay_seconds: 0, since: since() });
    const body = prodTrace(`repriced-${c.project}`);
    const root = body.spans[0];
    body.spans.push({
      span_id: `${body.trace_id}-llm`,
      parent_span_id: root.span_id,
      name: 'chat',
      type: 'generation',
      model: 'gpt-4o',
      start_time: root.start_time,
      end_time: root.end_time,
      input_tokens: 1000,
      output_tokens: 100,
    });
    await c.ingest(body);
    await eventually(async () => expect((await c.rule(rule.id)).stats.skipped_by_sampling).toBe(1));
    const from = new Date(Date.now() - 3600_000).toISOString();
    const report = await expectJson<{ traces_updated: number }>(
      await svc.api('/api/admin/recompute-costs', { method: 'POST', project: c.project, json: { from, to: new Date(Date.now() + 60_000).toISOString() } }),
      200,
    );
    expect(report.traces_updated).toBe(1);
    // A scan has since covered everything stored up to the recompute: the trace was not decided a second time.
    const repricedAt = Date.now();
    await eventually(async () => expect(Date.parse((await c.rule(rule.id)).stats.watermark)).toBeGreaterThan(repricedAt), 30_000);
    const after = (await c.rule(rule.id)).stats;
    expect(after).toMatchObject({ skipped_by_sampling: 1, scored: 0, pending: 0 });
  });

  it('is paused while disabled and catches up when enabled again', async () => {
    const c = await newProject();
    const rule = await c.create({ name: 'paused', scorers: ['contains'], expected: OK, delay_seconds: 1, since: since(), enabled: false });
    await c.ingest(prodTrace(`paused-${c.project}`));
    await new Promise((r) => setTimeout(r, 2500));
    expect((await c.rule(rule.id)).stats).toMatchObject({ scored: 0, pending: 0, lag_seconds: 0, last_scan_at: null });
    const enabled = await expectJson<OnlineRule>(
      await svc.api(`/api/evals/online-rules/${rule.id}`, { method: 'PATCH', project: c.project, json: { enabled: true } }),
      200,
    );
    expect(enabled.enabled).toBe(true);
    await eventually(async () => expect((await c.rule(rule.id)).stats.scored).toBe(1));
  });
});

describe('two evaluators on the same stores', () => {
  it('still score each trace once', async () => {
    const c = await newProject();
    extraMetadata = openServiceMetadata(svc.dataDir);
    // Three more evaluators beside the service's own, racing for the same rule's work.
    const evaluators = extraOnlineEvaluators(svc, extraMetadata, 3, 40);
    const n = 300;
    const ids = Array.from({ length: n }, (_, i) => `race-${i}-${c.project}`);
    await ingestAll(
      c,
      ids.map((id) => () => prodTrace(id)),
    );
    const rule = await c.create({
      name: 'raced',
      scorers: ['contains', { name: 'regex', config: {} }],
      expected: { ...OK, regex: ['answer'] },
      delay_seconds: 0,
      since: since(),
    });
    let stop = false;
    const racing = evaluators.map(async (e) => {
      while (!stop) {
        await e.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    try {
      await eventually(async () => expect((await c.rule(rule.id)).stats).toMatchObject({ scored: n, pending: 0 }), 90_000);
    } finally {
      stop = true;
      await Promise.all(racing);
      await Promise.all(evaluators.map((e) => e.close()));
    }
    const stored = await storedScores(c.project, rule.id);
    expect(stored.size).toBe(n);
    for (const [traceId, s] of stored) expect(s, traceId).toEqual({ rows: 2, ids: 2, value: 1 });
    const evaluations = await c.evaluations(rule.id);
    expect(evaluations.total).toBe(n);
    expect(evaluations.evaluations.filter((e) => e.attempts !== 1)).toEqual([]);
  });
});

describe('the online rules API', () => {
  it('checks scorers as suites do: unknown is a 422, a judge without its provider a 400', async () => {
    const c = await newProject();
    const unknown = await svc.api('/api/evals/online-rules', {
      method: 'POST',
      project: c.project,
      json: { name: 'r', scorers: ['contains', 'no_such_scorer'] },
    });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({
      error: 'Validation error',
      code: 'VALIDATION_ERROR',
      message: 'Field validation failed',
      details: [{ field: 'scorers[1]', message: expect.stringContaining("unknown scorer 'no_such_scorer'") as string }],
    });
    const noProvider = await svc.api('/api/evals/online-rules', {
      method: 'POST',
      project: c.project,
      json: { name: 'r', scorers: [{ name: 'safety_judge', config: { provider: 'anthropic' } }] },
    });
    expect(noProvider.status).toBe(400);
    expect(await noProvider.json()).toMatchObject({
      error: expect.stringContaining("asks for the LLM provider 'anthropic', which is not configured") as string,
      code: 'SCORER_UNAVAILABLE',
    });
    const badPrompt = await svc.api('/api/evals/online-rules', { method: 'POST', project: c.project, json: { name: 'r', scorers: ['llmJudge'] } });
    expect(badPrompt.status).toBe(422);
    expect(JSON.stringify(await badPrompt.json())).toContain('llmJudge requires a prompt string');
    const bad = await svc.api('/api/evals/online-rules', {
      method: 'POST',
      project: c.project,
      json: { name: '', scorers: 'contains', sample_rate: 2, extra: 1 },
    });
    expect(bad.status).toBe(422);
  });

  it('creates, lists, reads, edits and deletes; other projects see 404; viewers cannot write', async () => {
    const c = await newProject();
    const created = await c.create({
      name: 'crud',
      scorers: ['contains'],
      sample_rate: 0.25,
      filter: { status: 'error' },
      expected: { outputContains: ['x'] },
    });
    expect(created).toMatchObject({
      id: expect.any(String) as string,
      name: 'crud',
      sample_rate: 0.25,
      filter: { status: 'error' },
      scorers: [{ name: 'contains', config: {} }],
      delay_seconds: 60,
      enabled: true,
    });
    expect(Date.parse(created.since)).toBeLessThanOrEqual(Date.now());
    const list = await expectJson<{ rules: OnlineRule[]; total: number }>(await svc.api('/api/evals/online-rules', { project: c.project }), 200);
    expect(list).toMatchObject({ total: 1, rules: [{ id: created.id }] });
    const put = await expectJson<OnlineRule>(
      await svc.api(`/api/evals/online-rules/${created.id}`, { method: 'PUT', project: c.project, json: { ...created, sample_rate: 0.5, filter: null } }),
      200,
    );
    expect(put).toMatchObject({ sample_rate: 0.5, filter: {}, name: 'crud', since: created.since });

    const other = await newProject();
    expect((await svc.api(`/api/evals/online-rules/${created.id}`, { project: other.project })).status).toBe(404);
    expect((await svc.api(`/api/evals/online-rules/${created.id}/evaluations`, { project: other.project })).status).toBe(404);
    expect((await svc.api(`/api/evals/online-rules/${created.id}`, { method: 'DELETE', project: other.project })).status).toBe(404);
    expect((await svc.api('/api/evals/online-rules/not-a-uuid', { project: c.project })).status).toBe(404);

    const admin = await svc.keyFor(c.project);
    const viewer = await expectJson<{ key: string }>(
      await svc.api(`/api/projects/${c.project}/keys`, { method: 'POST', project: c.project, key: admin, json: { name: 'viewer', role: 'viewer' } }),
      201,
    );
    expect((await svc.api('/api/evals/online-rules', { project: c.project, key: viewer.key })).status).toBe(200);
    expect(
      (await svc.api('/api/evals/online-rules', { method: 'POST', project: c.project, key: viewer.key, json: { name: 'r', scorers: ['contains'] } })).status,
    ).toBe(403);

    expect((await svc.api(`/api/evals/online-rules/${created.id}`, { method: 'DELETE', project: c.project })).status).toBe(204);
    expect((await svc.api(`/api/evals/online-rules/${created.id}`, { project: c.project })).status).toBe(404);
  });

  it('reports throughput, errors, pending and lag per rule on /metrics', async () => {
    const c = await newProject();
    const rule = await c.create({ name: 'metered', scorers: ['contains'], expected: OK, delay_seconds: DELAY, since: since() });
    await c.ingest(prodTrace(`metered-${c.project}`));
    await eventually(async () => expect((await c.rule(rule.id)).stats.scored).toBe(1));
    // The project's admin key sees its own rules' series (docs/security.md, "Metrics").
    const text = await (await svc.api('/metrics', { project: c.project })).text();
    const labels = `{rule_id="${rule.id}",project_id="${c.project}"}`;
    expect(text).toContain(`agent_eval_online_eval_traces_scored_total${labels} 1`);
    expect(text).toContain(`agent_eval_online_eval_errors_total${labels} 0`);
    expect(text).toContain(`agent_eval_online_eval_pending${labels} 0`);
    expect(text).toContain(`agent_eval_online_eval_lag_seconds${labels} 0`);
    expect(text).toMatch(/^agent_eval_online_eval_stats_up 1$/m);
  });
});
