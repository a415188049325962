import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExpectedSchema, ScorerRefListSchema } from '../../../core/model/eval-case.js';
import type { ScoreDetail } from '../../../core/model/eval-case.js';
import { createScorerRegistry, RULE_SCORERS } from '../../../core/scoring/index.js';
import { aggregateScores, casePasses, caseShortfall, meanDetails, runScorers } from '../../../core/scoring/run-scorers.js';
import type { Scorer } from '../../../core/scoring/scorer.js';

const custom = (name: string, evaluate: Scorer['evaluate']): Scorer => ({
  name,
  kind: 'custom',
  description: `test scorer ${name}`,
  configSchema: z.strictObject({}),
  evaluate,
});

const registry = createScorerRegistry([
  ...RULE_SCORERS,
  custom('boom', () => {
    throw new Error('judge unavailable');
  }),
  custom('nan', () => ({ score: Number.NaN, reason: 'oops', evidence: [] })),
  custom('tooHigh', async () => Promise.resolve({ score: 7, reason: 'generous', evidence: ['x'.repeat(500)] })),
  custom('slow', () => new Promise<ScoreDetail>((resolve) => setTimeout(() => resolve({ score: 0.5, reason: 'slow', evidence: [] }), 20))),
]);

const refs = (list: unknown) => ScorerRefListSchema.parse(list);
const input = {
  input: 'capital of France?',
  output: 'Paris',
  expected: ExpectedSchema.parse({ outputContains: ['Paris'] }),
  toolCalls: [],
  latencyMs: 12,
};

describe('runScorers', () => {
  it('runs every scorer and keys the details by name', async () => {
    const details = await runScorers(registry, refs(['contains', 'slow']), input);
    expect(Object.keys(details)).toEqual(['contains', 'slow']);
    expect(details.contains.score).toBe(1);
    expect(details.slow.score).toBe(0.5);
  });

  it('records a throwing scorer as 0 with the error, and goes on with the others', async () => {
    const details = await runScorers(registry, refs(['boom', 'contains']), input);
    expect(details.boom).toEqual({ score: 0, reason: 'scorer error: judge unavailable', evidence: [] });
    expect(details.contains.score).toBe(1);
  });

  it("records a rule scorer's missing expectation as a scorer error", async () => {
    const details = await runScorers(registry, refs(['jsonMatchScorer']), input);
    expect(details.jsonMatchScorer).toEqual({ score: 0, reason: 'scorer error: jsonMatchScorer needs expected.json', evidence: [] });
  });

  it('records a non-finite score as an error and clamps out-of-range scores and evidence', async () => {
    const details = await runScorers(registry, refs(['nan', 'tooHigh']), input);
    expect(details.nan.score).toBe(0);
    expect(details.nan.reason).toMatch(/^scorer error: returned a non-finite score/);
    expect(details.tooHigh.score).toBe(1);
    expect(details.tooHigh.evidence[0].length).toBe(200);
  });

  it('records an unknown scorer or a bad config as 0 with a reason', async () => {
    const details = await runScorers(registry, refs(['nope', { name: 'latency', config: { maxMs: 'fast' } }]), input);
    expect(details.nope).toEqual({ score: 0, reason: "scorer error: unknown scorer 'nope'", evidence: [] });
    expect(details.latency.reason).toMatch(/^scorer error: invalid config: maxMs/);
  });

  it('passes the parsed config (with defaults) to the scorer', async () => {
    const details = await runScorers(registry, refs([{ name: 'contains', config: { caseSensitive: true } }]), { ...input, output: 'PARIS' });
    expect(details.contains.score).toBe(0);
  });

  it('rejects when the signal is aborted (the case is cancelled, not scored)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    await expect(runScorers(registry, refs(['contains']), input, controller.signal)).rejects.toThrow('run cancelled');
  });
});

const detail = (score: number): ScoreDetail => ({ score, reason: '', evidence: [] });

describe('aggregateScores', () => {
  const details = { a: detail(0.2), b: detail(0.6), c: detail(1) };
  const weighted = refs([{ name: 'a', weight: 3 }, 'b', { name: 'c', weight: 0.5 }]);

  it('supports mean (default), min, max and weighted', () => {
    expect(aggregateScores(details, weighted)).toBeCloseTo(0.6);
    expect(aggregateScores(details, weighted, 'mean')).toBeCloseTo(0.6);
    expect(aggregateScores(details, weighted, 'min')).toBe(0.2);
    expect(aggregateScores(details, weighted, 'max')).toBe(1);
    // (3*0.2 + 1*0.6 + 0.5*1) / 4.5
    expect(aggregateScores(details, weighted, 'weighted')).toBeCloseTo(1.7 / 4.5);
  });

  it('weighs scorers without a weight as 1, and gives 0 when there is nothing to aggregate', () => {
    expect(aggregateScores(details, [], 'weighted')).toBeCloseTo(0.6);
    for (const aggregation of ['mean', 'min', 'max', 'weighted'] as const) expect(aggregateScores({}, [], aggregation)).toBe(0);
  });
});

describe('casePasses', () => {
  it('needs every scorer at or above the minimum', () => {
    const r = refs(['a', 'b']);
    expect(casePasses({ a: detail(0.7), b: detail(0.9) }, r, 0.7)).toBe(true);
    expect(casePasses({ a: detail(0.69), b: detail(1) }, r, 0.7)).toBe(false);
  });

  it("uses a scorer's own minScore over the case's", () => {
    const r = refs([{ name: 'a', minScore: 0.3 }, 'b']);
    expect(casePasses({ a: detail(0.4), b: detail(0.8) }, r, 0.7)).toBe(true);
    expect(casePasses({ a: detail(0.2), b: detail(0.8) }, r, 0.7)).toBe(false);
    expect(
      casePasses(
        { a: detail(0.9), b: detail(0.6) },
        refs([
          { name: 'a', minScore: 0.3 },
          { name: 'b', minScore: 0.95 },
        ]),
        0.1,
      ),
    ).toBe(false);
  });

  it('fails a case when a referenced scorer has no score', () => {
    expect(casePasses({ a: detail(1) }, refs(['a', 'b']), 0.5)).toBe(false);
  });

  it('tolerates floating-point noise in averaged scores', () => {
    // (0.1 + 0.4 + 0.7) / 3 is 0.39999999999999997 in floating point.
    const mean = meanDetails([{ a: detail(0.1) }, { a: detail(0.4) }, { a: detail(0.7) }]);
    expect(mean.a.score).toBeLessThan(0.4);
    expect(casePasses(mean, refs(['a']), 0.4)).toBe(true);
  });
});

describe('meanDetails', () => {
  it('averages each scorer across trials, keeping the first reason and evidence', () => {
    const trials = [
      { a: { score: 1, reason: 'found all', evidence: ['Paris'] }, b: detail(0) },
      { a: { score: 0.5, reason: 'found half', evidence: [] }, b: detail(1) },
    ];
    expect(meanDetails(trials)).toEqual({
      a: { score: 0.75, reason: 'found all (mean of 2 trials)', evidence: ['Paris'] },
      b: { score: 0.5, reason: '(mean of 2 trials)', evidence: [] },
    });
  });

  it('averages a scorer over the trials that have it, and leaves a single trial as it is', () => {
    expect(meanDetails([{ a: detail(1) }, { b: detail(0.5) }])).toEqual({ a: detail(1), b: detail(0.5) });
    expect(meanDetails([])).toEqual({});
  });
});

describe('caseShortfall: why a case fails on its scores, in words', () => {
  it('names the first scorer under its minimum, with its score, minimum and reason', () => {
    const details = { exactMatch: { score: 0.2, reason: "expected 'Paris', got 'Lyon'", evidence: [] }, contains: detail(1) };
    expect(caseShortfall(details, refs(['exactMatch', 'contains']), 0.7)).toBe(
      "scorer 'exactMatch' scored 0.2, below its minimum 0.7: expected 'Paris', got 'Lyon'",
    );
  });

  it('counts the other scorers that fell short, and names a missing score', () => {
    expect(caseShortfall({ a: detail(0.1), b: detail(0.2), c: detail(0.3) }, refs(['a', 'b', 'c']), 0.5)).toMatch(
      /^scorer 'a' scored 0\.1, below its minimum 0\.5.*\(and 2 more scorers below their minimum\)$/,
    );
    expect(caseShortfall({ a: detail(1) }, refs(['a', 'b']), 0.5)).toBe("scorer 'b' has no score");
  });

  it('is null exactly when the case passes, and cuts a long reason', () => {
    expect(caseShortfall({ a: detail(0.7) }, refs(['a']), 0.7)).toBeNull();
    const long = caseShortfall({ a: { score: 0, reason: 'x'.repeat(5000), evidence: [] } }, refs(['a']), 0.7)!;
    expect(long.length).toBeLessThan(400);
    expect(long.endsWith('...')).toBe(true);
  });
});
