import { describe, expect, it } from 'vitest';
import { jsonMatchScorer } from '../../../core/scoring/rules/json-match.js';
import { score } from './score-input.js';

const expected = { json: { user: { name: 'Ann', age: 30 }, tags: ['a', 'b'], ok: true } };

describe('jsonMatchScorer', () => {
  it('scores 1 when every expected leaf matches, extra fields allowed', async () => {
    const d = await score(jsonMatchScorer, { ok: true, tags: ['a', 'b', 'c'], user: { age: 30, name: 'Ann', id: 7 } }, expected);
    expect(d.score).toBe(1);
    expect(d.reason).toBe('all 5 expected JSON paths match');
    expect(d.evidence).toEqual([]);
  });

  it('scores the fraction of expected leaf paths, quoting the mismatches', async () => {
    const d = await score(jsonMatchScorer, { user: { name: 'Bob', age: 30 }, tags: ['a'], ok: true }, expected);
    expect(d.score).toBe(3 / 5);
    expect(d.reason).toContain('3 of 5 expected JSON paths match');
    expect(d.evidence).toEqual(['$.user.name: expected "Ann", got "Bob"', '$.tags[1]: missing (expected "b")']);
  });

  it('parses a string output, also inside a Markdown code fence', async () => {
    expect((await score(jsonMatchScorer, '{"user":{"name":"Ann","age":30},"tags":["a","b"],"ok":true}', expected)).score).toBe(1);
    expect((await score(jsonMatchScorer, '```json\n{"a": 1}\n```', { json: { a: 1 } })).score).toBe(1);
  });

  it('scores 0 when the output is not JSON', async () => {
    const d = await score(jsonMatchScorer, 'Sure! Here it is: {a: 1}', { json: { a: 1 } });
    expect(d.score).toBe(0);
    expect(d.reason).toBe('output is not JSON');
  });

  it('in exact mode, scores deep equality and lists extra paths', async () => {
    const output = { user: { name: 'Ann', age: 30, id: 7 }, tags: ['a', 'b'], ok: true };
    const d = await score(jsonMatchScorer, output, expected, { exact: true });
    expect(d.score).toBe(0);
    expect(d.evidence).toEqual(['$.user.id: not expected (got 7)']);
    const same = await score(jsonMatchScorer, { ok: true, tags: ['a', 'b'], user: { age: 30, name: 'Ann' } }, expected, { exact: true });
    expect(same.score).toBe(1);
  });

  it('treats a type mismatch at a container as all its leaves missing', async () => {
    const d = await score(jsonMatchScorer, { user: 'Ann', tags: ['a', 'b'], ok: true }, expected);
    expect(d.score).toBe(3 / 5);
    expect(d.evidence).toContain('$.user.name: missing (expected "Ann")');
  });

  it('compares scalars and quotes odd keys', async () => {
    expect((await score(jsonMatchScorer, '42', { json: 42 })).score).toBe(1);
    const d = await score(jsonMatchScorer, { 'a b': 1 }, { json: { 'a b': 2 } });
    expect(d.evidence).toEqual(['$["a b"]: expected 2, got 1']);
  });

  it('throws without expected.json', async () => {
    await expect(score(jsonMatchScorer, '{}', {})).rejects.toThrow('jsonMatchScorer needs expected.json');
  });
});
