import { describe, expect, it } from 'vitest';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import type { AttrValue, Attributes, RawSpan } from '../../../core/model/raw-span.js';
import { SPAN_TYPES, type SpanRecord } from '../../../core/model/span.js';
import { rawSpan } from './span-builder.js';

/** Every attribute key some convention reads, so odd values reach every code path. */
const KEYS = [
  'openinference.span.kind',
  'llm.model_name',
  'llm.token_count.prompt',
  'llm.token_count.completion',
  'llm.token_count.total',
  'input.value',
  'output.value',
  'llm.input_messages.0.message.content',
  'llm.output_messages.0.message.role',
  'retrieval.documents.0.document.content',
  'tool.parameters',
  'embedding.embeddings.0.embedding.text',
  'reranker.query',
  'ai.operationId',
  'ai.model.id',
  'ai.response.model',
  'ai.usage.promptTokens',
  'ai.usage.inputTokens',
  'ai.usage.tokens',
  'ai.prompt',
  'ai.prompt.messages',
  'ai.response.text',
  'ai.response.object',
  'ai.response.toolCalls',
  'ai.values',
  'ai.toolCall.args',
  'ai.toolCall.result',
  'traceloop.span.kind',
  'llm.request.type',
  'traceloop.entity.input',
  'llm.usage.total_tokens',
  'llm.prompts.0.content',
  'gen_ai.operation.name',
  'gen_ai.system',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.tool.name',
  'gen_ai.tool.call.arguments',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.prompt.0.role',
  'gen_ai.prompt.0.content',
  'gen_ai.completion.0.content',
  'gen_ai.prompt',
  'model',
  'input',
  'output',
  'input_tokens',
  'output_tokens',
  'tool_name',
  'tool_input',
  'tool_status',
  'error_message',
  'span_type',
  'type',
  'component_type',
];

function deepArray(depth: number): AttrValue {
  let v: AttrValue = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const ODD: AttrValue[] = [
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -5,
  1e308,
  2 ** 60,
  0.5,
  true,
  false,
  '',
  '   ',
  'abc',
  '-3',
  '1e5',
  '{not json',
  '[1,2',
  '[]',
  '{}',
  '"quoted"',
  [],
  [[[]]],
  [1, 'a', null, { b: [true] }],
  { a: { b: [1, { c: null }] } },
  { __proto__: 'x' },
  deepArray(20_000),
  'LLM',
  'tool',
  'chat',
  'ai.toolCall',
  'workflow',
];

function assertWellFormed(r: SpanRecord): void {
  expect(SPAN_TYPES).toContain(r.span_type);
  for (const n of [r.input_tokens, r.output_tokens, r.duration_ms]) {
    expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
  }
  expect(typeof r.input).toBe('string');
  expect(typeof r.output).toBe('string');
  expect(r.model === null || typeof r.model === 'string').toBe(true);
  for (const v of Object.values(r.attributes)) expect(typeof v).toBe('string');
  expect(Array.isArray(JSON.parse(r.events))).toBe(true);
}

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe('odd attribute values', () => {
  it.each(ODD.map((v, i) => [i, v] as const))('value #%i on every known key at once', (_i, value) => {
    const attributes: Attributes = Object.fromEntries(KEYS.map((k) => [k, value]));
    assertWellFormed(normalizeSpan(rawSpan(attributes), 'p'));
  });

  it('survives 2000 random mixes of keys, values and conventions', () => {
    const rand = lcg(42);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    for (let i = 0; i < 2000; i++) {
      const attributes: Attributes = {};
      for (let j = 0; j < 1 + Math.floor(rand() * 12); j++) attributes[pick(KEYS)] = pick(ODD);
      const events =
        rand() < 0.3
          ? [
              {
                name: pick(['exception', 'gen_ai.user.message', 'gen_ai.choice', 'x']),
                timeMs: 1,
                attributes: { content: pick(ODD), 'gen_ai.event.content': pick(ODD) },
              },
            ]
          : [];
      assertWellFormed(normalizeSpan(rawSpan(attributes, { events, declaredType: rand() < 0.2 ? pick(['tool', 'reasoning', 'bogus']) : undefined }), 'p'));
    }
  });

  it('does not trust the RawSpan shape either', () => {
    const broken = {
      ...rawSpan({}),
      attributes: null,
      events: [null, 7, { name: 3, timeMs: 'x', attributes: null }],
      status: undefined,
      resource: 'nope',
      scope: undefined,
      kind: 5,
      name: undefined,
      startTimeMs: Number.NaN,
    } as unknown as RawSpan;
    const r = normalizeSpan(broken, 'p');
    assertWellFormed(r);
    expect(r).toMatchObject({ convention: 'none', kind: '', name: '', scope_name: '', attributes: {}, resource_attributes: {}, status: 'ok' });
  });

  it('stringifies attributes: strings as-is, scalars via String(), structures as JSON, null empty', () => {
    const r = normalizeSpan(rawSpan({ s: 'x', n: 0.5, b: false, z: null, a: [1, 'two'], o: { k: [null] } }), 'p');
    expect(r.attributes).toEqual({ s: 'x', n: '0.5', b: 'false', z: '', a: '[1,"two"]', o: '{"k":[null]}' });
  });
});

describe('hostile keys', () => {
  it('does not walk into the prototype chain', () => {
    const attributes = JSON.parse(
      '{"__proto__": {"polluted": 1}, "constructor": "c", "gen_ai.system": "openai", "gen_ai.request.model": "m", "gen_ai.prompt.0.__proto__.role": "user", "gen_ai.prompt.0.content": "hi", "gen_ai.prompt.__proto__.content": "x"}',
    ) as Attributes;
    const r = normalizeSpan(rawSpan(attributes), 'p');
    expect(r.convention).toBe('genai');
    expect(JSON.parse(r.input)).toEqual([{ content: 'hi' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).role).toBeUndefined();
  });

  it('compacts huge list indices instead of allocating them', () => {
    const r = normalizeSpan(
      rawSpan({ 'gen_ai.system': 'openai', 'gen_ai.request.model': 'm', 'gen_ai.prompt.4294967295.content': 'last', 'gen_ai.prompt.7.content': 'first' }),
      'p',
    );
    expect(JSON.parse(r.input)).toEqual([{ content: 'first' }, { content: 'last' }]);
  });

  it('ignores absurdly deep flattened keys', () => {
    const key = `gen_ai.prompt.0.${'x.'.repeat(5000)}content`;
    const r = normalizeSpan(rawSpan({ 'gen_ai.system': 'openai', 'gen_ai.request.model': 'm', [key]: 'deep', 'gen_ai.prompt.1.content': 'ok' }), 'p');
    expect(JSON.parse(r.input)).toEqual([{ content: 'ok' }]);
  });
});

describe('10 MB values', () => {
  const big = 'x'.repeat(10 * 1024 * 1024);

  it.each([
    ['openinference', { 'openinference.span.kind': 'LLM', 'input.value': big, 'output.value': big }],
    ['vercel-ai', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.prompt.messages': big, 'ai.response.text': big }],
    ['genai', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': big, 'gen_ai.output.messages': big }],
    ['spec', { model: 'm', input: big, output: big }],
  ] as const)('%s keeps them whole', (convention, attributes) => {
    const r = normalizeSpan(rawSpan(attributes), 'p');
    expect(r.convention).toBe(convention);
    expect(r.input.length).toBe(big.length);
    expect(r.output.length).toBe(big.length);
  });

  it('keeps a 10 MB JSON message array and system instructions', () => {
    const messages = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: big }] }]);
    const r = normalizeSpan(rawSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages, 'gen_ai.system_instructions': 'Be brief.' }), 'p');
    expect(r.input.length).toBeGreaterThan(big.length);
    expect((JSON.parse(r.input) as unknown[])[0]).toEqual({ role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] });
  });
});

describe('common fields', () => {
  it('marks an exception event as an error even with status unset, using its message then its type', () => {
    const withMessage = rawSpan({}, { events: [{ name: 'exception', timeMs: 5, attributes: { 'exception.type': 'TypeError', 'exception.message': 'boom' } }] });
    const typeOnly = rawSpan({}, { events: [{ name: 'exception', timeMs: 5, attributes: { 'exception.type': 'TypeError' } }] });
    expect(normalizeSpan(withMessage, 'p')).toMatchObject({ status: 'error', status_message: 'boom' });
    expect(normalizeSpan(typeOnly, 'p')).toMatchObject({ status: 'error', status_message: 'TypeError' });
    expect(normalizeSpan(rawSpan({}, { status: { code: 'error', message: 'denied' }, events: withMessage.events }), 'p').status_message).toBe('denied');
    expect(normalizeSpan(rawSpan({}, { status: { code: 'ok', message: 'fine' } }), 'p')).toMatchObject({ status: 'ok', status_message: '' });
  });

  it('rounds durations and never lets them go negative', () => {
    expect(normalizeSpan(rawSpan({}, { startTimeMs: 1000.2, endTimeMs: 1010.7 }), 'p').duration_ms).toBe(11);
    expect(normalizeSpan(rawSpan({}, { startTimeMs: 2000, endTimeMs: 1000 }), 'p').duration_ms).toBe(0);
  });

  it('parses token counts: numeric strings yes, garbage and negatives no', () => {
    const tokens = (v: AttrValue) => normalizeSpan(rawSpan({ model: 'm', input_tokens: v }), 'p').input_tokens;
    expect([tokens('42'), tokens('4.7'), tokens(4.7), tokens('-3'), tokens(-3), tokens('abc'), tokens(true), tokens([5])]).toEqual([42, 4, 4, 0, 0, 0, 0, 0]);
    expect(tokens(2 ** 60)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
