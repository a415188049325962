import { describe, expect, it } from 'vitest';
import type { LlmConversation } from '../../../core/model/messages.js';
import { answeredCalls, parameterText, prettyArguments, toolCallAnchor, toolCallNames } from '../../../ui/src/lib/trace-view.js';

/** The trace page's helpers for a generation's conversation (SpanConversation.svelte). */
const llm: LlmConversation = {
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_W1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'no_id', arguments: '' },
      ],
    },
    { role: 'tool', content: '{"temperature":14}', tool_call_id: 'call_W1' },
  ],
  output_messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'call_W2', name: 'get_forecast', arguments: '{}' }] }],
};

describe('a conversation on the trace page', () => {
  it('names the call a tool result answers, over prompt and response', () => {
    expect(toolCallNames(llm)).toEqual(
      new Map([
        ['call_W1', 'get_weather'],
        ['call_W2', 'get_forecast'],
      ]),
    );
    expect(answeredCalls(llm)).toEqual(new Set(['call_W1']));
  });

  it('pretty-prints JSON arguments and keeps anything else as sent', () => {
    expect(prettyArguments('{"city":"Paris","days":[1,2]}')).toBe('{\n  "city": "Paris",\n  "days": [\n    1,\n    2\n  ]\n}');
    expect(prettyArguments('{"city":')).toBe('{"city":');
    expect(prettyArguments('Paris, tomorrow')).toBe('Paris, tomorrow');
    expect(prettyArguments('')).toBe('');
  });

  it('shows parameters as text', () => {
    expect(parameterText(0.2)).toBe('0.2');
    expect(parameterText('auto')).toBe('auto');
    expect(parameterText(['\n\n'])).toBe('["\\n\\n"]');
    expect(parameterText({ type: 'auto' })).toBe('{"type":"auto"}');
  });

  it('gives each tool call an element id, whatever its id holds', () => {
    expect(toolCallAnchor('span-1', 'call_W1')).toBe('call-span-1-call_W1');
    expect(toolCallAnchor('s', 'toolu:01/ä "x"')).toBe('call-s-toolu_01____x_');
  });
});
