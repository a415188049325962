import { describe, expect, it } from 'vitest';
import type { ToolAnalytics, ToolStats } from '../../core/model/analytics.js';
import { ExpectedSchema } from '../../core/model/eval-case.js';
import type { TraceDetail } from '../../core/model/trace.js';
import { toolCallsScorer } from '../../core/scoring/trajectory/tool-calls.js';
import { TOOL_NAME_KEYS } from '../../core/scoring/trajectory/span-tree.js';
import { AgentEvalClient } from '../../sdk/index.js';
import { exportVia, recordTrace } from '../e2e/helpers/otel.js';
import { loadCorpus, toSpanSpecs, type CorpusJsonTrace, type CorpusOtelTrace } from '../helpers/corpus.js';
import { quantile } from '../helpers/dashboard-analytics.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';

/**
 * GET /api/analytics/tools (issue 29, docs/api.md "Analytics"): per tool, calls, errors and latency
 * of the tool spans of every convention (the corpus traces through the real OpenTelemetry SDK and
 * exporter into the API port, and the SPEC's JSON body), and the argument-mismatch rate of the
 * `toolCalls` scores, written as the real scorer reasons over the stored traces. The expected
 * numbers are worked out here from the corpus definitions; another project's tool calls and
 * scores never count.
 */
// Without credentials: OTLP exporters send no key (what is under test is the read, not the keys: auth.test.ts).
const svc = useTestApi({ AUTH_MODE: 'none' });
const OTHER = 'tool-analytics-other';
const corpus = loadCorpus();
const OTEL = corpus.otel.filter((t) => ['genai', 'openinference', 'openllmetry', 'vercel-ai'].includes(t.name));
const SPEC = corpus.json.find((t) => t.name === 'spec')!;
/** Trace id of each corpus trace as stored, by its short name. */
const traceIds = new Map<string, string>();

interface Call {
  tool: string;
  failed: boolean;
  ms: number;
  trace: string;
}

/** The tool calls of a corpus trace, read from its definition as docs/api.md defines them. */
function otelCalls(t: CorpusOtelTrace): Call[] {
  return t.spans
    .filter((s) => s.expect.type === 'tool' || s.expect.component_type === 'tool')
    .map((s) => ({
      tool: TOOL_NAME_KEYS.map((k) => s.attributes[k]).find((v): v is string => typeof v === 'string' && v !== '') ?? s.name,
      failed: s.expect.status === 'error' || s.attributes.tool_status === 'error',
      ms: s.end - s.start,
      trace: t.name,
    }));
}
function jsonCalls(t: CorpusJsonTrace): Call[] {
  return t.body.spans
    .filter((s) => t.expect[s.span_id].type === 'tool' || t.expect[s.span_id].component_type === 'tool')
    .map((s) => ({
      tool: TOOL_NAME_KEYS.map((k) => s.attributes[k]).find((v): v is string => typeof v === 'string' && v !== '') ?? s.name,
      failed: t.expect[s.span_id].status === 'error' || s.attributes.tool_status === 'error',
      ms: Date.parse(s.end_time) - Date.parse(s.start_time),
      trace: t.name,
    }));
}
const CALLS = [...OTEL.flatMap(otelCalls), ...jsonCalls(SPEC)];

async function ingestCorpus(project: string): Promise<void> {
  for (const t of OTEL) {
    const rec = await recordTrace(t.resource, toSpanSpecs(t));
    await exportVia('http/protobuf', svc.apiUrl!, project, rec.spans);
    if (project === svc.defaultProjectId) traceIds.set(t.name, rec.traceId);
  }
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: SPEC.body, project });
  expect(res.status, await res.clone().text()).toBe(201);
  traceIds.set('spec', SPEC.body.trace_id);
}

/** Runs the real toolCalls scorer over the stored trace and stores its result as a run's score. */
async function scoreToolCalls(trace: string, config: Record<string, unknown>, project = svc.defaultProjectId): Promise<{ score: number; reason: string }> {
  const traceId = traceIds.get(trace)!;
  const detail = await expectJson<TraceDetail>(await svc.api(`/api/traces/${traceId}`, { project }), 200);
  const result = await toolCallsScorer.evaluate({
    input: 'plan a trip',
    output: '',
    expected: ExpectedSchema.parse({}),
    toolCalls: [],
    latencyMs: 0,
    trace: { trace_id: traceId, spans: detail.spans as unknown as Array<Record<string, unknown>> },
    config: toolCallsScorer.configSchema.parse(config),
  });
  const res = await svc.api('/api/scores', {
    method: 'POST',
    project,
    json: {
      trace_id: traceId,
      name: 'toolCalls',
      value: result.score,
      source: 'eval',
      scorer_name: 'toolCalls',
      reason: result.reason,
      evidence: result.evidence,
    },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return result;
}

const byTool = (a: ToolAnalytics) => new Map(a.tools.map((t) => [t.tool_name, t]));

describe('GET /api/analytics/tools', () => {
  it('gives per tool of every convention its calls, errors and latency quantiles', async () => {
    await ingestCorpus(svc.defaultProjectId);
    const got = await expectJson<ToolAnalytics>(await svc.api('/api/analytics/tools?range=1h'), 200);
    const names = [...new Set(CALLS.map((c) => c.tool))];
    expect(names.length).toBeGreaterThanOrEqual(5);
    expect(got.tool_call_count).toBe(CALLS.length);
    expect(got.tools.map((t) => t.tool_name).sort()).toEqual(names.sort());
    expect(got.tools_truncated).toBe(false);
    for (const name of names) {
      const calls = CALLS.filter((c) => c.tool === name);
      const t = byTool(got).get(name)!;
      expect(t, name).toMatchObject({
        call_count: calls.length,
        error_count: calls.filter((c) => c.failed).length,
        trace_count: new Set(calls.map((c) => c.trace)).size,
        scored_count: 0,
        argument_mismatch_count: 0,
        argument_mismatch_rate: null,
      });
      expect(t.error_rate, name).toBeCloseTo(calls.filter((c) => c.failed).length / calls.length, 9);
      expect(t.latency_ms.p50, name).toBeCloseTo(
        quantile(
          calls.map((c) => c.ms),
          0.5,
        ),
        6,
      );
      expect(t.latency_ms.p95, name).toBeCloseTo(
        quantile(
          calls.map((c) => c.ms),
          0.95,
        ),
        6,
      );
    }
    // The most called first.
    const counts = got.tools.map((t) => t.call_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    // A failed call of get_weather in the GenAI trace (status error) and in the SPEC body (tool_status error).
    expect(byTool(got).get('get_weather')!.error_count).toBe(2);
  });

  it('counts the argument mismatches the toolCalls scores name, per tool', async () => {
    const wrongOrigin = await scoreToolCalls('genai', {
      calls: [{ name: 'search_flights', args: { origin: 'XXX' } }, { name: 'get_weather' }],
      argsMatch: 'subset',
    });
    expect(wrongOrigin.reason).toMatch(/^strict: call 1 \(search_flights\) differs/);
    const wrongCity = await scoreToolCalls('spec', {
      calls: [{ name: 'search_flights' }, { name: 'get_weather', args: { city: 'Paris' } }],
      mode: 'unordered',
      argsMatch: 'subset',
    });
    expect(wrongCity.reason).toMatch(/^unordered: expected call 2 \(get_weather\) was not made; the closest, call \d+, differs/);
    // Wrong order: not an argument mismatch.
    const wrongOrder = await scoreToolCalls('genai', { calls: ['get_weather', 'search_flights'] });
    expect(wrongOrder.reason).toMatch(/^strict: call 1 is search_flights, expected get_weather/);
    const right = await scoreToolCalls('openinference', { calls: ['lookup_order'] });
    expect(right.score).toBe(1);

    const got = byTool(await expectJson<ToolAnalytics>(await svc.api('/api/analytics/tools?range=1h'), 200));
    const rate = (t: ToolStats | undefined) => [t?.scored_count, t?.argument_mismatch_count, t?.argument_mismatch_rate];
    expect(rate(got.get('search_flights'))).toEqual([3, 1, 1 / 3]);
    expect(rate(got.get('get_weather'))).toEqual([3, 1, 1 / 3]);
    expect(rate(got.get('lookup_order'))).toEqual([1, 0, 0]);
    expect(rate(got.get('search_web'))).toEqual([0, 0, null]);
  });

  it("reads through the SDK's typed client, and never counts another project's calls or scores", async () => {
    await ingestCorpus(OTHER);
    const before = await new AgentEvalClient({ url: svc.apiUrl, project: OTHER }).analytics.tools({ range: '1h' });
    expect(before.tool_call_count).toBe(CALLS.length);
    expect(before.scored_count).toBe(0);
    const mine = await new AgentEvalClient({ url: svc.apiUrl, project: svc.defaultProjectId }).analytics.tools({ range: '1h' });
    expect(mine.tool_call_count).toBe(CALLS.length);
    expect(mine.scored_count).toBe(4);
  });

  it('answers an empty window with no tools, and refuses a bad window with a 422 naming the parameter', async () => {
    const old = await expectJson<ToolAnalytics>(
      await svc.api(
        `/api/analytics/tools?start_time=${new Date(Date.now() - 80 * 86_400_000).toISOString()}&end_time=${new Date(Date.now() - 79 * 86_400_000).toISOString()}`,
      ),
      200,
    );
    expect(old).toMatchObject({ tool_call_count: 0, scored_count: 0, tools: [], tools_truncated: false });
    for (const [query, param] of [
      ['range=1h&start_time=2026-01-01T00:00:00Z', 'range'],
      ['range=2h', 'range'],
      ['start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z', 'start_time'],
    ] as const) {
      const body = await expectJson<{ code: string; details: Array<{ field: string }> }>(await svc.api(`/api/analytics/tools?${query}`), 422);
      expect(
        body.details.map((d) => d.field),
        query,
      ).toContain(param);
    }
  });
});
