import { spawn } from 'node:child_process';
import { trace as otelTrace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentEvalClient,
  defineScorer,
  defineSuite,
  evaluate,
  flush,
  init,
  loadSuite,
  ServiceApiError,
  shutdown,
  startRun,
  trace,
  waitForRun,
  type TraceDetail,
  type TraceSpanView,
} from '../../sdk/index.js';
import { weatherAgent, type WeatherQuestion } from '../../examples/weather-agent.js';
import { eventually } from '../helpers/eventually.js';
import { REPO_ROOT } from '../helpers/processes.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * The SDK against a real service (chDB, embedded PostgreSQL, the Temporal dev server): traces
 * in the API with their kinds, parents and attributes, beside another OpenTelemetry setup;
 * evaluate() runs that the API, the results and the comparison see; the local-run endpoints;
 * managed runs; the client's errors; and the examples, run as child processes.
 */

let service: TestService;
let client: AgentEvalClient;
let agent: TestAgent;

beforeAll(async () => {
  service = await startTestService();
  client = new AgentEvalClient({ url: service.apiUrl, apiKey: service.apiKey });
  agent = await startTestAgent((req) => ({ json: { output: `echo ${JSON.stringify(req.body.input)}`, tool_calls: ['lookup'] } }));
});

afterAll(async () => {
  await shutdown();
  await agent?.close();
  await service?.stop();
});

/** The trace once all `names` are in it (spans arrive by OTLP a moment after flush). */
async function traceWith(traceId: string, names: string[]): Promise<TraceDetail> {
  return eventually(async () => {
    const t = await client.traces.get(traceId);
    expect(t.spans.map((s) => s.name)).toEqual(expect.arrayContaining(names));
    return t;
  }, 30_000);
}

const spanNamed = (t: TraceDetail, name: string): TraceSpanView => {
  const s = t.spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span '${name}' in ${t.spans.map((x) => x.name).join(', ')}`);
  return s;
};

function runExample(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=agent-eval-source', '--import', 'tsx', file, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, AGENT_EVAL_URL: service.apiUrl!, AGENT_EVAL_API_KEY: service.apiKey!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`${file} did not finish:\n${stdout}\n${stderr}`))), 110_000);
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

describe('a traced agent in the API', () => {
  it('shows the spans with their kinds, parents and the SPEC attributes', async () => {
    init({ url: service.apiUrl, apiKey: service.apiKey, serviceName: 'sdk-test-agent' });
    const traceId = await trace('session', async (s) => {
      await weatherAgent({ query: 'What is the weather in Paris?' });
      return s.traceId;
    });
    await flush();
    const t = await traceWith(traceId, ['session', 'weather agent', 'pick a tool', 'generation demo-model-1', 'get_forecast']);
    expect(t.name).toBe('session');
    const session = spanNamed(t, 'session');
    const agentSpan = spanNamed(t, 'weather agent');
    const routing = spanNamed(t, 'pick a tool');
    const toolSpan = spanNamed(t, 'get_forecast');
    const generations = t.spans.filter((s) => s.name === 'generation demo-model-1');
    expect(session.parent_span_id).toBeNull();
    expect(agentSpan.parent_span_id).toBe(session.span_id);
    for (const child of [routing, toolSpan, ...generations]) expect(child.parent_span_id).toBe(agentSpan.span_id);
    expect(routing).toMatchObject({ type: 'span', component_type: 'routing', convention: 'spec' });
    expect(routing.attributes).toMatchObject({
      skill_category: 'weather',
      selection_confidence: '0.92',
      selection_reason: 'names a city',
      alternatives_considered: '["search_web","get_forecast"]',
    });
    expect(toolSpan).toMatchObject({ type: 'tool', component_type: 'tool', input: '{"city":"Paris"}', output: '{"sky":"sunny","celsius":24}' });
    expect(toolSpan.attributes).toMatchObject({ tool_name: 'get_forecast', tool_status: 'success' });
    expect(generations).toHaveLength(2);
    expect(generations[0]).toMatchObject({ type: 'generation', model: 'demo-model-1', input_tokens: 42, output_tokens: 9 });
    expect(generations[1]).toMatchObject({ output: 'It is sunny in Paris, 24 °C.', input_tokens: 30, output_tokens: 12 });
    expect(t).toMatchObject({ total_input_tokens: 72, total_output_tokens: 21, llm_call_count: 2, tool_call_count: 1 });
    expect(agentSpan.resource_attributes['service.name']).toBe('sdk-test-agent');
  });

  it('works beside another OpenTelemetry setup in the process: both export, one trace', async () => {
    const appProvider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'host-app' }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${service.apiUrl}/v1/traces`, headers: { 'x-api-key': service.apiKey! } }))],
    });
    expect(otelTrace.setGlobalTracerProvider(appProvider)).toBe(true);
    try {
      const appTracer = otelTrace.getTracer('host-app');
      const traceId = await appTracer.startActiveSpan('GET /ask', async (request) => {
        await weatherAgent({ query: 'What is the weather in Oslo?' });
        trace('after', () => appTracer.startActiveSpan('db query', (s) => s.end()));
        request.end();
        return request.spanContext().traceId;
      });
      await Promise.all([flush(), appProvider.forceFlush()]);
      const t = await traceWith(traceId, ['GET /ask', 'weather agent', 'get_forecast', 'after', 'db query']);
      const request = spanNamed(t, 'GET /ask');
      expect(request.parent_span_id).toBeNull();
      expect(request.resource_attributes['service.name']).toBe('host-app');
      expect(spanNamed(t, 'weather agent')).toMatchObject({ parent_span_id: request.span_id, resource_attributes: { 'service.name': 'sdk-test-agent' } });
      expect(spanNamed(t, 'db query')).toMatchObject({ parent_span_id: spanNamed(t, 'after').span_id, resource_attributes: { 'service.name': 'host-app' } });
      // The application's provider is still the global one.
      expect(otelTrace.getTracerProvider()).not.toBeUndefined();
    } finally {
      await appProvider.shutdown();
      otelTrace.disable();
    }
  });
});

describe('evaluate(): local runs the API, the results and the comparison see', () => {
  let v1: string;
  let v2: string;

  it('uploads the run, its case results with scores, and a trace per case', async () => {
    const suite = await loadSuite(`${REPO_ROOT}examples/weather.suite.yaml`);
    const seen: number[] = [];
    const result = await evaluate(suite, {
      url: service.apiUrl,
      apiKey: service.apiKey,
      agent: (input) => weatherAgent(input as WeatherQuestion),
      agentName: 'weather-agent',
      agentVersion: 'v1',
      concurrency: 3,
      onProgress: (p) => seen.push(p.completed),
    });
    v1 = result.runId!;
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    expect(result.passed).toBe(true);
    const run = await client.runs.get(v1);
    expect(run).toMatchObject({
      execution: 'local',
      status: 'completed',
      suite_name: 'weather-examples',
      agent_id: null,
      agent_name: 'weather-agent',
      agent_version: 'v1',
      progress: { completed: 4, total: 4 },
    });
    expect(run.summary).toMatchObject({ total_cases: 4, passed: 4, failed: 0, cancelled: 0, avg_score: 1 });
    expect(run.summary.scores_by_scorer).toEqual({ contains: 1, toolSelection: 1, latency: 1 });
    expect(result.summary).toEqual(run.summary);
    // The first family reads it too.
    expect((await client.evals.getRun(v1)).run_id).toBe(v1);

    const { results } = await client.runs.results(v1);
    expect(results.map((r) => [r.case_name, r.status])).toEqual([
      ['paris', 'passed'],
      ['oslo', 'passed'],
      ['lima', 'passed'],
      ['no city', 'passed'],
    ]);
    const paris = results[0];
    expect(paris.output).toBe('It is sunny in Paris, 24 °C.');
    expect(paris.trials[0]).toMatchObject({
      tool_calls: [{ name: 'get_forecast', input: { city: 'Paris' }, output: { sky: 'sunny', celsius: 24 } }],
      usage: { input_tokens: 72, output_tokens: 21 },
    });
    expect(paris.details.toolSelection.score).toBe(1);

    // The case's trace: the eval root, the agent call, the agent's own spans under it, a span per scorer.
    const t = await traceWith(paris.trace_id!, ['eval: paris', 'agent call', 'weather agent', 'get_forecast', 'score: contains']);
    const root = spanNamed(t, 'eval: paris');
    expect(root.parent_span_id).toBeNull();
    expect(root.attributes).toMatchObject({ 'agent_eval.run_id': v1, 'agent_eval.case_name': 'paris', 'agent_eval.case_status': 'passed' });
    expect(spanNamed(t, 'agent call').parent_span_id).toBe(root.span_id);
    expect(spanNamed(t, 'weather agent').parent_span_id).toBe(spanNamed(t, 'agent call').span_id);
    const { scores } = await client.scores.list(paris.trace_id!);
    expect(scores.map((s) => [s.name, s.source, s.value]).sort()).toEqual([
      ['avg_score', 'sdk', 1],
      ['contains', 'eval', 1],
      ['latency', 'eval', 1],
      ['toolSelection', 'eval', 1],
    ]);
  });

  it('compares two local runs with the comparison endpoint, and lists them with the suite', async () => {
    const suite = await loadSuite(`${REPO_ROOT}examples/weather.suite.yaml`);
    // v2 forgets the tool for Oslo and Lima: toolSelection and contains regress.
    const result = await evaluate(suite, {
      client,
      agent: async (input) => {
        const q = (input as WeatherQuestion).query;
        return /Paris/.test(q) ? weatherAgent({ query: q }) : /Oslo|Lima/.test(q) ? 'It is nice.' : 'Which city?';
      },
      agentName: 'weather-agent',
      agentVersion: 'v2',
    });
    v2 = result.runId!;
    expect(result.passed).toBe(false);
    const cmp = await client.compare(v1, v2);
    expect(cmp).toMatchObject({ baseline: { run_id: v1, agent_version: 'v1' }, candidate: { run_id: v2, agent_version: 'v2' }, passed: false });
    expect(cmp.regressions.map((r) => `${r.case_name}/${r.scorer}`).sort()).toEqual([
      'lima/contains',
      'lima/toolSelection',
      'oslo/contains',
      'oslo/toolSelection',
    ]);
    expect(cmp.significance.n).toBe(4);
    const listed = await client.runs.list({ suite_name: 'weather-examples' });
    expect(listed.runs.map((r) => r.id)).toEqual(expect.arrayContaining([v1, v2]));
    const failed = await client.runs.results(v2, { failedOnly: true });
    expect(failed.results.map((r) => r.case_name)).toEqual(['oslo', 'lima']);
  });

  it('records a custom scorer and an agent that threw', async () => {
    const polite = defineScorer({
      name: 'polite',
      evaluate: ({ output }) => ({ score: String(output).includes('please') ? 1 : 0.2, reason: 'looks for please' }),
    });
    const suite = defineSuite({
      name: 'politeness',
      scorers: [polite],
      cases: [
        { name: 'ask', input: 'a' },
        { name: 'crash', input: 'b' },
      ],
    });
    const result = await evaluate(suite, {
      client,
      throwOnCaseErrors: false,
      agent: (input) => (input === 'b' ? Promise.reject(new Error('model down')) : 'yes please'),
    });
    const { results } = await client.runs.results(result.runId!);
    expect(results[0]).toMatchObject({ status: 'passed', scores: { polite: 1 }, details: { polite: { reason: 'looks for please' } } });
    expect(results[1]).toMatchObject({ status: 'failed', error: 'model down', scores: {} });
    const t = await traceWith(results[1].trace_id!, ['eval: crash', 'agent call']);
    expect(spanNamed(t, 'agent call')).toMatchObject({ status: 'error', status_message: 'model down' });
  });
});

describe('the local-run endpoints', () => {
  const items = [
    { name: 'a', input: 1, expected: { outputContains: ['x'] } },
    { name: 'b', input: 2, expected: { outputContains: ['x'] } },
  ];

  it('records results once by case index, judges them, and completes only when all are in', async () => {
    const run = await client.runs.createLocal({ agentId: 'my-script', agentVersion: 'v9', dataset: { items }, scorers: ['contains'] });
    expect(run).toMatchObject({ execution: 'local', status: 'running', agent_id: null, agent_name: 'my-script', progress: { completed: 0, total: 2 } });
    expect(run.started_at).not.toBeNull();
    const first = { case_index: 0, details: { contains: { score: 1, reason: 'found' } }, output: 'x', duration_ms: 12 };
    await expect(client.runs.addResults(run.id, [first])).resolves.toMatchObject({ accepted: 1, progress: { completed: 1, total: 2 } });
    // Sent again (a retry after a lost answer), it changes nothing; the first record wins.
    await client.runs.addResults(run.id, [{ ...first, details: { contains: { score: 0, reason: 'other' } } }]);
    await expect(client.runs.complete(run.id)).rejects.toThrow(
      `Service API error: 409 Run ${run.id} has 1 case trial without a result; upload them, or complete the run as cancelled or failed`,
    );
    await expect(client.runs.addResults(run.id, [{ case_index: 2, duration_ms: 1 }])).rejects.toThrow(
      'Service API error: 422 Validation error (results[0].case_index: the run has 2 cases (0-1))',
    );
    await expect(client.runs.addResults(run.id, [{ case_index: 1, duration_ms: 1, details: { regex: { score: 1 } } }])).rejects.toThrow(
      'results[0].details.regex: is not a scorer of case 1 (its scorers: contains)',
    );
    await client.runs.addResults(run.id, [{ case_index: 1, details: { contains: { score: 0.5 } }, duration_ms: 3 }]);
    const done = await client.runs.complete(run.id);
    expect(done).toMatchObject({ status: 'completed', summary: { total_cases: 2, passed: 1, failed: 1, avg_score: 0.75 } });
    expect(await client.runs.complete(run.id)).toMatchObject({ status: 'completed' });
    const { results } = await client.runs.results(run.id);
    expect(results.map((r) => [r.status, r.avg_score])).toEqual([
      ['passed', 1],
      ['failed', 0.5],
    ]);
    await expect(client.runs.addResults(run.id, [first])).rejects.toThrow(`Service API error: 409 Run ${run.id} is completed; results can no longer be added`);
  });

  it('cannot pause a local run; cancel ends it; the SPEC 400s apply', async () => {
    const run = await client.runs.createLocal({ agentId: 'my-script', dataset: { items }, scorers: ['contains'] });
    await expect(client.runs.pause(run.id)).rejects.toThrow(`Service API error: 409 Run ${run.id} is executed by its client and cannot be paused`);
    await expect(client.runs.cancel(run.id)).resolves.toMatchObject({ status: 'cancelled', accepted: true });
    expect(await client.runs.get(run.id)).toMatchObject({ status: 'cancelled', summary: { cancelled: 2 } });
    await expect(client.runs.createLocal({ agentId: '', dataset: { items }, scorers: ['contains'] })).rejects.toThrow(
      'Service API error: 400 agentId is required',
    );
    await expect(client.runs.createLocal({ agentId: 'x', dataset: { items: [] }, scorers: ['contains'] })).rejects.toThrow(
      'Service API error: 400 dataset.items is required and must not be empty',
    );
    await expect(client.runs.createLocal({ agentId: 'x', dataset: { items }, scorers: [] })).rejects.toThrow(
      'Service API error: 400 scorers is required and must not be empty',
    );
    await expect(client.runs.addResults('3dacd577-ba1c-4aa5-a78e-46c372f098d4', [{ case_index: 0, duration_ms: 1 }])).rejects.toThrow(
      'Service API error: 404 Eval run not found',
    );
  });
});

describe('managed runs: startRun() and waitForRun()', () => {
  it('runs a suite on the service workflows against a registered agent', async () => {
    await client.agents.create({ name: 'echo-bot', endpoint: agent.url });
    const suite = defineSuite({
      name: 'echo',
      scorers: ['contains', 'toolSelection'],
      cases: [
        { name: 'hi', input: 'hi', expected: { outputContains: ['hi'], toolCalls: ['lookup'] } },
        { name: 'no', input: 'no', expected: { outputContains: ['yes'] } },
      ],
    });
    const started = await startRun({ client, suite, agent: 'echo-bot', agentVersion: 'm1' });
    expect(started).toMatchObject({ execution: 'managed', status: 'pending' });
    const progress: string[] = [];
    const result = await waitForRun(started.id, { client, intervalMs: 200, timeoutMs: 100_000, onProgress: (s) => progress.push(s.status) });
    expect(result.run).toMatchObject({ status: 'completed', summary: { passed: 1, failed: 1 } });
    expect(result.cases.map((c) => c.status)).toEqual(['passed', 'failed']);
    expect(progress.at(-1)).toBe('completed');
    // A managed run is not a local one: its results come from its workflow.
    await expect(client.runs.addResults(started.id, [{ case_index: 0, duration_ms: 1 }])).rejects.toThrow(
      `Service API error: 409 Run ${started.id} is executed by the service; its workflow records its results`,
    );
  });
});

describe('client errors against the service', () => {
  it('401 says the key is invalid, 403 insufficient workspace permissions', async () => {
    const bad = new AgentEvalClient({ url: service.apiUrl, apiKey: 'ae_test_00000000000000000000000000000000' });
    const err = (await bad.runs.list().catch((e: unknown) => e)) as ServiceApiError;
    expect(err).toBeInstanceOf(ServiceApiError);
    expect(err.message).toBe('Service API error: 401 Invalid API key');
    expect([err.status, err.statusCode, err.code]).toEqual([401, 401, 'UNAUTHORIZED']);

    const viewerKey = await client.keys.create({ name: 'read only', role: 'viewer' });
    const viewer = new AgentEvalClient({ url: service.apiUrl, apiKey: viewerKey.key });
    await expect(viewer.runs.list()).resolves.toHaveProperty('runs');
    await expect(viewer.runs.createLocal({ agentId: 'x', dataset: { items: [{ input: 1 }] }, scorers: ['contains'] })).rejects.toThrow(
      'Service API error: 403 Insufficient workspace permissions: missing permission evals:run',
    );
    await expect(
      evaluate(defineSuite({ name: 'x', scorers: ['contains'], cases: [{ name: 'a', input: 1 }] }), { client: viewer, agent: () => 'a' }),
    ).rejects.toThrow('Evaluation run failed: Service API error: 403 Insufficient workspace permissions: missing permission evals:run');
    await client.keys.revoke(viewerKey.id);
  });
});

describe('the examples, run as child processes', () => {
  it('traced-agent.ts exports its trace', async () => {
    const { code, stdout, stderr } = await runExample('examples/traced-agent.ts', ['What is the weather in Lima?']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('It is cloudy in Lima, 18 °C.');
    const traceId = /trace ([0-9a-f]{32})/.exec(stdout)![1];
    const t = await traceWith(traceId, ['support session', 'weather agent', 'get_forecast']);
    expect(spanNamed(t, 'weather agent').resource_attributes['service.name']).toBe('weather-agent');
  });

  it('ci-suite.ts uploads a run and exits 0 when every case passed', async () => {
    const { code, stdout, stderr } = await runExample('examples/ci-suite.ts', ['ci-1']);
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toContain('PASS paris');
    const runId = /run ([0-9a-f-]{36}): 4\/4 passed/.exec(stdout)![1];
    expect(await client.runs.get(runId)).toMatchObject({ status: 'completed', agent_version: 'ci-1', execution: 'local' });
  });

  it('ci-suite.ts exits 1 with the SPEC message when the service refuses the key', async () => {
    const { code, stderr } = await runExample('examples/ci-suite.ts', [], { AGENT_EVAL_API_KEY: 'ae_test_00000000000000000000000000000000' });
    expect(code).toBe(1);
    expect(stderr).toContain('Evaluation run failed: Service API error: 401 Invalid API key');
  });

  it('experiment.ts runs both variants and the comparison finds the treatment better', async () => {
    const { code, stdout, stderr } = await runExample('examples/experiment.ts');
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/friendly vs plain: mean delta 0\.5, p=0\.00\d+, significant=true/);
    expect(stdout).toContain('winner: friendly');
  });
});
