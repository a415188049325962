import { describe, expect, it } from 'vitest';
import { foldText, parseContent } from '../../../ui/src/lib/content.js';

describe('span input and output', () => {
  it('shows chat messages as a conversation', () => {
    const c = parseContent(JSON.stringify([{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }]));
    expect(c).toEqual({ kind: 'chat', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }] });
    expect(parseContent(JSON.stringify({ messages: [{ role: 'assistant', content: 'ok' }] }))).toEqual({ kind: 'chat', messages: [{ role: 'assistant', content: 'ok' }] });
  });

  it('pretty-prints other JSON', () => {
    expect(parseContent('{"a":1,"b":[2]}')).toEqual({ kind: 'json', pretty: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
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
});
