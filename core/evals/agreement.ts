import { FEW_PAIRS, type AgreementLevel } from '../model/calibration.js';

/**
 * Agreement statistics finished in TypeScript from what ClickHouse aggregated (the pairs are
 * joined and correlated there: core/store/clickhouse/calibration-sql.ts): Cohen's kappa from the
 * band confusion matrix, and the words for it.
 */

/**
 * The rating band of a score (SPEC: 0.9-1 excellent, 0.7-0.9 good, 0.5-0.7 fair, below poor),
 * as an index into RATING_BANDS. Rounded to 9 decimals first, so a mean of 0.7s stays good.
 * The SQL twin is BAND in calibration-sql.ts.
 */
export function ratingBand(value: number): number {
  const v = Math.round(value * 1e9) / 1e9;
  return v >= 0.9 ? 3 : v >= 0.7 ? 2 : v >= 0.5 ? 1 : 0;
}

/** Observed agreement (share on the diagonal) of a square confusion matrix; 0 when empty. */
export function observedAgreement(confusion: number[][]): number {
  const n = confusion.flat().reduce((a, b) => a + b, 0);
  if (n === 0) return 0;
  return confusion.reduce((sum, row, i) => sum + row[i], 0) / n;
}

/**
 * Cohen's kappa of two raters from their confusion matrix (`confusion[a][b]`: items rater one put
 * in category a and rater two in b): (po - pe) / (1 - pe), pe from the marginals. Null when there
 * are no items or chance agreement is already 1 (both raters used one and the same category).
 */
export function cohensKappa(confusion: number[][]): number | null {
  const k = confusion.length;
  const n = confusion.flat().reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  let pe = 0;
  for (let i = 0; i < k; i++) {
    const row = confusion[i].reduce((a, b) => a + b, 0);
    const col = confusion.reduce((a, r) => a + r[i], 0);
    pe += (row / n) * (col / n);
  }
  if (1 - pe < 1e-12) return null;
  return (observedAgreement(confusion) - pe) / (1 - pe);
}

/** Landis and Koch's (1977) scale: below 0 poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 substantial, above almost perfect. */
export function agreementLevel(kappa: number | null): AgreementLevel {
  if (kappa === null) return 'undetermined';
  if (kappa < 0) return 'poor';
  if (kappa <= 0.2) return 'slight';
  if (kappa <= 0.4) return 'fair';
  if (kappa <= 0.6) return 'moderate';
  if (kappa <= 0.8) return 'substantial';
  return 'almost_perfect';
}

const PHRASE: Record<AgreementLevel, string> = {
  almost_perfect: 'agrees very well with people',
  substantial: 'agrees well with people',
  moderate: 'agrees moderately with people',
  fair: 'agrees only fairly with people',
  slight: 'barely agrees with people',
  poor: 'agrees with people less than chance would',
  undetermined: "agreement with people can't be measured yet",
};

/** "safety_judge agrees well with people: kappa 0.72 over 140 pairs". */
export function agreementSummary(judge: string, kappa: number | null, pairs: number): string {
  const level = agreementLevel(kappa);
  const pairWord = pairs === 1 ? 'pair' : 'pairs';
  const stat = kappa === null ? `${pairs} ${pairWord}, all in one rating band on both sides` : `kappa ${kappa.toFixed(2)} over ${pairs} ${pairWord}`;
  const caveat = pairs < FEW_PAIRS ? ` (fewer than ${FEW_PAIRS} pairs: uncertain)` : '';
  return `${judge} ${PHRASE[level]}: ${stat}${caveat}`;
}
