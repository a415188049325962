import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegexPool, setRegexPool, type RegexPool } from '../../../core/safe-regex.js';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { defaultScorerRegistry, runScorers, TRAJECTORY_SCORERS } from '../../../core/scoring/index.js';
import { buildSpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { hostileStrings } from '../../fixtures/corpus/texts.js';
import { canonicalJson, jsonMismatch, valueAt } from '../../../core/scoring/trajectory/json-value.js';
import { predicateMismatch, PredicateSchema, toNumber } from '../../../core/scoring/trajectory/predicates.js';
import { RegexBatch } from '../../../core/scoring/trajectory/regex-batch.js';
import { spanMatchScorer } from '../../../core/scoring/trajectory/span-match.js';
import { plainTree, scoreTree } from './score.js';

// The pieces the trajectory scorers share: predicates, JSON comparison of arguments, and the
// regex batch that searches their patterns on the regex pool within a budget.

const never = () => {
  throw new Error('no regex here');
};
const test = (predicate: unknown, subject: { found: boolean; value?: unknown }) => predicateMismatch(PredicateSchema.parse(predicate), subject, never);
const has = (value: unknown) => ({ found: true, value });

describe('predicates', () => {
  it('a scalar is equals: text as text, numbers as numbers (numeric text counts), booleans and null by their text too', () => {
    expect(test('metric', has('metric'))).toBeNull();
    expect(test('3', has(3))).toBeNull();
    expect(test(3, has('3.0'))).toBeNull();
    expect(test(3, has('three'))).toBe('expected 3, got "three"');
    expect(test(true, has('true'))).toBeNull();
    expect(test(null, has(null))).toBeNull();
    expect(test({ equals: { a: [1, 2] } }, has({ a: [1, 2] }))).toBeNull();
    expect(test({ equals: { a: [1, 2] } }, has('{"a":[1,2]}'))).toBeNull();
    expect(test({ equals: { a: 1 } }, has({ a: 2 }))).toBe('expected {"a":1}, got {"a":2}');
    expect(test('x', { found: false })).toBe('missing (expected = "x")');
  });

  it('exists, near, ranges', () => {
    expect(test({ exists: true }, { found: false })).toBe('missing');
    expect(test({ exists: false }, has(1))).toBe('present (1), expected absent');
    expect(test({ near: 0.3 }, has(0.1 + 0.2))).toBeNull();
    expect(test({ near: 10, tolerance: 0.5 }, has('10.4'))).toBeNull();
    expect(test({ near: 10, tolerance: 0.5 }, has(11))).toBe('11 is not within 0.5 of 10');
    expect(test({ gt: 1, lte: 5 }, has(5))).toBeNull();
    expect(test({ gt: 1, lte: 5 }, has(6))).toBe('6 is not > 1 and <= 5');
    expect(test({ lt: 1 }, has('abc'))).toBe('expected a number < 1, got "abc"');
    expect(toNumber(' 2.5e3 ')).toBe(2500);
    expect(toNumber('')).toBeNaN();
    expect(toNumber(true)).toBeNaN();
  });

  it('refuses predicates that test nothing or two things, and stray keys', () => {
    const why = (p: unknown) => PredicateSchema.safeParse(p).error?.issues.map((i) => `${i.path.join('.')} ${i.message}`.trim());
    expect(why({})).toEqual(['must hold exactly one test: exists, equals, regex, near (with tolerance) or a range (gt, gte, lt, lte)']);
    expect(why({ equals: 1, exists: true })).toEqual([
      'must hold exactly one test: exists, equals, regex, near (with tolerance) or a range (gt, gte, lt, lte); got exists and equals',
    ]);
    expect(why({ regex: 'a', tolerance: 1 })).toEqual(['tolerance goes with near only']);
    expect(why({ near: Number.POSITIVE_INFINITY })).toBeDefined();
    expect(why({ regex: 'a++' })).toEqual(['regex a possessive quantifier (++) is not supported (patterns run on RE2: docs/scorers.md)']);
    expect(why({ like: 'a' })![0]).toContain('like');
    expect(why({ equals: null })).toBeUndefined();
  });
});

describe('arguments as JSON', () => {
  it('exact and subset name the first difference by path', () => {
    expect(jsonMismatch({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, 'exact')).toBeNull();
    expect(jsonMismatch({ a: { 'b c': [1, { d: 2 }] } }, { a: { 'b c': [1, { d: 3 }] } }, 'exact')).toBe('argument a["b c"][1].d: expected 2, got 3');
    expect(jsonMismatch([1, 2], [1, 2, 3], 'exact')).toBe('the arguments: expected 2 items, got 3');
    expect(jsonMismatch([1, 2], [1, 2, 3], 'subset')).toBeNull();
    expect(jsonMismatch({}, { any: 1 }, 'subset')).toBeNull();
    expect(jsonMismatch({ a: 1 }, [1], 'subset')).toBe('the arguments: expected an object, got [1]');
    expect(jsonMismatch({ a: [1, 2] }, { a: [1] }, 'subset')).toBe('argument a[1]: missing (expected 2)');
  });

  it('canonical JSON is equal exactly for equal values, whatever the key order', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        const same = jsonMismatch(a, b, 'exact') === null;
        expect(canonicalJson(a) === canonicalJson(b)).toBe(same);
        expect(jsonMismatch(a, a, 'exact')).toBeNull();
        if (same) expect(jsonMismatch(a, b, 'subset')).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('finds values by a key holding dots first, then by a dotted path', () => {
    expect(valueAt({ 'a.b': 1, a: { b: 2 } }, 'a.b')).toEqual({ found: true, value: 1 });
    expect(valueAt({ a: { b: [5, 6] } }, 'a.b.1')).toEqual({ found: true, value: 6 });
    expect(valueAt({ a: { b: [5, 6] } }, 'a.b.2')).toEqual({ found: false });
    expect(valueAt('text', 'a')).toEqual({ found: false });
  });
});

describe('the regex batch', () => {
  let previous: RegexPool | undefined;
  let pool: RegexPool | undefined;
  afterAll(async () => {
    if (previous) setRegexPool(previous);
    await pool?.close();
  });

  it('searches each distinct text once, with every pattern wanted on it', async () => {
    const batch = new RegexBatch();
    for (const text of ['alpha', 'beta', 'alpha']) {
      batch.collecting('^a', '', text);
      batch.collecting('ta$', '', text);
    }
    batch.collecting('ALPHA', 'i', 'alpha');
    expect(batch.size).toBe(3);
    expect(() => batch.deciding('^a', '', 'alpha')).toThrow('deciding before the searches ran');
    await batch.run();
    expect([
      batch.deciding('^a', '', 'alpha'),
      batch.deciding('ta$', '', 'alpha'),
      batch.deciding('ta$', '', 'beta'),
      batch.deciding('ALPHA', 'i', 'alpha'),
    ]).toEqual([true, false, true, true]);
    expect(() => batch.deciding('^z', '', 'alpha')).toThrow('was not searched');
  });

  it('fails with what it got done when its time runs out, and with the pattern when one does not compile', async () => {
    const batch = new RegexBatch();
    for (let i = 0; i < 200; i++) batch.collecting('(.*a){12}$', '', `${'a'.repeat(2000)}${i}`);
    await expect(batch.run({ budgetMs: 1 })).rejects.toThrow(
      /^regex budget exhausted: a trajectory scorer's searches may take 0\.001 s in all \(docs\/scorers\.md\); \d+ of its 200 searches were done$/,
    );
    const bad = new RegexBatch();
    bad.collecting('(?<=a)b', '', 'ab');
    await expect(bad.run()).rejects.toThrow('invalid regular expression /(?<=a)b/: lookbehind is not supported');
  });

  it('stops when the case is cancelled', async () => {
    const batch = new RegexBatch();
    for (let i = 0; i < 50; i++) batch.collecting('x', '', `text ${i}`);
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    await expect(batch.run({ signal: controller.signal })).rejects.toThrow('run cancelled');
  });

  it("a scorer's searches count against the run's budget; once spent, the scorer fails with the pool's reason", async () => {
    pool = createRegexPool({ workers: 1, runBudgetMs: 1 });
    previous = setRegexPool(pool);
    const tree = plainTree(Array.from({ length: 30 }, (_, i) => ({ name: `${'a'.repeat(3000)}${i}`, args: {} })));
    const config = { checks: [{ select: { name: { regex: '(.*a){20}$' } }, count: 0 }] };
    // Without a run (online rules, local runs): the case's own budget only.
    expect((await scoreTree(spanMatchScorer, tree, config)).score).toBe(1);
    // A run's cases share its budget: once spent, the scorer fails with the pool's reason.
    const inRun = () =>
      spanMatchScorer.evaluate({
        input: '',
        output: '',
        expected: {},
        toolCalls: [],
        latencyMs: 0,
        spanTree: tree,
        config: spanMatchScorer.configSchema.parse(config),
        runId: 'run-1',
      });
    await expect(
      (async () => {
        for (let i = 0; i < 5; i++) await inRun();
      })(),
    ).rejects.toThrow(/regex budget exhausted: the cases of a run may search for 1 ms in all/);
  });
});

describe('the trajectory scorers', () => {
  it('are rule scorers with a description and a config schema that accepts {}', () => {
    expect(TRAJECTORY_SCORERS.map((s) => s.name)).toEqual(['toolCalls', 'steps', 'loops', 'toolErrors', 'spanMatch', 'selectionConfidence']);
    for (const scorer of TRAJECTORY_SCORERS) {
      expect(scorer.kind).toBe('rule');
      expect(scorer.description.length).toBeGreaterThan(20);
      expect(scorer.configSchema.safeParse({}).success).toBe(true);
    }
  });

  it('score a hostile trace (cycles, orphans, hostile names, text and huge arguments) without a scorer error', async () => {
    const strings = hostileStrings().map((h) => h.text);
    const tree = buildSpanTree([
      { span_id: 'a', parent_span_id: 'c', name: 'agent', type: 'span', start_time: 0, end_time: 100, output: 'done' },
      { span_id: 'b', parent_span_id: 'a', name: 'chat', type: 'generation', start_time: 1, end_time: 2, input: 'q', output: 'a', input_tokens: 5 },
      { span_id: 'c', parent_span_id: 'b', name: 'loop back', type: 'span', start_time: 3, end_time: 4 },
      { span_id: 'o', parent_span_id: 'gone', name: 'orphan', type: 'tool', status: 'error', start_time: 5, end_time: 6, input: 'not json {' },
      ...strings.map((text, i) => ({
        span_id: `h${i}`,
        parent_span_id: 'a',
        name: text,
        type: 'tool',
        attributes: { tool_name: text, k: text },
        input: text,
        output: 'x'.repeat(i === 0 ? 1_000_000 : 1),
        start_time: 10 + i,
        end_time: 11 + i,
      })),
    ]);
    const refs = ScorerRefListSchema.parse([
      { name: 'toolCalls', config: { mode: 'superset', calls: [{ name: strings[0], where: { k: { regex: '.' } } }] } },
      { name: 'steps', config: { maxSpans: 10, maxWallMs: 1000 } },
      { name: 'loops', config: {} },
      { name: 'toolErrors', config: {} },
      {
        name: 'spanMatch',
        config: { checks: [{ select: { name: { regex: '\\n' } } }, { select: { attributes: { k: { regex: '^\\s' } } }, every: { type: 'tool' } }] },
      },
    ]);
    const details = await runScorers(defaultScorerRegistry(), refs, { input: 'q', output: 'a', expected: {}, toolCalls: [], latencyMs: 1, spanTree: tree });
    for (const [name, d] of Object.entries(details)) {
      expect(d.reason, name).not.toMatch(/^scorer error/);
      expect(d.score, name).toBeGreaterThanOrEqual(0);
      expect(d.score, name).toBeLessThanOrEqual(1);
    }
    expect(details.toolErrors.reason).toContain('orphan');
  });
});
