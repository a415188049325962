/** The analytics page's judge calibration panel: the request it makes and its words (docs/judges.md "Calibration"). */
import type { AgreementLevel } from './types.js';

/** Bands in the API's order (core/model/calibration.ts RATING_BANDS), and the SPEC's ranges of them. */
export const BAND_NAMES = ['poor', 'fair', 'good', 'excellent'] as const;
export const BAND_RANGES = 'poor below 0.5, fair 0.5-0.7, good 0.7-0.9, excellent 0.9-1';

/** Landis and Koch's words for a kappa, as a label. */
export const LEVEL_LABEL: Record<AgreementLevel, string> = {
  almost_perfect: 'almost perfect agreement',
  substantial: 'substantial agreement',
  moderate: 'moderate agreement',
  fair: 'fair agreement',
  slight: 'slight agreement',
  poor: 'worse than chance',
  undetermined: 'not measurable yet',
};

/** Every judge with at least one pair in the page's range: the statement says when there are too few to trust. */
export function calibrationRequest(range: string): string {
  return `/api/judges/calibration?range=${encodeURIComponent(range)}&min_pairs=1`;
}

/** A correlation as text: two decimals, or "-" when it is not defined. */
export function formatCorrelation(v: number | null): string {
  return v === null ? '-' : v.toFixed(2);
}
