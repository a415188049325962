import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capConversation, llmConversation, withLlm, type LlmSpanSource } from '../../../core/messages/index.js';
import { LlmConversationSchema } from '../../../core/model/messages.js';
import type { Convention } from '../../../core/model/span.js';
import { agentText } from '../../helpers/corpus.js';

/** A stored generation span with these attributes (text, as stored) and fields. */
function span(attributes: Record<string, string>, over: Partial<LlmSpanSource> = {}): LlmSpanSource {
  return { type: 'generation', convention: 'genai', attributes, input: '', output: '', events: [], ...over };
}

describe('malformed JSON never throws: the text is kept as the message', () => {
  const broken = '[{"role":"user","parts":[{"type":"text","content":"cut her';

  it.each<[string, Convention, Record<string, string>]>([
    [
      'GenAI gen_ai.input.messages / output.messages',
      'genai',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': broken, 'gen_ai.output.messages': '{not json' },
    ],
    ['OpenInference input.value / output.value', 'openinference', { 'openinference.span.kind': 'LLM', 'input.value': broken, 'output.value': '{not json' }],
    [
      'AI SDK ai.prompt.messages / ai.response.toolCalls',
      'vercel-ai',
      { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.prompt.messages': broken, 'ai.response.toolCalls': '{not json' },
    ],
    [
      'OpenLLMetry traceloop.entity.input / output',
      'openllmetry',
      { 'llm.request.type': 'chat', 'traceloop.entity.input': broken, 'traceloop.entity.output': '{not json' },
    ],
  ])('%s', (_name, convention, attributes) => {
    const llm = llmConversation(span(attributes, { convention }));
    expect(llm?.messages).toEqual([{ role: 'user', content: broken }]);
    expect(llm?.output_messages).toEqual([{ role: 'assistant', content: '{not json' }]);
  });

  it('SPEC input and output that look like JSON but are not', () => {
    expect(llmConversation(span({}, { convention: 'spec', input: '[oops', output: '{"a":' }))).toEqual({
      messages: [{ role: 'user', content: '[oops' }],
      output_messages: [{ role: 'assistant', content: '{"a":' }],
    });
  });

  it('broken tools, parameters, system instructions and tool call arguments', () => {
    const llm = llmConversation(
      span(
        {
          'openinference.span.kind': 'LLM',
          'llm.invocation_parameters': '{"temperature": 0.',
          'llm.tools.0.tool.json_schema': '{"type":"function","function":{',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":',
        },
        { convention: 'openinference' },
      ),
    );
    expect(llm).toEqual({
      messages: [],
      output_messages: [{ role: 'assistant', content: '', tool_calls: [{ name: 'get_weather', arguments: '{"city":' }] }],
      tools: [{ name: '', parameters: '{"type":"function","function":{' }],
    });
    const genai = llmConversation(span({ 'gen_ai.operation.name': 'chat', 'gen_ai.system_instructions': '[{"type":', 'gen_ai.tool.definitions': '[' }));
    expect(genai?.messages).toEqual([{ role: 'system', content: '[{"type":' }]);
    expect(genai?.tools).toEqual([{ name: '', parameters: '[' }]);
  });

  it('event bodies that are not JSON', () => {
    const llm = llmConversation(
      span(
        { 'gen_ai.operation.name': 'chat' },
        {
          events: [
            { name: 'gen_ai.user.message', attributes: { 'gen_ai.event.content': '{"content": "trunc' } },
            { name: 'gen_ai.choice', attributes: { message: '{bad' } },
          ],
        },
      ),
    );
    expect(llm?.messages).toEqual([{ role: 'user', content: '' }]);
    expect(llm?.output_messages).toEqual([{ role: 'assistant', content: '' }]);
  });

  const KEYS = [
    'gen_ai.operation.name',
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.system_instructions',
    'gen_ai.tool.definitions',
    'gen_ai.request.temperature',
    'gen_ai.response.finish_reasons',
    'gen_ai.prompt.0.role',
    'gen_ai.prompt.0.content',
    'gen_ai.prompt.0.tool_calls.0.arguments',
    'gen_ai.completion.0.tool_calls.0.name',
    'openinference.span.kind',
    'llm.input_messages.0.message.role',
    'llm.input_messages.0.message.contents.0.message_content.text',
    'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments',
    'llm.tools.0.tool.json_schema',
    'llm.invocation_parameters',
    'input.value',
    'output.value',
    'ai.operationId',
    'ai.prompt.messages',
    'ai.prompt',
    'ai.response.toolCalls',
    'ai.response.text',
    'ai.prompt.tools',
    'ai.settings.topP',
    'llm.request.type',
    'llm.request.functions.0.parameters',
    'traceloop.entity.input',
    'temperature',
    'stop_reason',
    'agent_eval.input_source',
    'agent_eval.output_source',
    '__proto__',
    'constructor',
  ];
  /** Text that is often almost JSON: fragments of message shapes glued together. */
  const jsonish = fc.oneof(
    fc.string(),
    fc.json(),
    fc.constantFrom(
      '[',
      '{',
      '[{"role":"user","content":',
      '{"messages":[{"role":"tool","content":[{"type":"tool-result"}]}]}',
      '[{"role":"assistant","parts":[{"type":"tool_call","arguments":{}}]}]',
      'null',
      '[null,1,"x",[]]',
      '{"choices":[null,{"message":7}]}',
    ),
  );
  const source = fc.record({
    attributes: fc.dictionary(fc.constantFrom(...KEYS), jsonish, { maxKeys: 12 }),
    input: jsonish,
    output: jsonish,
    convention: fc.constantFrom<Convention>('genai', 'openinference', 'vercel-ai', 'openllmetry', 'spec', 'none'),
    events: fc.array(
      fc.record({
        name: fc.constantFrom('gen_ai.user.message', 'gen_ai.tool.message', 'gen_ai.choice', 'gen_ai.client.inference.operation.details'),
        attributes: fc.dictionary(fc.string({ maxLength: 30 }), fc.jsonValue()),
      }),
      { maxLength: 3 },
    ),
  });

  it('any attributes, input, output and events: an answer that fits the model, or null', () => {
    fc.assert(
      fc.property(source, (s) => {
        const llm = llmConversation({ type: 'generation', ...s });
        if (llm !== null) expect(LlmConversationSchema.safeParse(llm).success).toBe(true);
        expect(() => JSON.stringify(withLlm({ type: 'generation', ...s }, 50))).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe('values stored once, in input or output', () => {
  const messages = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(300) }] }]);

  it('reads a moved attribute back from the field its source names', () => {
    const llm = llmConversation(span({ 'gen_ai.operation.name': 'chat', 'agent_eval.output_source': 'gen_ai.output.messages' }, { output: messages }));
    expect(llm?.output_messages).toEqual([{ role: 'user', content: 'x'.repeat(300) }]);
    expect(llm?.truncated).toBeUndefined();
  });

  it('says so when the trace view cut it, and shows the cut text', () => {
    const cut = messages.slice(0, 100);
    const llm = llmConversation(
      span(
        { 'ai.operationId': 'ai.streamText.doStream', 'agent_eval.input_source': 'ai.prompt.messages' },
        { convention: 'vercel-ai', input: cut, input_truncated: true },
      ),
    );
    expect(llm).toEqual({ messages: [{ role: 'user', content: cut }], output_messages: [], truncated: true });
  });
});

describe('the trace view cuts long texts as it cuts input and output', () => {
  it('at a number of code points, never inside a character', () => {
    const long = `${'😀'.repeat(10)}tail`;
    const capped = capConversation(
      { messages: [{ role: 'user', content: long, tool_calls: [{ name: 't', arguments: long }] }], output_messages: [{ role: 'assistant', content: 'short' }] },
      5,
    );
    expect(capped).toEqual({
      messages: [{ role: 'user', content: '😀'.repeat(5), tool_calls: [{ name: 't', arguments: '😀'.repeat(5) }] }],
      output_messages: [{ role: 'assistant', content: 'short' }],
      truncated: true,
    });
  });

  it('leaves texts within the cap alone, unflagged', () => {
    const c = { messages: [{ role: 'user', content: 'hello' }], output_messages: [] };
    expect(capConversation(c, 5)).toEqual(c);
  });
});

describe('message shapes', () => {
  const spec = (input: unknown, output: unknown = '') =>
    llmConversation(span({}, { convention: 'spec', input: JSON.stringify(input), output: typeof output === 'string' ? output : JSON.stringify(output) }));

  it('maps roles onto system, user, assistant and tool; keeps a role no convention names', () => {
    expect(
      spec([
        { role: 'developer', content: 'a' },
        { role: 'human', content: 'b' },
        { role: 'model', content: 'c' },
        { role: 'function', name: 'f', content: 'd' },
        { role: 'critic', content: 'e' },
      ])?.messages,
    ).toEqual([
      { role: 'system', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'tool', name: 'f', content: 'd' },
      { role: 'critic', content: 'e' },
    ]);
  });

  it('Anthropic: tool_use blocks, tool_result blocks in a user turn become tool messages, the response with stop_reason', () => {
    const llm = spec(
      {
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'rain' }] },
              { type: 'text', text: 'And tomorrow?' },
            ],
          },
        ],
      },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Hmm.' },
          { type: 'text', text: 'Dry.' },
        ],
        stop_reason: 'end_turn',
      },
    );
    expect(llm).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { role: 'tool', content: 'rain', tool_call_id: 'toolu_1' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      output_messages: [
        {
          role: 'assistant',
          content: 'Dry.',
          parts: [
            { type: 'reasoning', text: 'Hmm.' },
            { type: 'text', text: 'Dry.' },
          ],
          finish_reason: 'end_turn',
        },
      ],
      finish_reasons: ['end_turn'],
    });
  });

  it('AI SDK 4: tool-call args and tool-result result; SDK 5 text and error outputs', () => {
    const llm = llmConversation(
      span(
        {
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.prompt.messages': JSON.stringify([
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Let me check.' },
                { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', args: { city: 'Paris' } },
              ],
            },
            {
              role: 'tool',
              content: [
                { type: 'tool-result', toolCallId: 'c1', toolName: 'weather', result: { temp: 14 } },
                { type: 'tool-result', toolCallId: 'c2', toolName: 'clock', output: { type: 'text', value: '12:00' } },
                { type: 'tool-result', toolCallId: 'c3', toolName: 'x', output: { type: 'error-text', value: 'boom' } },
              ],
            },
          ]),
        },
        { convention: 'vercel-ai' },
      ),
    );
    expect(llm?.messages).toEqual([
      { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', content: '{"temp":14}', tool_call_id: 'c1', name: 'weather' },
      { role: 'tool', content: '12:00', tool_call_id: 'c2', name: 'clock' },
      { role: 'tool', content: 'boom', tool_call_id: 'c3', name: 'x' },
    ]);
  });

  it('Gemini: candidates with functionCall parts', () => {
    const llm = spec([{ role: 'user', parts: [{ text: 'Weather?' }] }], {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] }, finishReason: 'STOP' }],
    });
    expect(llm?.output_messages).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], finish_reason: 'STOP' },
    ]);
  });

  it('an image part keeps the parts, in order', () => {
    const llm = spec([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
    ]);
    expect(llm?.messages).toEqual([
      {
        role: 'user',
        content: 'What is this?',
        parts: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', data: { type: 'image_url', image_url: { url: 'https://x/y.png' } } },
        ],
      },
    ]);
  });

  it('text is kept byte for byte: whitespace, blank lines, CRLF, emoji, a lone surrogate', () => {
    const text = '  indented\r\n\r\n\tTabbed ```code```\n\n\n👩‍💻 \ud800 end  ';
    expect(spec([{ role: 'user', content: text }], text)?.output_messages[0].content).toBe(text);
    expect(
      llmConversation(
        span({ 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]) }),
      )?.output_messages[0].content,
    ).toBe(text);
  });

  it('text is kept byte for byte for any text agents send, in and out (corpus, fast-check)', () => {
    fc.assert(
      fc.property(agentText(), agentText(), (question, answer) => {
        const llm = llmConversation(
          span({
            'gen_ai.operation.name': 'chat',
            'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
            'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
          }),
        );
        expect(llm?.messages[0].content).toBe(question);
        expect(llm?.output_messages[0].content).toBe(answer);
      }),
      { numRuns: 60 },
    );
  });
});
