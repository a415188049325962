import { describe, expect, it } from 'vitest';
import { toolSelectionScorer } from '../../../core/scoring/rules/tool-selection.js';
import { score } from './score-input.js';

const calls = (...names: string[]) => ({ toolCalls: names.map((name) => ({ name, input: {} })) });

describe('toolSelection', () => {
  it('scores 1 when every expected tool was called, extra calls allowed', async () => {
    const d = await score(toolSelectionScorer, 'ok', { toolCalls: ['search', { name: 'fetch' }] }, {}, calls('fetch', 'search', 'log'));
    expect(d.score).toBe(1);
    expect(d.reason).toContain('extra: log (allowed)');
    expect(d.evidence).toEqual(['tool calls: fetch -> search -> log']);
  });

  it('scores the recall of expected tools, counting repeats, and lists the missing', async () => {
    const d = await score(toolSelectionScorer, 'ok', { toolCalls: ['search', 'search', 'fetch', 'answer'] }, {}, calls('search', 'answer'));
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain('2 of 4 expected tool calls matched');
    expect(d.reason).toContain('missing: search, fetch');
  });

  it('scores 0 when no tool was called', async () => {
    const d = await score(toolSelectionScorer, 'ok', { toolCalls: ['search'] });
    expect(d.score).toBe(0);
    expect(d.evidence).toEqual(['no tool calls']);
  });

  it('with allowExtra: false, scores F1 of precision and recall', async () => {
    // matched 2, expected 2, actual 4: precision 0.5, recall 1, F1 = 2/3.
    const d = await score(toolSelectionScorer, 'ok', { toolCalls: ['a', 'b'] }, { allowExtra: false }, calls('a', 'b', 'c', 'd'));
    expect(d.score).toBeCloseTo(2 / 3);
    expect(d.reason).toContain('extra: c, d');
    expect(d.reason).not.toContain('(allowed)');
    expect((await score(toolSelectionScorer, 'ok', { toolCalls: ['a', 'b'] }, { allowExtra: false }, calls('b', 'a'))).score).toBe(1);
  });

  it('with ordered: true, needs the expected order as a subsequence, else gives LCS credit', async () => {
    const expected = { toolCalls: ['search', 'fetch', 'answer'] };
    expect((await score(toolSelectionScorer, 'ok', expected, { ordered: true }, calls('search', 'log', 'fetch', 'answer'))).score).toBe(1);
    const swapped = await score(toolSelectionScorer, 'ok', expected, { ordered: true }, calls('fetch', 'search', 'answer'));
    expect(swapped.score).toBeCloseTo(2 / 3);
    expect(swapped.reason).toContain('in another order');
    // Unordered, the same calls are a full match.
    expect((await score(toolSelectionScorer, 'ok', expected, {}, calls('fetch', 'search', 'answer'))).score).toBe(1);
  });

  it('combines ordered and allowExtra: false', async () => {
    // LCS 2 of expected 3 and actual 4: recall 2/3, precision 1/2, F1 = 4/7.
    const d = await score(toolSelectionScorer, 'ok', { toolCalls: ['a', 'b', 'c'] }, { ordered: true, allowExtra: false }, calls('b', 'a', 'x', 'c'));
    expect(d.score).toBeCloseTo(4 / 7);
  });

  it('handles an expectation of no tools', async () => {
    expect((await score(toolSelectionScorer, 'ok', { toolCalls: [] })).score).toBe(1);
    expect((await score(toolSelectionScorer, 'ok', { toolCalls: [] }, {}, calls('x'))).score).toBe(1);
    expect((await score(toolSelectionScorer, 'ok', { toolCalls: [] }, { allowExtra: false }, calls('x'))).score).toBe(0);
  });

  it('throws without expected.toolCalls', async () => {
    await expect(score(toolSelectionScorer, 'ok', {})).rejects.toThrow('toolSelection needs expected.toolCalls');
  });
});
