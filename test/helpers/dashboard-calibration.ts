import type { Score } from '../../core/model/score.js';
import { numericScore } from './score-record.js';

/**
 * Judges' and people's scores with a known agreement, and the selectors of the analytics page's
 * calibration panel and the cost cells (test/browser/analytics-calibration.test.ts).
 */

/**
 * safety_judge against people on 40 traces, as (judge value, people value, how many):
 * both excellent 15, both good 10, both poor 8, judge excellent / people good 3, judge good /
 * people excellent 2, judge poor / people good 2. po = 33/40 = 0.825; judge's bands 18 excellent,
 * 12 good, 10 poor; people's 17, 15, 8: pe = (18*17 + 12*15 + 10*8) / 1600 = 0.35375;
 * kappa = (0.825 - 0.35375) / (1 - 0.35375) = 0.729...
 */
export const SAFETY_PAIRS: Array<[number, number, number]> = [
  [0.95, 0.95, 15],
  [0.8, 0.8, 10],
  [0.2, 0.2, 8],
  [0.95, 0.8, 3],
  [0.8, 0.95, 2],
  [0.2, 0.8, 2],
];
export const SAFETY_KAPPA = (0.825 - 0.35375) / (1 - 0.35375);

/** tone_judge on five traces: too few pairs to trust. */
export const TONE_PAIRS: Array<[number, number]> = [
  [0.9, 0.3],
  [0.8, 0.9],
  [0.2, 0.6],
  [0.6, 0.1],
  [0.95, 0.7],
];

let seq = 0;
/** A score as a judge (source eval) or a person (source annotation) gives it. */
export function calibrationScore(traceId: string, name: string, value: number, source: 'eval' | 'annotation', scorer: string, createdAt: number): Score {
  seq++;
  return numericScore({ id: `00000000-0000-4000-9000-${String(seq).padStart(12, '0')}`, traceId, name, value, source, scorer, createdAt });
}

export const CALIBRATION_SEL = {
  panel: '[data-testid="calibration"]',
  judge: (judge: string) => `[data-testid="calibration-judge"][data-judge="${judge}"]`,
  summary: '[data-testid="calibration-summary"]',
  level: '[data-testid="calibration-level"]',
  kappa: '[data-testid="calibration-kappa"]',
  pairs: '[data-testid="calibration-pairs"]',
  confusion: '[data-testid="calibration-confusion"]',
  empty: '[data-testid="calibration-empty"]',
  traceRow: (id: string) => `[data-testid="trace-row"][data-trace-id="${id}"]`,
  traceCost: '[data-testid="trace-cost"]',
  spanCost: '[data-testid="span-cost"]',
  healthCost: (model: string) => `[data-testid="component-health-table"] tr[data-model="${model}"] [data-testid="health-cost"]`,
};
