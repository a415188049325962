import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmConversation } from '../../core/model/messages.js';
import { SPAN_TEXT_CAP } from '../../core/model/span-page.js';
import type { TraceSpanView } from '../../core/model/trace.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { loadFixture, specFromFixture, type ConventionFixture } from './helpers/fixtures.js';
import { exportVia, getSpan, getTrace, recordTrace, spanOf } from './helpers/otel.js';

/**
 * The conversation of a model call, read back through the API for every convention: spans of a
 * multi-turn conversation with a tool call and its result, recorded with the real OpenTelemetry
 * JS SDK and exported over OTLP into the real service (chDB + embedded PostgreSQL), or sent as
 * the SPEC's JSON ingest body; GET /api/traces/{id} and GET /api/spans/{id} show each as the one
 * message model (`llm`) its fixture names.
 */

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ AUTH_MODE: 'none' });
});
afterAll(async () => {
  await svc?.stop();
});

const expectedLlm = (f: ConventionFixture) => (f.expected as unknown as { llm: LlmConversation }).llm;

const OTEL = {
  genai: loadFixture('genai/chat-tool-call-messages'),
  genaiEvents: loadFixture('genai/chat-tool-call-events'),
  genaiLegacy: loadFixture('genai/legacy-tool-call-completion'),
  openinference: loadFixture('openinference/llm-tool-call-conversation'),
  openllmetry: loadFixture('openllmetry/openai-chat-tool-call'),
  vercelAi: loadFixture('vercel-ai/generate-text-tool-result'),
};

describe('GET /api/traces/{id} and GET /api/spans/{id} show each generation as messages', () => {
  it('OTLP: GenAI (attributes, events, flattened), OpenInference, OpenLLMetry and the AI SDK, each with its tool call and result', async () => {
    const project = 'llm-messages-otlp';
    const root = loadFixture('genai/invoke-agent');
    const rec = await recordTrace(root.resource, [
      specFromFixture(root, { key: 'agent', start: 0 }),
      ...Object.entries(OTEL).map(([key, f], i) => specFromFixture(f, { key, parent: 'agent', start: 100 + i * 2000 })),
    ]);
    await exportVia('http/protobuf', svc.otlpHttpUrl!, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project);
    expect(spanOf(trace, rec.ids.agent).llm).toBeNull();
    for (const [key, f] of Object.entries(OTEL)) {
      const span = spanOf(trace, rec.ids[key]);
      expect(span.convention, key).toBe(f.expected.convention);
      expect(span.llm, key).toEqual(expectedLlm(f));
      expect((await getSpan(svc, rec.ids[key], project)).llm, key).toEqual(expectedLlm(f));
    }

    // The OpenInference assistant turn whose only content is a tool call, and the tool message answering it.
    const oi = spanOf(trace, rec.ids.openinference).llm!;
    const call = oi.messages.findIndex((m) => m.tool_calls !== undefined);
    expect(oi.messages[call]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_W1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' }],
    });
    expect(oi.messages[call + 1]).toEqual({ role: 'tool', content: '{"temperature":14,"conditions":"rain"}', tool_call_id: 'call_W1' });
    expect(oi.output_messages[0].content).toContain('\n\nYes, pack an umbrella ☔');
  });

  it('the SPEC JSON ingest body: a generation whose input is the chat', async () => {
    const f = loadFixture('spec/generation-tool-call-messages') as ConventionFixture & { declaredFields: Record<string, unknown> };
    const start = Date.now() - 60_000;
    const body = {
      trace_id: 'llm-messages-spec',
      name: 'plan-trip',
      status: 'ok',
      duration_ms: 1900,
      start_time: new Date(start).toISOString(),
      spans: [
        {
          span_id: 'llm-messages-spec-gen',
          name: f.name,
          type: 'generation',
          start_time: new Date(start).toISOString(),
          end_time: new Date(start + 1900).toISOString(),
          attributes: f.attributes,
          ...f.declaredFields,
        },
      ],
    };
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
    expect(res.status, await res.clone().text()).toBe(201);

    const trace = await getTrace(svc, 'llm-messages-spec', svc.defaultProjectId);
    expect(spanOf(trace, 'llm-messages-spec-gen').llm).toEqual(expectedLlm(f));
    expect((await getSpan(svc, 'llm-messages-spec-gen', svc.defaultProjectId)).llm).toEqual(expectedLlm(f));
  });

  it('a conversation longer than the trace view shows: cut there and flagged, whole from GET /api/spans/{id}', async () => {
    const project = 'llm-messages-long';
    const f = OTEL.genai;
    const answer = `${'A long answer.\n\n'.repeat(2000)}THE END`;
    const output = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]);
    const rec = await recordTrace(f.resource, [specFromFixture(f, { key: 'llm', start: 0, attributes: { 'gen_ai.output.messages': output } })]);
    await exportVia('http/json', svc.otlpHttpUrl!, project, rec.spans);

    const shown = spanOf(await getTrace(svc, rec.traceId, project), rec.ids.llm) as TraceSpanView;
    expect(shown.llm?.truncated).toBe(true);
    expect(shown.llm?.messages).toEqual(expectedLlm(f).messages);
    // The stored output is gen_ai.output.messages itself (a large value is stored once), cut: no longer JSON, so shown as text.
    expect(shown.output_truncated).toBe(true);
    expect(shown.llm?.output_messages).toEqual([{ role: 'assistant', content: shown.output, finish_reason: 'stop' }]);
    expect(output.startsWith(shown.output)).toBe(true);
    expect(shown.output).toHaveLength(SPAN_TEXT_CAP);

    const whole = await getSpan(svc, rec.ids.llm, project);
    expect(whole.llm?.truncated).toBeUndefined();
    expect(whole.llm?.output_messages).toEqual([{ role: 'assistant', content: answer, finish_reason: 'stop' }]);
  });
});
