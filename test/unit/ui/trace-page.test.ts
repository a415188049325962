import { describe, expect, it } from 'vitest';
import { looksLikeMarkdown } from '../../../ui/src/lib/content.js';
import { cycle, matchSpans, NO_FILTER, plural, spanMatches, type SpanFilter } from '../../../ui/src/lib/span-search.js';
import { displayKind, spanRole } from '../../../ui/src/lib/span-role.js';
import { compactCount, rowFacts } from '../../../ui/src/lib/span-row.js';
import { buildTree, errorsBelow, flattenTree, treeOrder } from '../../../ui/src/lib/tree.js';
import { formatOffset, spacedTicks } from '../../../ui/src/lib/waterfall.js';

/** The trace page's helpers (issue 32): search and filters, agents and chains, row facts, errors under folded spans, the axis, markdown. */
const span = (span_id: string, parent_span_id: string | null, more: Partial<Record<string, unknown>> = {}) => ({
  span_id,
  parent_span_id,
  name: span_id,
  type: 'span',
  component_type: null as string | null,
  status: 'ok',
  input: '',
  output: '',
  attributes: {} as Record<string, string>,
  ...more,
});

const spans = [
  span('root', null, { attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
  span('chain', 'root', { attributes: { 'openinference.span.kind': 'CHAIN' } }),
  span('llm', 'chain', { type: 'generation', component_type: 'generation', output: 'The Refund was issued' }),
  span('tool', 'chain', { type: 'tool', component_type: 'tool', status: 'error', input: '{"q": "refund"}' }),
  span('other', 'root', { name: 'Lookup refund', status: 'error' }),
];
const tree = buildTree(spans);
const order = treeOrder(tree.roots);
const f = (more: Partial<SpanFilter>): SpanFilter => ({ ...NO_FILTER, ...more });

describe('span search and filters', () => {
  it('finds text in names, inputs and outputs, ignoring case, and keeps the paths to the matches', () => {
    expect(matchSpans(tree, order, f({ text: 'REFUND' })).ids).toEqual(['llm', 'tool', 'other']);
    expect(matchSpans(tree, order, f({ text: 'refund', scope: 'name' })).ids).toEqual(['other']);
    expect(matchSpans(tree, order, f({ text: 'refund', scope: 'io' })).ids).toEqual(['llm', 'tool']);
    const found = matchSpans(tree, order, f({ text: 'was issued' }));
    expect(found.ids).toEqual(['llm']);
    expect([...found.paths].sort()).toEqual(['chain', 'llm', 'root']);
    // The filtered tree shows the paths alone.
    expect(flattenTree(tree.roots, new Set(), found.paths).map((r) => r.node.span.span_id)).toEqual(['root', 'chain', 'llm']);
  });

  it('filters by kind (agents and chains included) and status; text is plain, never a pattern', () => {
    expect(matchSpans(tree, order, f({ status: 'error' })).ids).toEqual(['tool', 'other']);
    expect(matchSpans(tree, order, f({ kind: 'tool', status: 'error' })).ids).toEqual(['tool']);
    expect(matchSpans(tree, order, f({ kind: 'agent' })).ids).toEqual(['root']);
    expect(matchSpans(tree, order, f({ kind: 'chain' })).ids).toEqual(['chain']);
    expect(spanMatches(span('x', null, { output: 'a (b+)+ c' }), f({ text: '(b+)+' }))).toBe(true);
    expect(spanMatches(span('x', null, { output: 'abbb' }), f({ text: '(b+)+' }))).toBe(false);
  });

  it('cycles through ids both ways, from wherever the selection is', () => {
    const ids = ['a', 'b', 'c'];
    expect(cycle(ids, null, 1)).toBe('a');
    expect(cycle(ids, 'elsewhere', -1)).toBe('c');
    expect(cycle(ids, 'c', 1)).toBe('a');
    expect(cycle(ids, 'a', -1)).toBe('c');
    expect(cycle([], 'a', 1)).toBeNull();
  });

  it('says "1 error" and "2 errors"', () => {
    expect(plural(1, 'error')).toBe('1 error');
    expect(plural(2, 'error')).toBe('2 errors');
    expect(plural(1_200, 'match', 'matches')).toBe('1,200 matches');
  });
});

describe('agents and chains', () => {
  it('reads each convention’s names for them; typed spans keep their type', () => {
    expect(spanRole(span('a', null, { attributes: { 'openinference.span.kind': 'AGENT' } }))).toBe('agent');
    expect(spanRole(span('a', null, { attributes: { 'traceloop.span.kind': 'workflow' } }))).toBe('chain');
    expect(spanRole(span('a', null, { attributes: { 'gen_ai.operation.name': 'invoke_workflow' } }))).toBe('chain');
    expect(spanRole(span('a', null, { attributes: { 'ai.operationId': 'ai.generateText' } }))).toBe('chain');
    expect(spanRole(span('a', null))).toBeNull();
    expect(displayKind(span('a', null, { type: 'tool', component_type: 'tool', attributes: { 'openinference.span.kind': 'AGENT' } }))).toBe('tool');
    expect(displayKind(span('a', null, { component_type: 'planning' }))).toBe('planning');
  });
});

describe('rows', () => {
  it('counts the failing spans under each span, for folded rows', () => {
    const below = errorsBelow(tree.roots, (s) => s.status === 'error');
    expect(Object.fromEntries(below)).toEqual({ root: 2, chain: 1 });
  });

  it('says model, tokens and cost compactly', () => {
    expect([950, 1_250, 12_400, 1_500_000].map(compactCount)).toEqual(['950', '1.3k', '12k', '1.5M']);
    const facts = rowFacts({ model: 'gpt-4o', input_tokens: 1_201, output_tokens: 80, cost: { total: 0.0038 } });
    expect(facts).toMatchObject({ model: 'gpt-4o', tokens: '1.3k tok', cost: '$0.0038' });
    expect(facts.title).toBe('model gpt-4o, 1,201 in / 80 out tokens, cost $0.0038');
    expect(rowFacts({ model: null, input_tokens: 0, output_tokens: 0, cost: null })).toMatchObject({ tokens: null, cost: null, title: '' });
  });
});

describe('the time axis', () => {
  const bounds = (ms: number) => ({ startMs: 0, endMs: ms });

  it('labels a 2.6 s axis in seconds, never "2000 m2500 ms"', () => {
    expect(formatOffset(2_500, 500, 2_600)).toBe('2.5 s');
    expect(formatOffset(800, 200, 1_000)).toBe('800 ms');
    expect(formatOffset(180_000, 60_000, 300_000)).toBe('3 min');
    expect(formatOffset(100_000, 50_000, 300_000)).toBe('100 s');
  });

  it('places no label over another, however narrow the axis', () => {
    for (const width of [60, 120, 200, 333, 500, 900, 1400]) {
      for (const ms of [7, 950, 2_600, 2_999, 61_000, 3_600_000]) {
        const ticks = spacedTicks(bounds(ms), width);
        expect(ticks[0].label).toBe('0');
        const spans = ticks.map((t) => {
          const x = (t.pct / 100) * width;
          const w = t.label.length * 7 + 8;
          return t.alignEnd ? [x - w, x] : [x, x + w];
        });
        for (let i = 1; i < spans.length; i++) expect(spans[i][0], `${width} px, ${ms} ms`).toBeGreaterThanOrEqual(spans[i - 1][1]);
      }
    }
  });
});

describe('markdown detection', () => {
  it('renders what reads as markdown and leaves plain text alone', () => {
    for (const md of [
      '## Title',
      '- one\n- two',
      '1. first',
      '```js\nx\n```',
      '> quoted',
      'a **bold** word',
      'run `npm test`',
      'see [docs](https://x.y)',
      '| a | b |\n|---|---|',
    ])
      expect(looksLikeMarkdown(md), md).toBe(true);
    for (const plain of ['Just a sentence.', 'line 1: the agent considered\nline 2: more', '2 * 3 = 6', '#hashtag', '{"a": 1}'])
      expect(looksLikeMarkdown(plain), plain).toBe(false);
  });

  it('stays linear on long hostile input', () => {
    const started = performance.now();
    looksLikeMarkdown(`${'[a'.repeat(50_000)}${'*'.repeat(50_000)}${'`'.repeat(50_000)}`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
