import { describe, expect, it } from 'vitest';
import {
  alignTraces,
  chatOutputText,
  compareQuery,
  diffOutputs,
  notableDuration,
  parseCompareState,
  signed,
  summarize,
  type CompareSpan,
} from '../../../ui/src/lib/trace-compare.js';
import { latestByName, rootSpan, scoreBand, scoreBody } from '../../../ui/src/lib/trace-view.js';
import type { Score } from '../../../core/model/score.js';
import { texts } from '../../fixtures/corpus/texts.js';

const span = (span_id: string, parent: string | null, name: string, extra: Partial<CompareSpan> = {}): CompareSpan => ({
  span_id,
  parent_span_id: parent,
  name,
  duration_ms: 10,
  input_tokens: 0,
  output_tokens: 0,
  output: '',
  ...extra,
});

describe('trace comparison', () => {
  it('aligns spans by their path of names, with the occurrence among same-named siblings', () => {
    const a = [
      span('a0', null, 'agent'),
      span('a1', 'a0', 'llm', { duration_ms: 100, input_tokens: 10, output_tokens: 5, output: 'hello' }),
      span('a2', 'a0', 'tool'),
      span('a3', 'a0', 'llm', { output: 'second' }),
      span('a4', 'a2', 'http'),
    ];
    const b = [
      span('b0', null, 'agent'),
      span('b1', 'b0', 'llm', { duration_ms: 250, input_tokens: 10, output_tokens: 25, output: 'hello!' }),
      span('b2', 'b0', 'retrieve'),
      span('b3', 'b0', 'tool'),
      span('b4', 'b0', 'llm', { output: 'second' }),
      span('b5', 'b0', 'llm', { output: 'third' }),
    ];
    const alignment = alignTraces(a, b);
    const rows = alignment.rows;
    expect(rows.map((r) => [alignment.pathOf(r), r.depth, r.state, r.a?.span_id ?? null, r.b?.span_id ?? null])).toEqual([
      ['agent#0', 0, 'both', 'a0', 'b0'],
      ['agent#0/llm#0', 1, 'both', 'a1', 'b1'],
      ['agent#0/retrieve#0', 1, 'only-b', null, 'b2'],
      ['agent#0/tool#0', 1, 'both', 'a2', 'b3'],
      ['agent#0/tool#0/http#0', 2, 'only-a', 'a4', null],
      ['agent#0/llm#1', 1, 'both', 'a3', 'b4'],
      ['agent#0/llm#2', 1, 'only-b', null, 'b5'],
    ]);
    const llm = rows[1];
    expect(llm).toMatchObject({ durationDelta: 150, tokenDelta: 20, outputChanged: true });
    expect(rows[5]).toMatchObject({ outputChanged: false, durationDelta: 0, tokenDelta: 0 });
    expect(rows[2]).toMatchObject({ outputChanged: null, durationDelta: null });
    expect(summarize(rows)).toEqual({ matched: 4, onlyA: 1, onlyB: 2, changedOutputs: 1, slower: 1, faster: 0, tokenChanges: 1 });
    expect(alignment.rowAt('agent#0/tool#0/http#0')).toBe(rows[4]);
    expect(alignment.rowAt('agent#0/nothing#0')).toBeNull();
  });

  it('escapes / and % in names, so every path finds its row', () => {
    const alignment = alignTraces([span('r', null, 'a/b'), span('c', 'r', '100%')], [span('r', null, 'a/b')]);
    expect(alignment.rows.map((r) => alignment.pathOf(r))).toEqual(['a%2Fb#0', 'a%2Fb#0/100%25#0']);
    for (const r of alignment.rows) expect(alignment.rowAt(alignment.pathOf(r))).toBe(r);
  });

  it('puts a span only B has after the B span before it; several roots align too', () => {
    const { rows, pathOf } = alignTraces([span('x', null, 'r1'), span('y', null, 'r2')], [span('n', null, 'r0'), span('p', null, 'r2'), span('q', null, 'r3')]);
    expect(rows.map((r) => pathOf(r))).toEqual(['r0#0', 'r1#0', 'r2#0', 'r3#0']);
    expect(rows.map((r) => r.state)).toEqual(['only-b', 'only-a', 'both', 'only-b']);
  });

  it('handles a deep chain without recursion', () => {
    const n = 20_000;
    const chain = Array.from({ length: n }, (_, i) => span(`s${i}`, i ? `s${i - 1}` : null, 'step'));
    const t0 = performance.now();
    const { rows } = alignTraces(chain, chain);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(rows).toHaveLength(n);
    expect(rows.at(-1)!.depth).toBe(n - 1);
  });

  it('says which duration changes are notable and writes signed deltas', () => {
    expect(notableDuration(100, 119)).toBe(false);
    expect(notableDuration(100, 150)).toBe(true);
    expect(notableDuration(0, 0)).toBe(false);
    expect(notableDuration(0.2, 0.9)).toBe(false);
    expect(signed(5, String)).toBe('+5');
    expect(signed(-5, String)).toBe('-5');
    expect(signed(0, String)).toBe('0');
  });

  it('diffs outputs: JSON by line after pretty-printing, text by word', () => {
    const json = diffOutputs('{"a":1,"b":2}', '{"a":1,"b":3}')!;
    expect(json.by).toBe('line');
    expect(json.changes.filter((c) => c.removed).map((c) => c.value.trim())).toEqual(['"b": 2']);
    expect(json.changes.filter((c) => c.added).map((c) => c.value.trim())).toEqual(['"b": 3']);
    const text = diffOutputs('Refunds within 30 days.', 'Refunds within 14 days.')!;
    expect(text.by).toBe('word');
    expect(text.changes.filter((c) => c.added).map((c) => c.value)).toEqual(['14']);
    expect(text.cut).toBe(false);
  });

  it('diffs chat outputs by the words of their messages: a one-sentence change marks that sentence only', () => {
    const answer = texts.supportAnswer;
    const changed = answer.replace(/\.(\s)/, '. We are sorry for the delay.$1');
    const chat = (content: string) =>
      JSON.stringify([
        { role: 'assistant', content, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-1042"}' } }] },
      ]);
    const d = diffOutputs(chat(answer), chat(changed))!;
    expect(d.by).toBe('word');
    expect(d.changes.filter((c) => c.removed)).toEqual([]);
    expect(
      d.changes
        .filter((c) => c.added)
        .map((c) => c.value)
        .join(''),
    ).toBe(' We are sorry for the delay.');
    const kept = d.changes
      .filter((c) => !c.added && !c.removed)
      .map((c) => c.value)
      .join('');
    expect(kept).toContain('assistant:');
    expect(kept).toContain('-> lookup_order({"order_id":"A-1042"})');
    // One message as an object reads the same way; a chat beside plain JSON is diffed as JSON.
    expect(chatOutputText(JSON.stringify({ role: 'assistant', content: 'Hi\n\nthere' }))).toBe('assistant:\nHi\n\nthere');
    expect(diffOutputs(chat('x'), '{"a":1}')!.by).toBe('line');
  });

  it('keeps the two ids and the selected row in the URL', () => {
    expect(compareQuery({ a: 't 1', b: 't2', row: 'agent#0/llm#1' })).toBe('?a=t+1&b=t2&row=agent%230%2Fllm%231');
    expect(parseCompareState(new URLSearchParams(compareQuery({ a: 't 1', b: 't2', row: 'agent#0/llm#1' })))).toEqual({
      a: 't 1',
      b: 't2',
      row: 'agent#0/llm#1',
    });
    expect(parseCompareState(new URLSearchParams('a=%20&b='))).toEqual({});
    expect(compareQuery({})).toBe('');
  });
});

describe('trace page helpers', () => {
  it('bands scores as the SPEC does', () => {
    expect([0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.49, 0].map(scoreBand)).toEqual(['excellent', 'excellent', 'good', 'good', 'fair', 'fair', 'poor', 'poor']);
  });

  it('takes the latest score of each name from a newest-first list', () => {
    const s = (id: string, name: string, value: number) => ({ id, name, value }) as Score;
    expect(latestByName([s('3', 'q', 0.9), s('2', 'a', 0.1), s('1', 'q', 0.2)]).map((x) => x.id)).toEqual(['2', '3']);
  });

  it('finds the root span', () => {
    expect(rootSpan([{ parent_span_id: 'x' }, { parent_span_id: null }])).toEqual({ parent_span_id: null });
    expect(rootSpan([{ parent_span_id: 'x' }])).toEqual({ parent_span_id: 'x' });
    expect(rootSpan([])).toBeNull();
  });

  it('checks the score form before posting', () => {
    expect(scoreBody('t', { name: ' ', value: '0.5', reason: '', spanId: null })).toMatch(/name/);
    expect(scoreBody('t', { name: 'q', value: '', reason: '', spanId: null })).toMatch(/value/);
    expect(scoreBody('t', { name: 'q', value: '1.5', reason: '', spanId: null })).toMatch(/0 to 1/);
    expect(scoreBody('t', { name: ' q ', value: '0.25', reason: ' ok ', spanId: 's1' })).toEqual({
      trace_id: 't',
      name: 'q',
      value: 0.25,
      reason: 'ok',
      span_id: 's1',
      source: 'annotation',
    });
    expect(scoreBody('t', { name: 'q', value: '1', reason: '', spanId: null })).toEqual({ trace_id: 't', name: 'q', value: 1, source: 'annotation' });
  });
});
