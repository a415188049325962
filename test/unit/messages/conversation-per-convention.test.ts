import { describe, expect, it } from 'vitest';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import { llmConversation, type LlmSpanSource } from '../../../core/messages/index.js';
import { LlmConversationSchema, type LlmMessage } from '../../../core/model/messages.js';
import type { RawSpan } from '../../../core/model/raw-span.js';
import { fixture, loadFixtures } from '../normalize/load-fixtures.js';

/**
 * The conversation of a generation span, read from the span as it is stored (the collector's
 * normalizeSpan first, as ingest does), for the real instrumentation output of every convention
 * in test/fixtures/conventions. Each fixture with `expected.llm` says what it must read as.
 */

/** The span as the API reads it back: stored fields, events parsed. */
export function stored(raw: RawSpan): LlmSpanSource {
  const r = normalizeSpan(raw, 'p');
  return {
    type: r.span_type,
    convention: r.convention,
    attributes: r.attributes,
    input: r.input,
    output: r.output,
    events: JSON.parse(r.events) as LlmSpanSource['events'],
  };
}

const fixtures = loadFixtures();
const withLlm = fixtures.filter((f) => f.expected.llm !== undefined);

describe.each(withLlm)('$id', ({ raw, expected, description }) => {
  it(`reads the conversation: ${description}`, () => {
    const llm = llmConversation(stored(raw));
    expect(llm).toEqual(expected.llm);
    expect(LlmConversationSchema.safeParse(llm).success).toBe(true);
  });
});

describe('every convention reads the same conversation', () => {
  const ids = [
    'genai/chat-tool-call-messages.json',
    'genai/chat-tool-call-events.json',
    'openinference/llm-tool-call-conversation.json',
    'openllmetry/openai-chat-tool-call.json',
    'vercel-ai/generate-text-tool-result.json',
    'spec/generation-tool-call-messages.json',
  ];
  /** What a chat UI shows of a message: who, what, which calls, which call it answers, why it stopped. */
  const shown = (m: LlmMessage) => ({
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls,
    tool_call_id: m.tool_call_id,
    finish_reason: m.finish_reason,
  });
  const read = ids.map((id) => ({ id, llm: llmConversation(stored(fixture(id).raw))! }));

  it('covers the five conventions', () => {
    expect(new Set(read.map((r) => r.id.split('/')[0]))).toEqual(new Set(['genai', 'openinference', 'openllmetry', 'vercel-ai', 'spec']));
  });

  it.each(read)('$id: the same messages, tool call and tool result, and the markdown answer byte for byte', ({ llm }) => {
    const first = read[0].llm;
    expect(llm.messages.map(shown)).toEqual(first.messages.map(shown));
    expect(llm.output_messages.map(shown)).toEqual(first.output_messages.map(shown));
    expect(llm.finish_reasons).toEqual(['stop']);
    expect(llm.parameters?.temperature).toBe(0.2);

    const call = llm.messages.find((m) => m.tool_calls)!;
    expect(call).toMatchObject({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_W1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' }],
    });
    expect(JSON.parse(call.tool_calls![0].arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(llm.messages[llm.messages.indexOf(call) + 1]).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_W1',
      content: '{"temperature":14,"conditions":"rain"}',
    });

    const answer = llm.output_messages[0].content;
    expect(answer.split('\n\n')).toHaveLength(4);
    expect(answer).toContain('☔');
    expect(answer).toContain('🌤️');
    expect(answer).toContain('```json\n{"umbrella": true, "jacket": "light"}\n```');
  });

  it.each(read.filter((r) => !r.id.startsWith('spec/') && r.id !== 'genai/chat-tool-call-events.json'))(
    '$id: the tool offered, with its JSON schema',
    ({ llm }) => {
      expect(llm.tools).toHaveLength(1);
      expect(llm.tools![0]).toMatchObject({
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
      });
      expect(llm.parameters).toMatchObject({ temperature: 0.2, max_tokens: 512, top_p: 0.9 });
    },
  );
});

describe('spans that are not model calls have no conversation', () => {
  it.each(fixtures.filter((f) => f.expected.span_type !== 'generation'))('$id', ({ raw }) => {
    expect(llmConversation(stored(raw))).toBeNull();
  });

  it.each(['genai/embeddings.json', 'openinference/embedding.json', 'openllmetry/embedding.json', 'vercel-ai/embed-many-do-embed.json'])(
    '%s (an embedding)',
    (id) => {
      expect(llmConversation(stored(fixture(id).raw))).toBeNull();
    },
  );
});

/** A system message, then a user message. */
const systemThenUser = (system: string, user: string) => [
  { role: 'system', content: system },
  { role: 'user', content: user },
];

/** A model call's conversation: `messages` in, one assistant answer ending with `finishReason`, and the call's parameters if it has any. */
const answered = (messages: Array<{ role: string; content: string }>, answer: string, finishReason: string, parameters?: Record<string, unknown>) => ({
  messages,
  output_messages: [{ role: 'assistant', content: answer, finish_reason: finishReason }],
  ...(parameters ? { parameters } : {}),
  finish_reasons: [finishReason],
});

describe('the older fixtures of each convention', () => {
  it.each(
    [
      {
        name: 'GenAI 1.37 text parts, system instructions apart',
        fixture: 'genai/chat-input-messages.json',
        conversation: answered(
          systemThenUser('You are a helpful travel assistant.', 'What is the weather in Paris?'),
          'It is rainy and 57°F in Paris.',
          'stop',
          { temperature: 0.2, max_tokens: 256 },
        ),
      },
      {
        name: 'GenAI events packed in gen_ai.event.content, with a gen_ai.choice',
        fixture: 'genai/chat-events-choice.json',
        conversation: answered([{ role: 'user', content: 'What is 2+2? Reply with a number.' }], '4', 'stop'),
      },
      {
        name: 'a failed GenAI call: the prompt, no answer',
        fixture: 'genai/chat-events-exception.json',
        conversation: {
          messages: systemThenUser('You are terse.', 'Summarize the meeting notes.'),
          output_messages: [],
        },
      },
      {
        name: "OpenInference: llm.invocation_parameters, the flattened messages, the finish reason of output.value's choice",
        fixture: 'openinference/llm-openai.json',
        conversation: answered(systemThenUser('You are a support agent for Acme.', 'Where is my order #1234?'), 'Order #1234 ships tomorrow.', 'stop', {
          temperature: 0,
        }),
      },
      {
        name: 'AI SDK: a step that only called a tool shows the call, its finish reason and the tools offered',
        fixture: 'vercel-ai/stream-text-do-stream.json',
        conversation: {
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
          output_messages: [
            {
              role: 'assistant',
              content: '',
              tool_calls: [{ id: 'toolu_01', name: 'getWeather', arguments: '{"city":"Paris"}' }],
              finish_reason: 'tool-calls',
            },
          ],
          finish_reasons: ['tool-calls'],
        },
      },
      {
        name: 'OpenLLMetry: a single-turn chat',
        fixture: 'openllmetry/openai-chat.json',
        conversation: answered(
          [{ role: 'user', content: 'Tell me a joke about OpenTelemetry' }],
          'Why did the span break up with the trace? It needed more context.',
          'stop',
          { temperature: 0.7 },
        ),
      },
      {
        name: 'SPEC: text in, text out, with its stop_reason',
        fixture: 'spec/generation-declared.json',
        conversation: answered([{ role: 'user', content: 'Plan a weekend in Lisbon' }], 'Day 1: Alfama. Day 2: Belém.', 'end_turn', { temperature: 0.3 }),
      },
    ].map((c) => [c.name, c] as const),
  )('%s', (_name, { fixture: id, conversation }) => {
    expect(llmConversation(stored(fixture(id).raw))).toEqual(conversation);
  });

  it('AI SDK: a doGenerate step lists the tools offered and its parameters', () => {
    const step = llmConversation(stored(fixture('vercel-ai/generate-text-do-generate.json').raw))!;
    expect(step.tools).toEqual([{ name: 'getWeather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }]);
    expect(step.parameters).toEqual({ maxRetries: 2, tool_choice: { type: 'auto' } });
  });
});
