import { describe, expect, it } from 'vitest';
import { agreementLevel, agreementSummary, cohensKappa, observedAgreement, ratingBand } from '../../../core/evals/agreement.js';

/** Two raters' yes/no counts as the 2 x 2 matrix the functions take: rows are the first rater, columns the second. */
const yesNo = (bothYes: number, yesThenNo: number, noThenYes: number, bothNo: number) => [
  [bothYes, yesThenNo],
  [noThenYes, bothNo],
];

describe("Cohen's kappa", () => {
  it('matches the textbook two-rater example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no gives 0.4', () => {
    // po = 0.7, pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5 (Wikipedia, "Cohen's kappa", simple example).
    expect(cohensKappa(yesNo(20, 5, 10, 15))).toBeCloseTo(0.4, 12);
  });

  it('gives the same observed agreement different kappas by the marginals (the textbook pair: 0.1304 and 0.2593)', () => {
    expect(cohensKappa(yesNo(45, 15, 25, 15))).toBeCloseTo(0.130434782608, 9);
    expect(cohensKappa(yesNo(25, 35, 5, 35))).toBeCloseTo(0.259259259259, 9);
    expect(observedAgreement(yesNo(45, 15, 25, 15))).toBeCloseTo(0.6, 12);
  });

  it('works over the four rating bands', () => {
    // Bands poor, fair, good, excellent. n = 100, diagonal 10 + 15 + 20 + 20 = 65.
    const m = [
      [10, 3, 1, 0],
      [4, 15, 5, 1],
      [1, 6, 20, 4],
      [0, 1, 9, 20],
    ];
    // Rows 14, 25, 31, 30; columns 15, 25, 35, 25: pe = (210 + 625 + 1085 + 750) / 10000 = 0.267,
    // kappa = (0.65 - 0.267) / (1 - 0.267) = 0.383 / 0.733.
    expect(observedAgreement(m)).toBeCloseTo(0.65, 12);
    expect(cohensKappa(m)).toBeCloseTo(0.383 / 0.733, 12);
    expect(cohensKappa(m)).toBeCloseTo(0.522510232, 9);
  });

  it('is 1 for perfect agreement, negative below chance, undefined when everyone used one band', () => {
    expect(cohensKappa(yesNo(5, 0, 0, 5))).toBe(1);
    expect(cohensKappa(yesNo(0, 5, 5, 0))).toBe(-1);
    expect(cohensKappa(yesNo(7, 0, 0, 0))).toBeNull();
    expect(cohensKappa(yesNo(0, 0, 0, 0))).toBeNull();
  });
});

describe('rating bands (SPEC: 0.9-1 excellent, 0.7-0.9 good, 0.5-0.7 fair, below poor)', () => {
  it.each([
    [0, 0],
    [0.49, 0],
    [0.5, 1],
    [0.69, 1],
    [0.7, 2],
    [0.89, 2],
    [0.9, 3],
    [1, 3],
    // A mean of three 0.7 ratings is 0.6999999999999998 in floating point: still good.
    [(0.7 + 0.7 + 0.7) / 3, 2],
  ])('%s is band %s', (value, band) => {
    expect(ratingBand(value)).toBe(band);
  });
});

describe('agreement in words (Landis and Koch)', () => {
  it('says how well a judge agrees with people, with the numbers', () => {
    expect(agreementSummary('safety_judge', 0.72, 140)).toBe('safety_judge agrees well with people: kappa 0.72 over 140 pairs');
    expect(agreementSummary('helpfulness_judge', 0.85, 60)).toBe('helpfulness_judge agrees very well with people: kappa 0.85 over 60 pairs');
    expect(agreementSummary('j', 0.3, 12)).toBe('j agrees only fairly with people: kappa 0.30 over 12 pairs (fewer than 30 pairs: uncertain)');
    expect(agreementSummary('j', null, 8)).toContain('all in one rating band on both sides');
  });

  it.each([
    [-0.1, 'poor'],
    [0, 'slight'],
    [0.2, 'slight'],
    [0.3, 'fair'],
    [0.5, 'moderate'],
    [0.7, 'substantial'],
    [0.81, 'almost_perfect'],
    [null, 'undetermined'],
  ] as const)('kappa %s is %s', (k, level) => {
    expect(agreementLevel(k)).toBe(level);
  });
});
