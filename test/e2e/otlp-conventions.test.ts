import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceDetail } from '../../core/model/trace.js';
import { exportSpans } from '../fixtures/otlp/sdk.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { asStoredText, expectLikeFixture, loadFixture, specFromFixture } from './helpers/fixtures.js';
import { exportVia, getTrace, recordTrace, spanOf, SpanKind, SpanStatusCode, traceCount, type RecordedTrace, type SpanSpec } from './helpers/otel.js';

/**
 * The OTLP collector end to end: agent traces in each instrumentation convention, recorded and
 * exported by the real OpenTelemetry JS SDK (gRPC, HTTP protobuf, HTTP JSON exporters) into the
 * real service (chDB + embedded PostgreSQL), then read back through GET /api/traces/{id} the way
 * a user looks at them.
 */

let svc: TestService;
/** The dedicated OTLP/gRPC port, the dedicated OTLP/HTTP port, and the API port (which also serves /v1/traces). */
let grpc: string;
let otlpHttp: string;
let apiHttp: string;

beforeAll(async () => {
  // Without credentials: these tests look at what exporters send (auth.test.ts exports with keys).
  svc = await startTestService({ AUTH_MODE: 'none' });
  grpc = svc.otlpGrpcAddress!;
  otlpHttp = svc.otlpHttpUrl!;
  apiHttp = svc.apiUrl!;
});
afterAll(async () => {
  await svc?.stop();
});

const fx = {
  invokeAgent: loadFixture('genai/invoke-agent'),
  chat: loadFixture('genai/chat-input-messages'),
  executeTool: loadFixture('genai/execute-tool'),
  legacyPrompt: loadFixture('genai/legacy-prompt-attributes'),
  chatException: loadFixture('genai/chat-events-exception'),
  oiAgent: loadFixture('openinference/agent-with-totals'),
  oiLlm: loadFixture('openinference/llm-openai'),
  oiTool: loadFixture('openinference/tool'),
  oiRetriever: loadFixture('openinference/retriever'),
  aiGenerateText: loadFixture('vercel-ai/generate-text'),
  aiDoGenerate: loadFixture('vercel-ai/generate-text-do-generate'),
  aiToolCall: loadFixture('vercel-ai/tool-call'),
  tlWorkflow: loadFixture('openllmetry/workflow'),
  tlChat: loadFixture('openllmetry/openai-chat'),
  tlTool: loadFixture('openllmetry/tool'),
  specTool: loadFixture('spec/tool-name-attributes'),
  specRouting: loadFixture('spec/routing-attribute'),
};

/** Attributes no convention knows: they must come back as they were sent (as text). */
const UNKNOWN = { 'app.customer_tier': 'gold', 'app.retry_budget': 3, 'app.ratio': 0.25, 'app.beta': true, 'app.tags': ['a', 'b'] };

/** The trace answers 404 TRACE_NOT_FOUND to every project but its own. */
async function expectHiddenFrom(traceId: string, ...projects: string[]): Promise<void> {
  for (const project of projects) {
    const res = await svc.api(`/api/traces/${traceId}`, { project });
    expect(res.status, `project ${project}`).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'TRACE_NOT_FOUND' });
  }
}

function parentOf(detail: TraceDetail, rec: RecordedTrace, key: string): string | null {
  return spanOf(detail, rec.ids[key]).parent_span_id;
}

describe('each convention, exported by the real SDK and read back through the API', () => {
  it('OpenTelemetry GenAI over gRPC: invoke_agent -> chat + execute_tool + old gen_ai.prompt.N call + a failed call', async () => {
    const project = 'e2e-genai';
    const rec = await recordTrace({ ...fx.invokeAgent.resource, 'deployment.environment': 'e2e' }, [
      specFromFixture(fx.invokeAgent, { key: 'agent', start: 0, attributes: UNKNOWN }),
      specFromFixture(fx.chat, { key: 'chat', parent: 'agent', start: 100 }),
      specFromFixture(fx.executeTool, { key: 'tool', parent: 'agent', start: 1000 }),
      specFromFixture(fx.legacyPrompt, { key: 'legacy', parent: 'agent', start: 1200 }),
      // The failing call as the SDK records it: recordException + status ERROR without a message.
      {
        ...specFromFixture(fx.chatException, { key: 'failed', parent: 'agent', start: 2100 }),
        events: specFromFixture(fx.chatException, { key: 'failed', start: 2100 }).events!.filter((e) => e.name !== 'exception'),
        exception: Object.assign(new Error('Error code: 429 - Rate limit reached for gpt-4o'), { name: 'RateLimitError' }),
        status: { code: SpanStatusCode.ERROR },
      },
    ]);
    await exportVia('grpc', grpc, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      trace_id: rec.traceId,
      name: 'invoke_agent travel_agent',
      status: 'error',
      duration_ms: 5400,
      span_count: 5,
      error_count: 1,
      // chat + legacy call + failed call; the invoke_agent wrapper's 1200/300 are its children's, not counted.
      llm_call_count: 3,
      tool_call_count: 1,
      total_input_tokens: 52 + 25,
      total_output_tokens: 11 + 9,
    });
    expect(trace.start_time).toBe(new Date(rec.baseMs).toISOString());
    expect(trace.spans).toHaveLength(5);
    // Trace attributes are the root span's resource attributes.
    expect(trace.attributes).toMatchObject({ 'service.name': 'travel-agent', 'deployment.environment': 'e2e' });

    const agent = spanOf(trace, rec.ids.agent);
    expectLikeFixture(agent, fx.invokeAgent);
    expect(agent.parent_span_id).toBeNull();
    // Unknown attributes and the wrapper's own usage figures are kept, as text.
    expect(agent.attributes).toMatchObject({ ...asStoredText(UNKNOWN), 'gen_ai.usage.input_tokens': '1200', 'gen_ai.agent.name': 'travel_agent' });
    expect(agent.attributes['app.tags']).toBe('["a","b"]');
    expect(agent.resource_attributes).toMatchObject({ 'service.name': 'travel-agent', 'deployment.environment': 'e2e' });

    for (const [key, f] of [
      ['chat', fx.chat],
      ['tool', fx.executeTool],
      ['legacy', fx.legacyPrompt],
      ['failed', fx.chatException],
    ] as const) {
      const span = spanOf(trace, rec.ids[key]);
      expectLikeFixture(span, f);
      expect(span.parent_span_id, key).toBe(rec.ids.agent);
      expect(span.resource_attributes['service.name'], key).toBe('travel-agent');
    }
    const chat = spanOf(trace, rec.ids.chat);
    expect(chat.scope).toEqual({ name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' });
    expect(chat.attributes).toMatchObject({ 'gen_ai.response.finish_reasons': '["stop"]', 'server.port': '443', 'gen_ai.request.temperature': '0.2' });

    const failed = spanOf(trace, rec.ids.failed);
    expect(failed).toMatchObject({ status: 'error', status_message: 'Error code: 429 - Rate limit reached for gpt-4o', kind: 'client' });
    const exception = failed.events.find((e) => e.name === 'exception');
    expect(exception?.attributes).toMatchObject({ 'exception.type': 'RateLimitError', 'exception.message': 'Error code: 429 - Rate limit reached for gpt-4o' });
    expect(exception?.attributes['exception.stacktrace']).toEqual(expect.stringContaining('Rate limit reached'));
    expect(failed.events.map((e) => e.name)).toEqual(['gen_ai.system.message', 'gen_ai.user.message', 'exception']);

    // Other spans stay ok.
    expect(trace.spans.filter((s) => s.status === 'error').map((s) => s.span_id)).toEqual([rec.ids.failed]);
    await expectHiddenFrom(rec.traceId, 'e2e-other', svc.defaultProjectId);
  });

  it('OpenInference over HTTP protobuf: AGENT -> LLM + TOOL + RETRIEVER', async () => {
    const project = 'e2e-openinference';
    const rec = await recordTrace(fx.oiAgent.resource, [
      specFromFixture(fx.oiAgent, { key: 'agent', start: 0, attributes: { 'app.request_id': 'req-77' } }),
      specFromFixture(fx.oiRetriever, { key: 'retriever', parent: 'agent', start: 50 }),
      specFromFixture(fx.oiLlm, { key: 'llm', parent: 'agent', start: 200 }),
      specFromFixture(fx.oiTool, { key: 'tool', parent: 'agent', start: 1100 }),
    ]);
    await exportVia('http/protobuf', otlpHttp, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'AgentExecutor',
      status: 'ok',
      error_count: 0,
      span_count: 4,
      duration_ms: 4200,
      llm_call_count: 1,
      tool_call_count: 1,
      // Only the LLM span's own counts; the AGENT span's aggregate 830 / 95 is not added.
      total_input_tokens: 24,
      total_output_tokens: 7,
    });
    expectLikeFixture(spanOf(trace, rec.ids.agent), fx.oiAgent);
    expect(spanOf(trace, rec.ids.agent).attributes).toMatchObject({ 'llm.token_count.total': '925', 'session.id': 'sess-42', 'app.request_id': 'req-77' });
    for (const [key, f] of [
      ['retriever', fx.oiRetriever],
      ['llm', fx.oiLlm],
      ['tool', fx.oiTool],
    ] as const) {
      expectLikeFixture(spanOf(trace, rec.ids[key]), f);
      expect(parentOf(trace, rec, key)).toBe(rec.ids.agent);
    }
    // Spans come back ordered by start time.
    expect(trace.spans.map((s) => s.span_id)).toEqual([rec.ids.agent, rec.ids.retriever, rec.ids.llm, rec.ids.tool]);
    expect(spanOf(trace, rec.ids.tool).scope).toEqual({ name: 'openinference.instrumentation.langchain', version: '0.1.29' });
    expect(spanOf(trace, rec.ids.llm).resource_attributes).toMatchObject({ 'service.name': 'support-bot', 'openinference.project.name': 'support-bot' });
    await expectHiddenFrom(rec.traceId, 'e2e-genai');
  });

  it('Vercel AI SDK over HTTP JSON: usage on the ai.generateText wrapper AND on each doGenerate is counted once', async () => {
    const project = 'e2e-vercel-ai';
    const secondCall = {
      'ai.prompt.messages':
        '[{"role":"user","content":[{"type":"text","text":"What is the weather in Paris?"}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"call_1","toolName":"getWeather","result":{"temperature":57}}]}]',
      'ai.response.finishReason': 'stop',
      'ai.response.text': 'It is rainy and 57°F in Paris.',
      'ai.response.id': 'chatcmpl-AQ2',
      'ai.usage.promptTokens': 60,
      'ai.usage.completionTokens': 15,
      'gen_ai.response.id': 'chatcmpl-AQ2',
      'gen_ai.usage.input_tokens': 60,
      'gen_ai.usage.output_tokens': 15,
    };
    const rec = await recordTrace(fx.aiGenerateText.resource, [
      // The wrapper reports the sum of both steps (120 + 60, 25 + 15), as ai.generateText does.
      specFromFixture(fx.aiGenerateText, { key: 'wrapper', start: 0 }),
      specFromFixture(fx.aiDoGenerate, { key: 'step1', parent: 'wrapper', start: 10 }),
      specFromFixture(fx.aiToolCall, { key: 'tool', parent: 'wrapper', start: 1150 }),
      specFromFixture(fx.aiDoGenerate, { key: 'step2', parent: 'wrapper', start: 1290, attributes: secondCall }),
    ]);
    expect(fx.aiGenerateText.attributes).toMatchObject({ 'ai.usage.promptTokens': 180, 'ai.usage.completionTokens': 40 });
    await exportVia('http/json', otlpHttp, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'ai.generateText',
      status: 'ok',
      span_count: 4,
      llm_call_count: 2,
      tool_call_count: 1,
      total_input_tokens: 180,
      total_output_tokens: 40,
    });
    const wrapper = spanOf(trace, rec.ids.wrapper);
    expectLikeFixture(wrapper, fx.aiGenerateText);
    expect(wrapper.attributes).toMatchObject({ 'ai.usage.promptTokens': '180', 'ai.usage.completionTokens': '40', 'ai.telemetry.metadata.userId': 'u_123' });
    expectLikeFixture(spanOf(trace, rec.ids.step1), fx.aiDoGenerate);
    expectLikeFixture(spanOf(trace, rec.ids.tool), fx.aiToolCall);
    expect(spanOf(trace, rec.ids.step2)).toMatchObject({
      type: 'generation',
      convention: 'vercel-ai',
      model: 'gpt-4o-2024-08-06',
      input_tokens: 60,
      output_tokens: 15,
      input: secondCall['ai.prompt.messages'],
      output: 'It is rainy and 57°F in Paris.',
    });
    for (const key of ['step1', 'tool', 'step2']) expect(parentOf(trace, rec, key)).toBe(rec.ids.wrapper);
    // ai.prompt.tools is a string array attribute: kept as JSON text.
    expect(JSON.parse(spanOf(trace, rec.ids.step1).attributes['ai.prompt.tools'])).toEqual(fx.aiDoGenerate.attributes['ai.prompt.tools']);
    expect(wrapper.scope).toEqual({ name: 'ai', version: '' });
    expect(wrapper.resource_attributes).toMatchObject({ 'service.name': 'weather-app' });
  });

  it("Vercel AI SDK spans also carrying the OpenInference span processor's attributes: still counted once", async () => {
    const project = 'e2e-vercel-openinference';
    // What @arizeai/openinference-vercel's OpenInferenceSpanProcessor adds to the AI SDK's own attributes.
    const rec = await recordTrace(fx.aiGenerateText.resource, [
      specFromFixture(fx.aiGenerateText, {
        key: 'wrapper',
        start: 0,
        attributes: {
          'openinference.span.kind': 'AGENT',
          'llm.model_name': 'gpt-4o',
          'llm.token_count.prompt': 180,
          'llm.token_count.completion': 40,
          'llm.token_count.total': 220,
          'input.value': fx.aiGenerateText.attributes['ai.prompt'] as string,
          'output.value': 'It is rainy and 57°F in Paris.',
        },
      }),
      specFromFixture(fx.aiDoGenerate, {
        key: 'llm',
        parent: 'wrapper',
        start: 10,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'llm.provider': 'openai',
          'llm.token_count.prompt': 120,
          'llm.token_count.completion': 25,
          'llm.token_count.total': 145,
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'You are a weather bot.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'What is the weather in Paris?',
          'output.value': 'It is rainy and 57°F in Paris.',
        },
      }),
      specFromFixture(fx.aiToolCall, {
        key: 'tool',
        parent: 'wrapper',
        start: 1150,
        attributes: {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'getWeather',
          'tool_call.id': 'call_1',
          'input.value': '{"city":"Paris"}',
          'output.value': '{"temperature":57,"conditions":"rainy"}',
        },
      }),
    ]);
    await exportVia('http/protobuf', otlpHttp, project, rec.spans, true);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'ai.generateText',
      span_count: 3,
      llm_call_count: 1,
      tool_call_count: 1,
      total_input_tokens: 120,
      total_output_tokens: 25,
    });
    expect(spanOf(trace, rec.ids.wrapper)).toMatchObject({
      type: 'span',
      component_type: null,
      convention: 'openinference',
      input_tokens: 0,
      output_tokens: 0,
    });
    expect(spanOf(trace, rec.ids.llm)).toMatchObject({
      type: 'generation',
      convention: 'openinference',
      model: 'gpt-4o',
      input_tokens: 120,
      output_tokens: 25,
      output: 'It is rainy and 57°F in Paris.',
    });
    expect(JSON.parse(spanOf(trace, rec.ids.llm).input)).toEqual([
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    expect(spanOf(trace, rec.ids.tool)).toMatchObject({ type: 'tool', convention: 'openinference', input: '{"city":"Paris"}' });
  });

  it('OpenLLMetry / Traceloop over HTTP protobuf to the API port: workflow -> task -> chat LLM span, and a tool', async () => {
    const project = 'e2e-openllmetry';
    const rec = await recordTrace(fx.tlWorkflow.resource, [
      specFromFixture(fx.tlWorkflow, { key: 'workflow', start: 0 }),
      {
        key: 'task',
        parent: 'workflow',
        name: 'create_joke.task',
        scope: { name: 'traceloop.tracer' },
        attributes: {
          'traceloop.span.kind': 'task',
          'traceloop.workflow.name': 'joke_generator',
          'traceloop.entity.name': 'create_joke',
          'traceloop.entity.path': 'joke_generator',
          'traceloop.entity.input': '{"args": [], "kwargs": {}}',
          'traceloop.entity.output': '"Why did the span break up with the trace? It needed more context."',
        },
        start: 20,
        end: 1000,
      },
      specFromFixture(fx.tlChat, { key: 'llm', parent: 'task', start: 50 }),
      specFromFixture(fx.tlTool, { key: 'tool', parent: 'workflow', start: 1100 }),
    ]);
    expect(fx.tlChat.attributes).toMatchObject({ 'llm.usage.total_tokens': 35, 'llm.request.type': 'chat', 'gen_ai.system': 'openai' });
    await exportVia('http/protobuf', apiHttp, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'joke_generator.workflow',
      status: 'ok',
      span_count: 4,
      duration_ms: 1500,
      llm_call_count: 1,
      tool_call_count: 1,
      total_input_tokens: 13,
      total_output_tokens: 22,
    });
    expectLikeFixture(spanOf(trace, rec.ids.workflow), fx.tlWorkflow);
    expect(spanOf(trace, rec.ids.workflow).attributes['traceloop.association.properties.user_id']).toBe('user-12');
    expect(spanOf(trace, rec.ids.task)).toMatchObject({
      parent_span_id: rec.ids.workflow,
      type: 'span',
      component_type: null,
      convention: 'openllmetry',
      model: null,
      input_tokens: 0,
      output_tokens: 0,
      input: '{"args": [], "kwargs": {}}',
      output: '"Why did the span break up with the trace? It needed more context."',
      scope: { name: 'traceloop.tracer', version: '' },
    });
    expectLikeFixture(spanOf(trace, rec.ids.llm), fx.tlChat);
    expect(parentOf(trace, rec, 'llm')).toBe(rec.ids.task);
    expect(spanOf(trace, rec.ids.llm).attributes).toMatchObject({
      'llm.usage.total_tokens': '35',
      'llm.is_streaming': 'false',
      'gen_ai.request.temperature': '0.7',
    });
    expectLikeFixture(spanOf(trace, rec.ids.tool), fx.tlTool);
    expect(parentOf(trace, rec, 'tool')).toBe(rec.ids.workflow);
  });

  it('SPEC attribute conventions over gRPC with gzip: tool_name tools, tool_status error, a model + tokens generation', async () => {
    const project = 'e2e-spec';
    const rec = await recordTrace({ 'service.name': 'travel-agent', 'telemetry.sdk.language': 'nodejs' }, [
      { key: 'root', name: 'plan-trip-agent', scope: { name: 'my-agent', version: '1.0.0' }, kind: SpanKind.SERVER, start: 0, end: 31_000 },
      specFromFixture(fx.specRouting, { key: 'route', parent: 'root', start: 5 }),
      {
        key: 'gen',
        parent: 'root',
        name: 'plan-trip',
        scope: { name: 'my-agent', version: '1.0.0' },
        attributes: {
          model: 'claude-3-5-sonnet',
          input: 'Plan a weekend in Lisbon',
          output: 'Day 1: Alfama. Day 2: Belém.',
          input_tokens: 120,
          output_tokens: 45,
          temperature: 0.3,
          stop_reason: 'end_turn',
        },
        start: 10,
        end: 2010,
      },
      specFromFixture(fx.specTool, { key: 'calc', parent: 'root', start: 2100 }),
      {
        key: 'failedTool',
        parent: 'root',
        name: 'search_flights',
        scope: { name: 'my-agent', version: '1.0.0' },
        attributes: {
          tool_name: 'search_flights',
          tool_input: '{"from":"SFO","to":"LIS","date":"2025-03-01"}',
          tool_output: '{"error":"timeout"}',
          tool_status: 'error',
          error_message: 'upstream timeout after 30s',
        },
        start: 2200,
        end: 30_200,
      },
    ]);
    await exportVia('grpc', grpc, project, rec.spans, true);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'plan-trip-agent',
      status: 'error',
      error_count: 1,
      span_count: 5,
      llm_call_count: 1,
      tool_call_count: 2,
      total_input_tokens: 120,
      total_output_tokens: 45,
    });
    expect(spanOf(trace, rec.ids.root)).toMatchObject({ type: 'span', component_type: null, convention: 'none', kind: 'server', status: 'ok' });
    expectLikeFixture(spanOf(trace, rec.ids.route), fx.specRouting);
    expectLikeFixture(spanOf(trace, rec.ids.calc), fx.specTool);
    expect(spanOf(trace, rec.ids.calc).attributes).toMatchObject({
      skill_category: 'math',
      selection_confidence: '0.92',
      alternatives_considered: '["web_search","python"]',
    });
    expect(spanOf(trace, rec.ids.gen)).toMatchObject({
      type: 'generation',
      component_type: 'generation',
      convention: 'spec',
      model: 'claude-3-5-sonnet',
      input: 'Plan a weekend in Lisbon',
      output: 'Day 1: Alfama. Day 2: Belém.',
      input_tokens: 120,
      output_tokens: 45,
    });
    expect(spanOf(trace, rec.ids.gen).attributes).toMatchObject({ temperature: '0.3', stop_reason: 'end_turn' });
    expect(spanOf(trace, rec.ids.failedTool)).toMatchObject({
      parent_span_id: rec.ids.root,
      type: 'tool',
      component_type: 'tool',
      convention: 'spec',
      status: 'error',
      status_message: 'upstream timeout after 30s',
      duration_ms: 28_000,
      input: '{"from":"SFO","to":"LIS","date":"2025-03-01"}',
      output: '{"error":"timeout"}',
    });
  });

  it('an export without a project header lands in the default project, and only there', async () => {
    const rec = await recordTrace({ 'service.name': 'no-header-agent' }, [specFromFixture(fx.executeTool, { key: 'tool', start: 0 })]);
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
    const exporter = new OTLPTraceExporter({ url: `${otlpHttp}/v1/traces` });
    try {
      expect(await exportSpans(exporter, rec.spans)).toEqual({ code: 0 });
    } finally {
      await exporter.shutdown();
    }
    const trace = await getTrace(svc, rec.traceId, svc.defaultProjectId);
    expect(trace).toMatchObject({ name: 'execute_tool get_weather', tool_call_count: 1, span_count: 1 });
    await expectHiddenFrom(rec.traceId, 'e2e-genai', 'e2e-other');
  });
});

describe('assembly, retries and isolation', () => {
  /** root -> step -> (chat, tool): a small GenAI agent run. */
  async function agentRun(service: string): Promise<RecordedTrace> {
    return recordTrace({ 'service.name': service }, [
      specFromFixture(fx.invokeAgent, { key: 'root', start: 0 }),
      { key: 'step', parent: 'root', name: 'agent_step', scope: { name: 'my-agent', version: '2.0.0' }, attributes: { 'app.step': 1 }, start: 10, end: 2000 },
      specFromFixture(fx.chat, { key: 'chat', parent: 'step', start: 20 }),
      specFromFixture(fx.executeTool, { key: 'tool', parent: 'step', start: 900 }),
    ]);
  }

  it('assembles one trace from spans split over several exports and transports, children before parents', async () => {
    const project = 'e2e-assembly';
    const rec = await agentRun('split-agent');
    const { chat, tool, step, root } = rec.byKey;

    // Leaves first over gRPC: the trace exists already, without its root.
    await exportVia('grpc', grpc, project, [tool]);
    await exportVia('grpc', grpc, project, [chat]);
    const partial = await getTrace(svc, rec.traceId, project);
    expect(partial).toMatchObject({ span_count: 2, llm_call_count: 1, tool_call_count: 1, total_input_tokens: 52 });
    expect(partial.spans.every((s) => s.parent_span_id === rec.ids.step)).toBe(true);

    // Then the middle over HTTP JSON, and the root last over HTTP protobuf on the API port.
    await exportVia('http/json', otlpHttp, project, [step]);
    await exportVia('http/protobuf', apiHttp, project, [root]);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'invoke_agent travel_agent',
      status: 'ok',
      span_count: 4,
      duration_ms: 5400,
      llm_call_count: 1,
      tool_call_count: 1,
      total_input_tokens: 52,
      total_output_tokens: 11,
    });
    expect(trace.start_time).toBe(new Date(rec.baseMs).toISOString());
    expect(Object.fromEntries(trace.spans.map((s) => [s.span_id, s.parent_span_id]))).toEqual({
      [rec.ids.root]: null,
      [rec.ids.step]: rec.ids.root,
      [rec.ids.chat]: rec.ids.step,
      [rec.ids.tool]: rec.ids.step,
    });
    expect(spanOf(trace, rec.ids.step).attributes['app.step']).toBe('1');
    // One trace, not one per export.
    expect(await traceCount(svc, project)).toBe(1);
  });

  it('assembles one trace from many concurrent exports of its parts over every transport', async () => {
    const project = 'e2e-concurrent';
    const specs: SpanSpec[] = [specFromFixture(fx.invokeAgent, { key: 'root', start: 0 })];
    for (let i = 0; i < 40; i++) {
      const f = i % 2 === 0 ? fx.chat : fx.executeTool;
      specs.push(specFromFixture(f, { key: `c${i}`, parent: 'root', start: 10 + i * 100 }));
    }
    const rec = await recordTrace({ 'service.name': 'concurrent-agent' }, specs);
    const parts = Array.from({ length: 10 }, (_, p) => rec.spans.filter((_, i) => i % 10 === p));
    const routes = [
      (spans: ReadableSpan[]) => exportVia('grpc', grpc, project, spans),
      (spans: ReadableSpan[]) => exportVia('http/protobuf', otlpHttp, project, spans),
      (spans: ReadableSpan[]) => exportVia('http/json', apiHttp, project, spans, true),
      (spans: ReadableSpan[]) => exportVia('http/protobuf', apiHttp, project, spans, true),
    ];
    await Promise.all(parts.map((part, p) => routes[p % routes.length](part)));

    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({
      name: 'invoke_agent travel_agent',
      span_count: 41,
      llm_call_count: 20,
      tool_call_count: 20,
      total_input_tokens: 20 * 52,
      total_output_tokens: 20 * 11,
      duration_ms: 5400,
    });
    expect(trace.spans.filter((s) => s.parent_span_id === rec.ids.root)).toHaveLength(40);
    expect(await traceCount(svc, project)).toBe(1);
  });

  it('a span with only an exception event (status left unset, as many SDKs do) makes span and trace errors', async () => {
    const project = 'e2e-exception-only';
    const rec = await recordTrace({ 'service.name': 'exception-agent' }, [
      specFromFixture(fx.aiGenerateText, { key: 'wrapper', start: 0 }),
      { ...specFromFixture(fx.aiToolCall, { key: 'tool', parent: 'wrapper', start: 100 }), exception: new TypeError('city must be a string') },
    ]);
    await exportVia('http/json', otlpHttp, project, rec.spans);
    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({ status: 'error', error_count: 1, tool_call_count: 1, llm_call_count: 0, total_input_tokens: 0 });
    expect(spanOf(trace, rec.ids.tool)).toMatchObject({ type: 'tool', status: 'error', status_message: 'city must be a string' });
    expect(spanOf(trace, rec.ids.tool).events[0].attributes).toMatchObject({ 'exception.type': 'TypeError' });
    expect(spanOf(trace, rec.ids.wrapper)).toMatchObject({ status: 'ok', status_message: null, input_tokens: 0 });
  });

  it('an OTLP retry (the same batch exported again, over any transport) changes nothing', async () => {
    const project = 'e2e-retry';
    const rec = await agentRun('retry-agent');
    await exportVia('http/protobuf', otlpHttp, project, rec.spans);
    const first = await getTrace(svc, rec.traceId, project);
    expect(first).toMatchObject({ span_count: 4, llm_call_count: 1, tool_call_count: 1, total_input_tokens: 52, total_output_tokens: 11 });

    await exportVia('http/protobuf', otlpHttp, project, rec.spans);
    await exportVia('grpc', grpc, project, rec.spans);
    await exportVia('http/json', apiHttp, project, rec.spans, true);
    const again = await getTrace(svc, rec.traceId, project);
    expect(again.spans).toHaveLength(4);
    expect(again).toEqual(first);
    expect(await traceCount(svc, project)).toBe(1);
  });

  it('another project cannot read the trace, list it, or change it', async () => {
    const rec = await agentRun('private-agent');
    await exportVia('grpc', grpc, 'e2e-tenant-a', rec.spans);
    const own = await getTrace(svc, rec.traceId, 'e2e-tenant-a');
    expect(own.span_count).toBe(4);

    await expectHiddenFrom(rec.traceId, 'e2e-tenant-b', svc.defaultProjectId);
    const list = await svc.api('/api/traces?limit=1000', { project: 'e2e-tenant-b' });
    expect(((await list.json()) as { traces: Array<{ trace_id: string }> }).traces.map((t) => t.trace_id)).not.toContain(rec.traceId);

    // The same ids sent under project B are B's own trace; A's stays as it was.
    await exportVia('http/protobuf', otlpHttp, 'e2e-tenant-b', [rec.byKey.chat]);
    expect(await getTrace(svc, rec.traceId, 'e2e-tenant-b')).toMatchObject({ span_count: 1, llm_call_count: 1 });
    expect(await getTrace(svc, rec.traceId, 'e2e-tenant-a')).toEqual(own);
  });
});
