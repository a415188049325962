import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseResultView } from '../../core/model/eval-run.js';
import { texts } from '../fixtures/corpus/texts.js';
import { closeHttpServer } from '../helpers/close-server.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { resultsByCase, untilCompleted } from '../helpers/run-results.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type AgentRequest, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';

/**
 * Trajectory scorers in real runs (the service with Temporal, embedded PostgreSQL and chDB)
 * against an agent that behaves like an instrumented one: it records its steps with the real
 * OpenTelemetry SDK under the `traceparent` the run sends, exports them over OTLP/HTTP protobuf
 * to the service with its API key, and returns (almost) no spans in its answer. The scorers must
 * read the case's stored trace, after it settled: planted mistakes (a wrong argument, a wrong
 * order, a loop, a failed tool, a blown budget, a forbidden tool, an answer written before the
 * search) each fail the scorer that looks for them, with the reason a user reads; a span the
 * agent exports 1.5 s after answering still counts.
 */

type Step =
  | { llm: 'plan' | 'replan' | 'answer'; note?: string }
  | { tool: string; args: Record<string, unknown>; result?: unknown; error?: string; exportAfterAnswerMs?: number };

const FLIGHTS = { tool: 'search_flights', args: { from: 'LIS', to: 'NRT', date: '2026-03-14', passengers: 4 }, result: { offers: 3, cheapest_eur: 812.4 } };
const WEATHER = { tool: 'get_weather', args: { city: 'Kyoto', days: 3 }, result: { forecast: ['sun', 'clouds', 'rain'], high_c: 14 } };

/** What each case's agent does, by `input.scenario`. */
const SCENARIOS: Record<string, Step[]> = {
  good: [{ llm: 'plan' }, FLIGHTS, WEATHER, { llm: 'answer' }],
  'wrong argument': [{ llm: 'plan' }, { ...FLIGHTS, args: { ...FLIGHTS.args, to: 'HND' } }, WEATHER, { llm: 'answer' }],
  'wrong order': [{ llm: 'plan' }, WEATHER, FLIGHTS, { llm: 'answer' }],
  loop: [{ llm: 'plan' }, FLIGHTS, WEATHER, WEATHER, WEATHER, WEATHER, { llm: 'answer' }],
  'tool error': [
    { llm: 'plan' },
    FLIGHTS,
    { llm: 'answer' },
    { tool: 'book_hotel', args: { city: 'Kyoto', nights: 3, rooms: 2 }, error: 'payment declined: card ending 4242 was refused' },
  ],
  'blown budget': [
    { llm: 'plan' },
    FLIGHTS,
    { llm: 'replan', note: 'fares' },
    WEATHER,
    { llm: 'replan', note: 'weather' },
    { llm: 'replan', note: 'budget' },
    { llm: 'answer' },
  ],
  'answers first': [{ llm: 'plan' }, { llm: 'answer' }, FLIGHTS, WEATHER],
  forbidden: [{ llm: 'plan' }, FLIGHTS, WEATHER, { tool: 'cancel_booking', args: { booking: 'BK-1042' }, result: { cancelled: true } }, { llm: 'answer' }],
  'late export': [{ llm: 'plan' }, FLIGHTS, { ...WEATHER, exportAfterAnswerMs: 1500 }, { llm: 'answer' }],
};

const STEP_MS = 4;
const GENAI_SCOPE = { name: 'trip-agent-framework', version: '1.4.0' };

/** The model call of a step, in the GenAI conventions, with the corpus's real prompts and answer. */
function llmAttributes(step: { llm: string; note?: string }) {
  const ask =
    step.llm === 'answer'
      ? 'Write the final answer for the traveller, in markdown.'
      : step.llm === 'plan'
        ? texts.travelQuestion
        : `Re-plan: check the ${step.note} again.`;
  const out =
    step.llm === 'answer' ? texts.travelAnswer : `Next: ${step.llm === 'plan' ? 'search flights, then the weather in Kyoto' : `look at the ${step.note}`}.`;
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 900,
    'gen_ai.usage.output_tokens': 250,
    'gen_ai.input.messages': JSON.stringify([
      { role: 'system', parts: [{ type: 'text', content: texts.travelSystemPrompt }] },
      { role: 'user', parts: [{ type: 'text', content: ask }] },
    ]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: out }], finish_reason: 'stop' }]),
  };
}

/**
 * The agent's steps recorded with the real SDK under the run's `traceparent` (an `invoke_agent`
 * span, then each step), exported as each span ends. Times run from the request's arrival; spans
 * marked `exportAfterAnswerMs` end (and so are exported) that long after `afterAnswer()` is
 * called. `ready` resolves when the answer may be sent.
 */
function runAgent(tracer: Tracer, parent: Context, steps: Step[]): { ready: Promise<void>; afterAnswer: () => Promise<void> } {
  const t0 = Date.now();
  const at = (i: number) => new Date(t0 + 2 + i * STEP_MS);
  const root = tracer.startSpan(
    'invoke_agent trip-planner',
    { kind: SpanKind.SERVER, startTime: at(0), attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'trip-planner' } },
    parent,
  );
  const ctx = trace.setSpan(parent, root);
  const late: Array<() => Promise<void>> = [];
  steps.forEach((step, i) => {
    const start = at(i + 1);
    const end = new Date(start.getTime() + STEP_MS - 1);
    if ('llm' in step) {
      tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, startTime: start, attributes: llmAttributes(step) }, ctx).end(end);
      return;
    }
    const span = tracer.startSpan(
      `execute_tool ${step.tool}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: start,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': step.tool,
          'gen_ai.tool.call.id': `call_${i}`,
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.arguments': JSON.stringify(step.args),
          ...(step.result !== undefined ? { 'gen_ai.tool.call.result': JSON.stringify(step.result) } : {}),
        },
      },
      ctx,
    );
    if (step.error) {
      const err = new Error(step.error);
      err.stack = texts.travelStacktrace;
      span.recordException(err, end);
      span.setStatus({ code: SpanStatusCode.ERROR, message: step.error });
    }
    if (step.exportAfterAnswerMs === undefined) span.end(end);
    else late.push(() => new Promise((resolve) => setTimeout(() => resolve(span.end(end)), step.exportAfterAnswerMs)));
  });
  root.end(at(steps.length + 1));
  const ready = new Promise<void>((resolve) => setTimeout(resolve, (steps.length + 2) * STEP_MS + 5));
  return { ready, afterAnswer: async () => void (await Promise.all(late.map((end) => end()))) };
}

let service: TestService;
let agent: TestAgent;
let provider: BasicTracerProvider;
let openai: FakeProvider;
let inspector: http.Server;
/** What the HTTP custom scorer was sent, per case. */
const inspected = new Map<string, { trace: { trace_id: string; spans: Array<Record<string, unknown>> } }>();
/** When the late spans were exported, and when their case's answer was sent, per trace id. */
const lateExports = new Map<string, { answeredAt: number; exportedAt: number[] }>();
/** Exports the service refused or that failed: none expected. */
const exportFailures: string[] = [];

const propagator = new W3CTraceContextPropagator();

async function agentBehaviour(req: AgentRequest) {
  const { scenario } = req.body.input as { scenario: string };
  const parent = propagator.extract(ROOT_CONTEXT, { traceparent: req.traceparent }, defaultTextMapGetter);
  const { ready, afterAnswer } = runAgent(provider.getTracer(GENAI_SCOPE.name, GENAI_SCOPE.version), parent, SCENARIOS[scenario]);
  await ready;
  // Its batch is flushed before it answers, as a request handler that may be frozen afterwards does.
  await provider.forceFlush();
  if (scenario === 'late export') {
    const entry = { answeredAt: Date.now(), exportedAt: [] as number[] };
    lateExports.set(req.body.trace_id, entry);
    void afterAnswer()
      .then(() => provider.forceFlush())
      .then(() => entry.exportedAt.push(Date.now()));
  }
  return {
    json: {
      output: scenario === 'answers first' ? texts.travelAnswer : `${texts.travelAnswer}\n\n_Trace: ${scenario}._`,
      usage: { input_tokens: 1800, output_tokens: 500 },
      // Next to what it exported, the agent returns one span of its own (never exported).
      ...(scenario === 'good'
        ? { spans: [{ name: 'recall traveller preferences', type: 'memory', input: 'family of four', output: '{"seat":"aisle","kids":[7,11]}' }] }
        : {}),
    },
  };
}

const SCORERS = [
  'toolCalls',
  'steps',
  'loops',
  'toolErrors',
  {
    name: 'spanMatch',
    config: { checks: [{ before: { tool: 'search_flights' }, after: { type: 'generation', input: { regex: 'Write the final answer' } } }] },
  },
];

/** The case's expectations: the good trajectory, with `over` replacing any of its parts. */
function expecting(over: Record<string, unknown> = {}) {
  return {
    outputContains: ['Kyoto'],
    trajectory: {
      mode: 'strict',
      argsMatch: 'subset',
      calls: [
        { name: 'search_flights', args: { from: 'LIS', to: 'NRT', date: '2026-03-14' } },
        { name: 'get_weather', where: { city: { regex: '^ky', flags: 'i' }, days: { near: 3, tolerance: 1 } } },
      ],
      forbidden: ['cancel_booking'],
      budget: { maxLlmCalls: 3, maxToolCalls: 4, maxTokens: 6000 },
      ...over,
    },
  };
}

async function startRun(body: Record<string, unknown>, path = '/api/runs'): Promise<string> {
  const created = await json<{ id: string }>(await service.api(path, { method: 'POST', json: body }), 202);
  await untilCompleted(service, created.id);
  return created.id;
}

const results = (runId: string) => resultsByCase(service, runId);

beforeAll(async () => {
  openai = await startFakeProvider('openai');
  inspector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        input: { scenario: string };
        trace: { trace_id: string; spans: Array<Record<string, unknown>> };
      };
      inspected.set(body.input.scenario, body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value: 1, reason: `saw ${body.trace.spans.length} spans` }));
    });
  });
  await new Promise<void>((resolve) => inspector.listen(0, '127.0.0.1', () => resolve()));
  agent = await startTestAgent(agentBehaviour);
  service = await startTestService({ ...fakeProviderEnv({ openai }), EVAL_RETRY_TIME_SCALE: '0.001' });
  // As an agent process sets up the SDK: one provider, a batch processor, the OTLP/HTTP protobuf exporter.
  const otlp = new OTLPTraceExporter({ url: `${service.otlpHttpUrl}/v1/traces`, headers: { 'x-api-key': service.apiKey! } });
  const exporter: SpanExporter = {
    export: (spans, done) =>
      otlp.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) exportFailures.push(result.error?.message ?? 'export failed');
        done(result);
      }),
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'trip-planner', 'service.version': '2.3.0', 'telemetry.sdk.language': 'nodejs' }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'trip-planner', endpoint: agent.url } }), 201);
  await json(
    await service.api('/api/scorers', {
      method: 'POST',
      json: { name: 'trace-inspector', endpoint: `http://127.0.0.1:${(inspector.address() as AddressInfo).port}/score` },
    }),
    201,
  );
});

afterAll(async () => {
  await provider?.shutdown();
  await service?.stop();
  await agent?.close();
  if (inspector) await closeHttpServer(inspector);
  await openai?.close();
});

describe('trajectory scorers on the trace an instrumented agent exports', () => {
  let run: Record<string, CaseResultView>;
  const item = (scenario: string, expected = expecting(), scorers?: unknown[]) => ({
    name: scenario,
    input: { scenario },
    expected,
    ...(scorers ? { scorers } : {}),
  });

  beforeAll(async () => {
    const runId = await startRun({
      agentId: 'trip-planner',
      agentVersion: 'v2.3.0',
      scorers: SCORERS,
      config: { parallel: true },
      dataset: {
        items: [
          item('good', expecting(), [
            ...SCORERS,
            'trace-inspector',
            { name: 'llmJudge:trajectory', config: { prompt: 'Did the agent search before answering? {{trace}}', provider: 'openai' } },
          ]),
          item('wrong argument'),
          item('wrong order'),
          item('loop', expecting({ mode: 'superset', budget: { maxToolCalls: 8 } })),
          item('tool error', expecting({ calls: ['search_flights', 'book_hotel'] })),
          item('blown budget'),
          item('answers first'),
          item('forbidden', expecting({ mode: 'superset' })),
        ],
      },
    });
    run = await results(runId);
  });

  const scores = (name: string) => Object.fromEntries(Object.entries(run[name].details).map(([scorer, d]) => [scorer, d.score]));

  it('good behaviour passes every trajectory scorer, read from the spans the agent exported', () => {
    expect(exportFailures).toEqual([]);
    expect(run.good.status).toBe('passed');
    expect(scores('good')).toEqual({ toolCalls: 1, steps: 1, loops: 1, toolErrors: 1, spanMatch: 1, 'trace-inspector': 1, 'llmJudge:trajectory': 0.8 });
    const d = run.good.details;
    expect(d.toolCalls.reason).toBe('strict: the 2 calls expected were made in order, and no other');
    expect(d.toolCalls.evidence).toEqual(['calls made: search_flights -> get_weather']);
    expect(d.steps.reason).toBe('within every budget: LLM calls 2 <= 3, tool calls 2 <= 4, tokens 2300 <= 6000');
    expect(d.loops.reason).toBe('no loops in 2 tool calls and 2 LLM calls (at most 2 identical calls, 2 identical LLM inputs, 2 alternating rounds allowed)');
    expect(d.toolErrors.reason).toBe('none of the 2 tool calls failed');
    expect(d.spanMatch.reason).toMatch(
      /^the check passed: search_flights \(span 5, \+\d+ ms\) \{tool = "search_flights"\} ended before chat gpt-4o \(span 7, \+\d+ ms\) \{type generation, input \/Write the final answer\/\} started$/,
    );
  });

  it('a wrong argument fails toolCalls, naming the call and the argument', () => {
    const d = run['wrong argument'].details;
    expect(d.toolCalls.score).toBe(0.5);
    expect(d.toolCalls.reason).toBe('strict: call 1 (search_flights) differs: argument to: expected "NRT", got "HND"; 1 of 2 line up in order');
    expect(d.toolCalls.evidence[1]).toBe('call 1: search_flights {"from":"LIS","to":"HND","date":"2026-03-14","passengers":4}');
    expect(scores('wrong argument')).toMatchObject({ steps: 1, loops: 1, toolErrors: 1, spanMatch: 1 });
    expect(run['wrong argument'].status).toBe('failed');
  });

  it('a wrong order fails toolCalls in strict mode', () => {
    const d = run['wrong order'].details;
    expect(d.toolCalls).toMatchObject({ score: 0.5, reason: 'strict: call 1 is get_weather, expected search_flights; 1 of 2 line up in order' });
    expect(scores('wrong order')).toMatchObject({ steps: 1, loops: 1, toolErrors: 1, spanMatch: 1 });
  });

  it('a loop fails loops, naming the call repeated', () => {
    const d = run.loop.details;
    expect(d.loops.score).toBe(0.5);
    expect(d.loops.reason).toMatch(
      /^the same call get_weather \{"city":"Kyoto","days":3\} was made 4 times \(at most 2 allowed\), first at get_weather \(span 5, \+\d+ ms\)$/,
    );
    expect(scores('loop')).toMatchObject({ toolCalls: 1, steps: 1, toolErrors: 1, spanMatch: 1 });
  });

  it('a tool that failed after the answer fails toolErrors: not recovered', () => {
    const d = run['tool error'].details;
    expect(d.toolErrors.score).toBe(0);
    expect(d.toolErrors.reason).toMatch(
      /^1 of 2 tool calls failed: 0 recovered, 1 not \(at most 0 allowed\); book_hotel \(span 6, \+\d+ ms\) failed \("payment declined: card ending 4242 was refused"\) and was not recovered: no later successful book_hotel call and no final answer after it$/,
    );
    expect(scores('tool error')).toMatchObject({ toolCalls: 1, steps: 1, loops: 1, spanMatch: 1 });
  });

  it('a blown budget fails steps, saying which', () => {
    const d = run['blown budget'].details;
    expect(d.steps.score).toBeCloseTo(3 / 5, 9);
    expect(d.steps.reason).toBe('over budget: LLM calls 5 > 3');
    expect(d.steps.evidence).toEqual(['LLM calls: 5 of 3 (1.67x the budget)', 'tool calls: 2 of 4', 'tokens: 5750 of 6000']);
    expect(scores('blown budget')).toMatchObject({ toolCalls: 1, loops: 1, toolErrors: 1, spanMatch: 1 });
  });

  it('an answer written before the search fails spanMatch', () => {
    const d = run['answers first'].details;
    expect(d.spanMatch.score).toBe(0);
    expect(d.spanMatch.reason).toMatch(
      /^0 of 1 check passed; check 1 failed: no span matching \{tool = "search_flights"\} ended before the first span matching \{type generation, input \/Write the final answer\/\}, chat gpt-4o \(span 4, \+\d+ ms\), started; the first to end, search_flights \(span 5, \+\d+ ms\), ended at \+\d+ ms$/,
    );
    expect(scores('answers first')).toMatchObject({ toolCalls: 1, steps: 1, loops: 1, toolErrors: 1 });
  });

  it('a forbidden tool of the case fails toolCalls', () => {
    const d = run.forbidden.details;
    expect(d.toolCalls).toMatchObject({ score: 0, reason: 'forbidden tool cancel_booking was called (call 3; 1 forbidden call in all)' });
    expect(d.toolCalls.evidence).toEqual(['calls made: search_flights -> get_weather -> cancel_booking', 'call 3: cancel_booking {"booking":"BK-1042"}']);
  });

  it('judges and custom scorers see the same trace: the agent call, the exported spans and the returned one, none of the run’s own', () => {
    const sent = inspected.get('good')!;
    expect(sent.trace.trace_id).toBe(run.good.trace_id);
    const names = sent.trace.spans.map((s) => s.name);
    expect(names).toEqual([
      'agent call',
      'invoke_agent trip-planner',
      'chat gpt-4o',
      'execute_tool search_flights',
      'execute_tool get_weather',
      'chat gpt-4o',
      'recall traveller preferences',
    ]);
    const ids = sent.trace.spans.map((s) => s.span_id);
    expect(new Set(ids).size).toBe(ids.length);
    // Stored spans come normalized: the tool's arguments as its input, its convention named.
    expect(sent.trace.spans[3]).toMatchObject({ type: 'tool', convention: 'genai', input: '{"from":"LIS","to":"NRT","date":"2026-03-14","passengers":4}' });
    const prompt = JSON.stringify(openai.requests.at(-1)!.body);
    expect(prompt).toContain('execute_tool search_flights');
    expect(prompt).toContain('recall traveller preferences');
  });

  it('the case trace written after scoring holds the agent’s spans under its call, and the scores', async () => {
    const spans = await eventually(async () => {
      const body = await json<{ spans: Array<{ name: string; parent_span_id: string | null; span_id: string }> }>(
        await service.api(`/api/traces/${run.good.trace_id}`),
        200,
      );
      expect(body.spans.map((s) => s.name)).toContain('score: toolCalls');
      return body.spans;
    });
    const call = spans.find((s) => s.name === 'agent call')!;
    expect(spans.find((s) => s.name === 'invoke_agent trip-planner')!.parent_span_id).toBe(call.span_id);
  });
});

describe('waiting for the trace to settle', () => {
  const SUITE = (calls: string, budget: string) => `name: late-exporter
agent: trip-planner
scorers:
  - toolCalls
  - steps
cases:
  - name: late export
    input: {scenario: late export}
    expected:
      trajectory:
        calls: [${calls}]
        budget: {${budget}}
`;

  it('a span exported 1.5 s after the answer still counts, with a YAML suite at a pinned version', async () => {
    const yaml = { 'content-type': 'application/yaml' };
    const v1 = await json<{ id: string }>(
      await service.api('/api/suites', { method: 'POST', headers: yaml, body: SUITE('search_flights, get_weather', 'maxToolCalls: 2, maxLlmCalls: 2') }),
      201,
    );
    // Version 2 expects another trajectory; the run pins version 1.
    await json(await service.api(`/api/suites/${v1.id}`, { method: 'PUT', headers: yaml, body: SUITE('search_flights', 'maxToolCalls: 1') }), 200);
    const stored = await json<{ definition: { cases: Array<{ expected: { trajectory: { calls: unknown[] } } }> } }>(
      await service.api(`/api/suites/${v1.id}?version=1`),
      200,
    );
    expect(stored.definition.cases[0].expected.trajectory.calls).toEqual([{ name: 'search_flights' }, { name: 'get_weather' }]);

    const runId = await startRun(
      { suite_name: 'late-exporter', suite_version: 1, agent_version: 'v2.3.0', config: { trace_settle: { quiet_ms: 2000, max_ms: 10_000 } } },
      '/api/evals/runs',
    );
    const late = (await results(runId))['late export'];
    expect(late.details.toolCalls).toMatchObject({ score: 1, reason: 'strict: the 2 calls expected were made in order, and no other' });
    expect(late.details.toolCalls.evidence).toEqual(['calls made: search_flights -> get_weather']);
    expect(late.details.steps).toMatchObject({ score: 1, reason: 'within every budget: LLM calls 2 <= 2, tool calls 2 <= 2' });
    // The span was exported well after the agent answered: scoring waited for it.
    const timing = lateExports.get(late.trace_id!)!;
    expect(timing.exportedAt).toHaveLength(1);
    expect(timing.exportedAt[0] - timing.answeredAt).toBeGreaterThanOrEqual(1500);
  });

  it('trace_settle and expected.trajectory are checked when a run is created', async () => {
    const res = await service.api('/api/runs', {
      method: 'POST',
      json: {
        agentId: 'trip-planner',
        scorers: ['toolCalls'],
        config: { trace_settle: { quiet_ms: -1 } },
        dataset: { items: [{ input: { scenario: 'good' }, expected: { trajectory: { budget: { maxToolCalls: 'four' } } } }] },
      },
    });
    const body = await json<{ details: Array<{ field: string; message: string }> }>(res, 422);
    expect(body.details.map((d) => d.field).sort()).toEqual(['config.trace_settle.quiet_ms', 'dataset.items[0].expected.trajectory.budget.maxToolCalls']);
  });
});
