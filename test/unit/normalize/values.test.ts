import { describe, expect, it } from 'vitest';
import { indexedList } from '../../../collector/normalize/flat-list.js';
import { jsonish, text, tokenCount, tryJson, withTotal } from '../../../collector/normalize/values.js';

describe('indexedList', () => {
  it('rebuilds OpenInference messages with nested tool calls, unwrapping `message`', () => {
    const list = indexedList(
      {
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        'llm.output_messages.1.message.role': 'tool',
        'llm.output_messages.10.message.role': 'user',
      },
      'llm.output_messages',
      'message',
    );
    expect(list).toEqual([
      { role: 'assistant', tool_calls: [{ tool_call: { function: { name: 'get_weather', arguments: '{"city":"Paris"}' } } }] },
      { role: 'tool' },
      { role: 'user' },
    ]);
  });

  it('keeps the leaf when a key is both a value and a prefix', () => {
    expect(indexedList({ 'p.0.content': 'a', 'p.0.content.x': 'b' }, 'p')).toEqual([{ content: 'a' }]);
  });

  it('is empty without indexed keys', () => {
    expect(indexedList({ p: 'x', 'p.role': 'y', 'px.0.a': 'z' }, 'p')).toEqual([]);
  });
});

describe('value readers', () => {
  it('writes any value as JSON text: int64 (BigInt) as a string, at any depth; null when it has no JSON form', () => {
    expect(tryJson(['stop', 2, { ok: true }])).toBe('["stop",2,{"ok":true}]');
    expect(tryJson([1n, { big: -9223372036854775808n, at: [2n] }])).toBe('["1",{"big":"-9223372036854775808","at":["2"]}]');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(tryJson(cycle)).toBeNull();
    expect(tryJson(undefined)).toBeNull();
  });

  it('reads token counts', () => {
    expect([tokenCount(3), tokenCount(' 12 '), tokenCount('1.9'), tokenCount('1e3'), tokenCount(null), tokenCount(-1)]).toEqual([3, 12, 1, null, null, null]);
  });

  it('completes a token pair from a total', () => {
    expect(withTotal(null, null, 8)).toEqual({ input: 8, output: null });
    expect(withTotal(10, null, 30)).toEqual({ input: 10, output: 20 });
    expect(withTotal(null, 5, 3)).toEqual({ input: 0, output: 5 });
    expect(withTotal(1, 2, 99)).toEqual({ input: 1, output: 2 });
  });

  it('turns values into text and JSON text into structures', () => {
    expect([text('a'), text(1), text(false), text([1]), text(null)]).toEqual(['a', '1', 'false', '[1]', null]);
    expect([jsonish('[1]'), jsonish(' {"a":1}'), jsonish('[oops'), jsonish('plain')]).toEqual([[1], { a: 1 }, '[oops', 'plain']);
  });
});
