import { describe, expect, it } from 'vitest';
import { containsScorer } from '../../../core/scoring/rules/contains.js';
import { exactMatchScorer } from '../../../core/scoring/rules/exact-match.js';
import { score } from './score-input.js';

describe('contains', () => {
  it('scores 1 when every expected string is in the output, quoting where', async () => {
    const d = await score(containsScorer, 'The capital of France is Paris.', { outputContains: ['Paris', 'France'] });
    expect(d.score).toBe(1);
    expect(d.reason).toContain('found 2 of 2');
    expect(d.evidence).toHaveLength(2);
    expect(d.evidence[0]).toContain('Paris');
  });

  it('scores the fraction found and names what is missing', async () => {
    const d = await score(containsScorer, 'Paris is large', { outputContains: ['Paris', 'Berlin', 'Rome', 'large'] });
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain('missing: "Berlin", "Rome"');
    expect(d.evidence).toHaveLength(2);
  });

  it('scores 0 when nothing is found', async () => {
    const d = await score(containsScorer, 'nothing here', { outputContains: 'Paris' });
    expect(d.score).toBe(0);
    expect(d.evidence).toEqual([]);
  });

  it('ignores case by default and honours caseSensitive', async () => {
    expect((await score(containsScorer, 'PARIS', { outputContains: ['paris'] })).score).toBe(1);
    expect((await score(containsScorer, 'PARIS', { outputContains: ['paris'] }, { caseSensitive: true })).score).toBe(0);
  });

  it('searches JSON outputs as text', async () => {
    const d = await score(containsScorer, { city: 'Paris', n: 3 }, { outputContains: ['"city":"Paris"'] });
    expect(d.score).toBe(1);
  });

  it('cuts evidence to 200 characters', async () => {
    const long = 'x'.repeat(500);
    const d = await score(containsScorer, `a ${long} b`, { outputContains: [long] });
    expect(d.score).toBe(1);
    expect(d.evidence[0].length).toBeLessThanOrEqual(200);
  });

  it('throws without expected strings', async () => {
    await expect(score(containsScorer, 'x', {})).rejects.toThrow('contains needs expected.outputContains');
    await expect(score(containsScorer, 'x', { outputContains: [] })).rejects.toThrow('contains needs expected.outputContains');
  });

  it('accepts an empty config and refuses unknown keys', () => {
    expect(containsScorer.configSchema.parse({})).toEqual({ caseSensitive: false });
    expect(containsScorer.configSchema.safeParse({ casesensitive: true }).success).toBe(false);
  });
});

describe('exactMatch', () => {
  it('compares strings after trimming', async () => {
    expect((await score(exactMatchScorer, '  42\n', { output: '42' })).score).toBe(1);
    const miss = await score(exactMatchScorer, '43', { output: '42' });
    expect(miss.score).toBe(0);
    expect(miss.reason).toContain('first difference at character 1');
    expect(miss.evidence).toEqual(['43']);
  });

  it('honours trim: false and caseSensitive: false', async () => {
    expect((await score(exactMatchScorer, ' 42', { output: '42' }, { trim: false })).score).toBe(0);
    expect((await score(exactMatchScorer, 'Yes', { output: 'yes' })).score).toBe(0);
    expect((await score(exactMatchScorer, 'Yes', { output: 'yes' }, { caseSensitive: false })).score).toBe(1);
  });

  it('compares JSON values deeply, whatever the key order', async () => {
    const expected = { output: { a: 1, b: [1, { c: 'x' }] } };
    expect((await score(exactMatchScorer, { b: [1, { c: 'x' }], a: 1 }, expected)).score).toBe(1);
    expect((await score(exactMatchScorer, { a: 1, b: [1, { c: 'y' }] }, expected)).score).toBe(0);
    expect((await score(exactMatchScorer, { a: 1, b: [{ c: 'x' }, 1] }, expected)).score).toBe(0);
  });

  it('parses a string output when a JSON value is expected', async () => {
    expect((await score(exactMatchScorer, '{"b": 2, "a": 1}', { output: { a: 1, b: 2 } })).score).toBe(1);
    const notJson = await score(exactMatchScorer, 'not json', { output: { a: 1 } });
    expect(notJson.score).toBe(0);
    expect(notJson.reason).toContain('not JSON');
  });

  it('stringifies a non-string output when text is expected', async () => {
    expect((await score(exactMatchScorer, 42, { output: '42' })).score).toBe(1);
  });

  it('throws without expected.output', async () => {
    await expect(score(exactMatchScorer, 'x', {})).rejects.toThrow('exactMatch needs expected.output');
  });
});
