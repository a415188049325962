import { describe, expect, it } from 'vitest';
import { genai } from '../../../collector/normalize/conventions/genai.js';
import { PRECEDENCE, normalizeSpan } from '../../../collector/normalize/index.js';
import type { SpanRecord } from '../../../core/model/span.js';
import { fixture } from './load-fixtures.js';
import { rawSpan } from './span-builder.js';

/** The store's trace totals (sums over generations, counts of generations and tools). */
function totals(spans: SpanRecord[]) {
  const generations = spans.filter((s) => s.span_type === 'generation');
  return {
    input: generations.reduce((n, s) => n + s.input_tokens, 0),
    output: generations.reduce((n, s) => n + s.output_tokens, 0),
    llmCalls: generations.length,
    toolCalls: spans.filter((s) => s.span_type === 'tool').length,
  };
}

const norm = (raw: Parameters<typeof normalizeSpan>[0]) => normalizeSpan(raw, 'p');

describe('precedence', () => {
  it('is spec (declared), openinference, vercel-ai, openllmetry, genai, spec (attributes)', () => {
    expect(PRECEDENCE.map((m) => m.name)).toEqual(['spec', 'openinference', 'vercel-ai', 'openllmetry', 'genai', 'spec']);
  });

  it('lets the AI SDK classify its doGenerate span although it also carries gen_ai.*', () => {
    const { raw } = fixture('vercel-ai/generate-text-do-generate.json');
    expect(genai.detect(raw)).toBe(true);
    expect(norm(raw)).toMatchObject({ convention: 'vercel-ai', span_type: 'generation' });
  });

  it('counts an AI SDK call once: the wrapper reports totals but only doGenerate is a generation', () => {
    const spans = ['generate-text.json', 'generate-text-do-generate.json', 'tool-call.json'].map((f) => norm(fixture(`vercel-ai/${f}`).raw));
    expect(totals(spans)).toEqual({ input: 120, output: 25, llmCalls: 1, toolCalls: 1 });
    // Tokens live only on generations, so even a naive sum over every span cannot double count.
    expect(spans.reduce((n, s) => n + s.input_tokens, 0)).toBe(120);
  });

  it('prefers openinference.span.kind over the AI SDK ids it was added to', () => {
    const doGenerate = fixture('vercel-ai/generate-text-do-generate.json').raw;
    const wrapper = fixture('vercel-ai/generate-text.json').raw;
    expect(norm({ ...doGenerate, attributes: { ...doGenerate.attributes, 'openinference.span.kind': 'LLM' } })).toMatchObject({
      convention: 'openinference',
      span_type: 'generation',
      model: 'gpt-4o-2024-08-06',
      input_tokens: 120,
      output_tokens: 25,
    });
    expect(norm({ ...wrapper, attributes: { ...wrapper.attributes, 'openinference.span.kind': 'CHAIN' } })).toMatchObject({
      convention: 'openinference',
      span_type: 'span',
      input_tokens: 0,
    });
  });

  it('lets OpenLLMetry classify its provider spans, which also match genai', () => {
    const { raw } = fixture('openllmetry/openai-chat.json');
    expect(genai.detect(raw)).toBe(true);
    expect(norm(raw).convention).toBe('openllmetry');
  });

  it('keeps a Traceloop workflow a span even when it reports gen_ai usage totals', () => {
    const { raw } = fixture('openllmetry/workflow.json');
    const withTotals = { ...raw, attributes: { ...raw.attributes, 'gen_ai.usage.input_tokens': 500, 'gen_ai.usage.output_tokens': 80 } };
    expect(norm(withTotals)).toMatchObject({ convention: 'openllmetry', span_type: 'span', input_tokens: 0, output_tokens: 0 });
  });

  it('honours a declared type over every convention, filling fields from the others', () => {
    const { raw } = fixture('genai/chat-input-messages.json');
    expect(norm({ ...raw, declaredType: 'tool' })).toMatchObject({
      convention: 'spec',
      span_type: 'tool',
      component_type: 'tool',
      model: 'gpt-4o-mini-2024-07-18',
      input_tokens: 0,
    });
    expect(norm({ ...raw, declaredType: 'generation' })).toMatchObject({ convention: 'spec', span_type: 'generation', input_tokens: 52, output_tokens: 11 });
  });

  it('reads bare SPEC attribute names only when no instrumentation convention is present', () => {
    const span = rawSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', type: 'tool', tool_name: 'x', model: 'other' });
    expect(norm(span)).toMatchObject({ convention: 'genai', span_type: 'generation', model: 'gpt-4o' });
    expect(norm(rawSpan({ type: 'tool' }))).toMatchObject({ convention: 'spec', span_type: 'tool' });
  });

  it('fills fields the winning convention lacks from the others the span carries', () => {
    const span = rawSpan({
      'openinference.span.kind': 'LLM',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 3,
    });
    expect(norm(span)).toMatchObject({ convention: 'openinference', model: 'gpt-4o', input_tokens: 9, output_tokens: 3 });
  });

  it('falls back to none for spans with no known convention', () => {
    expect(norm(rawSpan({ 'http.method': 'GET', type: 'http' }))).toMatchObject({
      convention: 'none',
      span_type: 'span',
      component_type: null,
      model: null,
      input: '',
      output: '',
    });
  });
});

describe('AI SDK 7 (@ai-sdk/otel) span tree', () => {
  /** What the agent span and its inference span both report: the provider, the model and the call's usage. */
  const gpt4oCall = {
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 300,
    'gen_ai.usage.output_tokens': 60,
  };
  const root = rawSpan({ 'gen_ai.operation.name': 'invoke_agent', ...gpt4oCall }, { name: 'invoke_agent gpt-4o', spanId: 'a000000000000001' });
  const step = rawSpan(
    {
      'gen_ai.operation.name': 'agent_step',
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'gpt-4o',
      'ai.usage.inputTokens': 300,
      'ai.usage.outputTokens': 60,
    },
    { name: 'step 1', spanId: 'a000000000000002' },
  );
  const chat = rawSpan({ 'gen_ai.operation.name': 'chat', ...gpt4oCall }, { name: 'chat gpt-4o', spanId: 'a000000000000003', kind: 'client' });
  const tool = rawSpan(
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'getWeather',
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'getWeather',
      'ai.toolCall.args': '{}',
    },
    { name: 'execute_tool getWeather', spanId: 'a000000000000004' },
  );

  it('counts only the inference span as a generation', () => {
    const spans = [root, step, chat, tool].map(norm);
    expect(spans.map((s) => [s.convention, s.span_type])).toEqual([
      ['genai', 'span'],
      ['vercel-ai', 'span'],
      ['genai', 'generation'],
      ['vercel-ai', 'tool'],
    ]);
    expect(totals(spans)).toEqual({ input: 300, output: 60, llmCalls: 1, toolCalls: 1 });
  });

  it('treats the root as a wrapper with or without the legacy ai.* attributes', () => {
    const legacy = { ...root, attributes: { ...root.attributes, 'ai.operationId': 'ai.generateText' } };
    expect(norm(legacy)).toMatchObject({ convention: 'vercel-ai', span_type: 'span', input_tokens: 0 });
  });
});
