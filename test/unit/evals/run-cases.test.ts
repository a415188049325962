import { describe, expect, it } from 'vitest';
import { casesOfDataset, casesOfSuite, datasetItems, indexedCases } from '../../../core/model/run-cases.js';

const contains = { name: 'contains', config: {} };
const exact = { name: 'exactMatch', config: {} };

describe('run cases', () => {
  it("takes a suite case's own scorers, else the suite's, and its min score or null", () => {
    const cases = casesOfSuite({
      defaultScorers: [contains],
      cases: [
        { name: 'a', input: 'x', expected: { output: 'y' }, weight: 1 },
        { name: 'b', input: 2, expected: {}, scorers: [exact], minScore: 0.9, weight: 3 },
      ],
    });
    expect(cases).toEqual([
      { name: 'a', input: 'x', expected: { output: 'y' }, scorers: [contains], min_score: null, weight: 1 },
      { name: 'b', input: 2, expected: {}, scorers: [exact], min_score: 0.9, weight: 3 },
    ]);
    expect(indexedCases(cases).map((c) => [c.case_index, c.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
  });

  it("names a dataset item without a name by its position and gives it the run's scorers", () => {
    expect(
      casesOfDataset(
        [
          { input: 1, expected: {}, weight: 1 },
          { name: 'named', input: 2, expected: {}, scorers: [exact], minScore: 0.5, weight: 2 },
        ],
        [contains],
      ),
    ).toEqual([
      { name: 'item 1', input: 1, expected: {}, scorers: [contains], min_score: null, weight: 1 },
      { name: 'named', input: 2, expected: {}, scorers: [exact], min_score: 0.5, weight: 2 },
    ]);
  });

  it('turns cases back into dataset items, a null min score left out', () => {
    const items = datasetItems([
      { name: 'a', input: 1, expected: {}, scorers: [contains], min_score: null, weight: 1 },
      { name: 'b', input: 2, expected: {}, scorers: [exact], min_score: 0.8, weight: 2 },
    ]);
    expect(items).toEqual([
      { name: 'a', input: 1, expected: {}, scorers: [contains], weight: 1 },
      { name: 'b', input: 2, expected: {}, scorers: [exact], minScore: 0.8, weight: 2 },
    ]);
    expect('minScore' in items[0]).toBe(false);
  });
});
