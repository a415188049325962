import { describe, expect, it } from 'vitest';
import { calibrationRequest, formatCorrelation } from '../../../ui/src/lib/calibration.js';
import { costWords, formatUsd } from '../../../ui/src/lib/cost.js';

describe('money as people read it', () => {
  it.each([
    [null, '-'],
    [0, '$0'],
    [1234.5, '$1,234.50'],
    [1, '$1.00'],
    [0.5, '$0.50'],
    [0.024, '$0.024'],
    [0.00054, '$0.00054'],
    [0.000435, '$0.00044'],
    [0.0000031, '$0.000003'],
    [0.0000001, '< $0.000001'],
  ])('%s is %s', (usd, words) => {
    expect(formatUsd(usd)).toBe(words);
  });

  it('names the calls of unknown price', () => {
    expect(costWords(0.00054, 1)).toBe('$0.00054 (+ 1 call of unknown price)');
    expect(costWords(null, 2)).toBe('no priced model calls (+ 2 calls of unknown price)');
    expect(costWords(1.5, 0)).toBe('$1.50');
  });
});

describe('the calibration panel', () => {
  it('asks for every judge with a pair in the range, and writes correlations with two decimals', () => {
    expect(calibrationRequest('7d')).toBe('/api/judges/calibration?range=7d&min_pairs=1');
    expect(formatCorrelation(0.7292)).toBe('0.73');
    expect(formatCorrelation(null)).toBe('-');
  });
});
