import { describe, expect, it } from 'vitest';
import { asChat, foldText, isBranch, jsonEntries, jsonSummary, parseContent } from '../../../ui/src/lib/content.js';

describe('span input and output', () => {
  it('shows chat messages as a conversation', () => {
    const c = parseContent(
      JSON.stringify([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ]),
    );
    expect(c).toEqual({
      kind: 'chat',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(parseContent(JSON.stringify({ messages: [{ role: 'assistant', content: 'ok' }] }))).toEqual({
      kind: 'chat',
      messages: [{ role: 'assistant', content: 'ok' }],
    });
  });

  it('pretty-prints other JSON', () => {
    expect(parseContent('{"a":1,"b":[2]}')).toEqual({ kind: 'json', value: { a: 1, b: [2] }, pretty: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
    expect(parseContent('[1,2]').kind).toBe('json');
  });

  it('keeps text (and JSON cut short by the API cap) as text', () => {
    expect(parseContent('hello')).toEqual({ kind: 'text', text: 'hello' });
    expect(parseContent('{"a": "cut her')).toEqual({ kind: 'text', text: '{"a": "cut her' });
    expect(parseContent('  ')).toEqual({ kind: 'empty' });
  });

  it('folds long text, at a line break near the limit when there is one', () => {
    expect(foldText('short', 10)).toEqual({ head: 'short', rest: '' });
    const text = `${'a'.repeat(80)}\n${'b'.repeat(80)}`;
    expect(foldText(text, 100)).toEqual({ head: 'a'.repeat(80), rest: `\n${'b'.repeat(80)}` });
    expect(foldText('x'.repeat(300), 100).head).toHaveLength(100);
  });

  it('reads tool calls: OpenAI tool_calls with JSON arguments, Anthropic tool_use and tool_result, GenAI parts', () => {
    const openai = asChat([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"refunds"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Refunds within 30 days' },
    ]);
    expect(openai).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: { q: 'refunds' } }] },
      { role: 'tool', content: 'Refunds within 30 days', toolCallId: 'call_1' },
    ]);
    const anthropic = asChat([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'tu_1', name: 'lookup', input: { id: 7 } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'found' }] },
    ]);
    expect(anthropic).toEqual([
      { role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 'tu_1', name: 'lookup', arguments: { id: 7 } }] },
      { role: 'user', content: 'found', toolCallId: 'tu_1' },
    ]);
    const genai = asChat([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'weather', arguments: { city: 'Paris' } }] }]);
    expect(genai).toEqual([{ role: 'assistant', content: '', toolCalls: [{ id: 'c9', name: 'weather', arguments: { city: 'Paris' } }] }]);
    // Arguments that are not JSON stay text.
    expect(asChat([{ role: 'assistant', function_call: { name: 'f', arguments: 'not json' } }])).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: null, name: 'f', arguments: 'not json' }] },
    ]);
  });

  it("reads OpenInference's stored messages: tool calls wrapped in tool_call, parts in message_content", () => {
    expect(
      asChat([
        { role: 'user', contents: [{ message_content: { type: 'text', text: 'Weather?' } }] },
        { role: 'assistant', tool_calls: [{ tool_call: { id: 'call_W1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } } }] },
      ]),
    ).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_W1', name: 'get_weather', arguments: { city: 'Paris' } }] },
    ]);
  });

  it('describes JSON tree nodes', () => {
    expect(jsonEntries({ a: 1, b: [2] })).toEqual([
      ['a', 1],
      ['b', [2]],
    ]);
    expect(jsonEntries(['x', 'y'])).toEqual([
      ['0', 'x'],
      ['1', 'y'],
    ]);
    expect(jsonSummary({ a: 1, b: 2 })).toBe('2 keys');
    expect(jsonSummary([1])).toBe('1 item');
    expect(isBranch({})).toBe(false);
    expect(isBranch([])).toBe(false);
    expect(isBranch({ a: null })).toBe(true);
    expect(isBranch('text')).toBe(false);
  });
});
