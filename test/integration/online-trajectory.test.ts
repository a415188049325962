import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnlineRule } from '../../core/model/online-rule.js';
import type { Score } from '../../core/model/score.js';
import { recordTrace } from '../e2e/helpers/otel.js';
import { exportSpans } from '../fixtures/otlp/sdk.js';
import { loadCorpus, toSpanSpecs } from '../helpers/corpus.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { startTestService, type TestService } from '../helpers/server.js';

// An online rule with trajectory scorers (toolErrors, steps, selectionConfidence) and the
// trajectory judge, on production traces of the corpus written the ways production writes them:
// the SPEC JSON body through POST /api/traces/ingest and the GenAI agent through the real
// OpenTelemetry SDK's OTLP/HTTP exporter. The real service (chDB, embedded PostgreSQL, its
// worker's online evaluator ticking every 100 ms) reads each stored trace back, the scorers see
// it as a span tree, and the scores are read back through the API. The judge is answered by a
// local OpenAI stand-in.

let svc: TestService;
let openai: FakeProvider;
const corpus = loadCorpus();
const PROJECT = 'online-trajectory';
let apiKey: string;

beforeAll(async () => {
  openai = await startFakeProvider('openai');
  openai.setDefault({ verdict: { score: 0.4, reason: 'step [5] failed and the answer ignores it', evidence: [] } });
  svc = await startTestService({ ...fakeProviderEnv({ openai }), ONLINE_EVAL_TICK_MS: '100', ONLINE_EVAL_LEASE_MS: '10000' });
  apiKey = await svc.keyFor(PROJECT);
});

afterAll(async () => {
  await svc?.stop();
  await openai?.close();
});

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

const scoresOf = async (traceId: string) =>
  (await json<{ scores: Score[] }>(await svc.api(`/api/scores?trace_id=${encodeURIComponent(traceId)}`, { project: PROJECT }), 200)).scores;
const byName = (scores: Score[]) => Object.fromEntries(scores.map((s) => [s.name, s]));

describe('an online rule with trajectory scorers', () => {
  it('scores stored production traces as span trees, and the scores read back through the API', async () => {
    const rule = await json<OnlineRule>(
      await svc.api('/api/evals/online-rules', {
        method: 'POST',
        project: PROJECT,
        json: {
          name: 'trajectories',
          scorers: [
            'toolErrors',
            { name: 'steps', config: { maxToolCalls: 1 } },
            { name: 'selectionConfidence', config: { expected: ['itinerary_writer'] } },
            { name: 'trajectoryJudge', config: { provider: 'openai' } },
          ],
          delay_seconds: 1,
          since: new Date(Date.now() - 3600_000).toISOString(),
        },
      }),
      201,
    );

    const spec = corpus.json.find((t) => t.name === 'spec')!;
    await json(await svc.api('/api/traces/ingest', { method: 'POST', project: PROJECT, json: spec.body }), 201);
    const genai = corpus.otel.find((t) => t.name === 'genai')!;
    const recorded = await recordTrace(genai.resource, toSpanSpecs(genai));
    // The agent's own exporter, with the project's API key.
    const exporter = new OTLPTraceExporter({ url: `${svc.otlpHttpUrl}/v1/traces`, headers: { 'x-api-key': apiKey } });
    expect(await exportSpans(exporter, recorded.spans)).toEqual({ code: 0 });
    await exporter.shutdown();

    const [specScores, genaiScores] = await eventually(async () => {
      const both = [byName(await scoresOf(spec.body.trace_id)), byName(await scoresOf(recorded.traceId))];
      for (const scores of both) expect(Object.keys(scores).sort()).toEqual(['selectionConfidence', 'steps', 'toolErrors', 'trajectoryJudge']);
      return both;
    }, 60_000);

    // The SPEC body: get_weather failed (tool_status error) and the final answer came after it.
    expect(specScores.toolErrors).toMatchObject({ value: 1, source: 'eval', scorer_name: 'toolErrors' });
    expect(specScores.toolErrors.reason).toMatch(
      /^1 of 2 tool calls failed: 1 recovered, 0 not \(at most 0 allowed\); get_weather \(span \d+, \+\d+ ms\) failed/,
    );
    expect(specScores.steps).toMatchObject({ value: 0.5, reason: 'over budget: tool calls 2 > 1' });
    expect(specScores.selectionConfidence).toMatchObject({ value: 1 });
    expect(specScores.selectionConfidence.reason).toBe('1 selection, none confident but wrong or low (confident >= 0.8, low < 0.5); mean confidence 0.92');
    expect(specScores.trajectoryJudge).toMatchObject({ value: 0.4, reason: 'step [5] failed and the answer ignores it' });
    expect(specScores.trajectoryJudge.attributes).toMatchObject({ 'agent_eval.online_rule_id': rule.id });
    expect(specScores.trajectoryJudge.attributes?.['agent_eval.judge_trace_id']).toMatch(/^[0-9a-f]{32}$/);

    // The GenAI trace, exported over OTLP: the tool error without a later successful call.
    expect(genaiScores.toolErrors.reason).toMatch(/^1 of 2 tool calls failed/);
    expect(genaiScores.toolErrors.reason).toContain('get_weather');
    expect(genaiScores.steps).toMatchObject({ value: 0.5, reason: 'over budget: tool calls 2 > 1' });
    expect(genaiScores.selectionConfidence.reason).toBe('no span records a selection_confidence: nothing to score');

    // The judge read each stored trace condensed: its steps, the failed tool with its error, the model calls with their tokens.
    const messages = openai.requests.map((r) => (r.body.messages as Array<{ content: string }>)[1].content);
    const specSeen = messages.find((m) => m.includes('[1] +0 ms (9400 ms) span wayfarer.run'))!;
    expect(specSeen).toContain('tool get_weather | ERROR "Weather API timed out. Tried twice, 5 s each."');
    expect(specSeen).toContain('routing route | selection: category travel; confidence 0.92; alternatives refunds_agent, booking_agent');
    const genaiSeen = messages.find((m) => m.includes('span invoke_agent Wayfarer'))!;
    expect(genaiSeen).toContain(`tool get_weather | ERROR "ToolError: weather for 'Kyōto' unavailable`);
    // Priced at ingest from the price table: the stored cost comes with the spans.
    expect(genaiSeen).toMatch(/model chat gpt-4o \| model gpt-4o-2024-08-06 \(1864 in \/ 96 out tokens, \$0\.\d{4}\)/);
    expect(genaiSeen).toMatch(/^6 spans, 3 model calls \(4856 input \/ 706 output tokens, \$0\.\d{4}( \(1 unpriced\))?\)/m);
  });
});
