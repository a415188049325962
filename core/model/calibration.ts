import { z } from 'zod';
import { ANALYTICS_RANGES, resolveTimeWindow, type AnalyticsRange } from './analytics.js';
import { Timestamp } from './ingest-body.js';

/**
 * Judge calibration (docs/judges.md "Calibration"): how well an automatic judge's scores agree
 * with people's on the same traces and score name. Judges' scores have source `eval` (run scorers
 * and online evaluation), people's source `annotation` (annotations and feedback turned into
 * scores, docs/feedback.md).
 */

/** The SPEC's rating bands, worst first: 0.9-1 excellent, 0.7-0.9 good, 0.5-0.7 fair, below poor. */
export const RATING_BANDS = ['poor', 'fair', 'good', 'excellent'] as const;
export type RatingBand = (typeof RATING_BANDS)[number];

/** Landis and Koch's (1977) words for a kappa, plus `undetermined` where kappa is not defined. */
export const AGREEMENT_LEVELS = ['almost_perfect', 'substantial', 'moderate', 'fair', 'slight', 'poor', 'undetermined'] as const;
export type AgreementLevel = (typeof AGREEMENT_LEVELS)[number];

/** Fewer pairs than this and the statement says the numbers are uncertain. */
export const FEW_PAIRS = 30;
/** Default of `min_pairs` in the list of judges. */
export const DEFAULT_MIN_PAIRS = 10;
/** Most (judge, score name) rows listed. */
export const MAX_CALIBRATIONS = 200;
/** Calibration looks back over what the stores keep unless told otherwise. */
export const DEFAULT_CALIBRATION_RANGE: AnalyticsRange = '90d';

const Name = z.string().min(1).max(256);

const WindowShape = z.object({
  range: z.enum(Object.keys(ANALYTICS_RANGES) as [AnalyticsRange, ...AnalyticsRange[]]).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
});

/** The window of judge scores read: `range` back from now, or `start_time` (and optionally `end_time`). */
export interface CalibrationWindow {
  fromMs: number;
  toMs: number;
}

function resolve<T extends z.output<typeof WindowShape>>(v: T, ctx: z.RefinementCtx): Omit<T, 'range' | 'start_time' | 'end_time'> & CalibrationWindow {
  const { range, start_time, end_time, ...rest } = v;
  const window = resolveTimeWindow({ range, start_time, end_time }, ctx, DEFAULT_CALIBRATION_RANGE);
  return window ? { ...rest, ...window } : z.NEVER;
}

/** GET /api/judges/{name}/calibration */
export const JudgeCalibrationQuerySchema = WindowShape.extend({
  /** Only this score name of the judge; each of its score names otherwise. */
  score_name: Name.optional(),
  /** Compare with people's scores of this name instead of the judge's own score name (e.g. feedback's `rating`). */
  human_score_name: Name.optional(),
}).transform(resolve);
export type JudgeCalibrationQuery = z.output<typeof JudgeCalibrationQuerySchema>;

/** GET /api/judges/calibration */
export const CalibrationListQuerySchema = WindowShape.extend({
  min_pairs: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MIN_PAIRS),
}).transform(resolve);
export type CalibrationListQuery = z.output<typeof CalibrationListQuerySchema>;

/** One judge's agreement with people on one score name. */
export interface JudgeCalibration {
  /** The judge: the scores' `scorer_name`, or their name when they have none. */
  judge: string;
  score_name: string;
  /** The name of the people's scores compared (the judge's score name unless `human_score_name` said otherwise). */
  human_score_name: string;
  /** Traces scored by both: the judge's scores of a trace averaged, and people's. */
  pairs: number;
  /** Pearson's r of the paired values; null below 3 pairs or when a side does not vary. */
  pearson_r: number | null;
  /** Spearman's rho (Pearson's r of the ranks, ties given their mean rank); null as pearson_r. */
  spearman_rho: number | null;
  /** Cohen's kappa over the rating bands; null where it is not defined (every pair in one band on both sides). */
  kappa: number | null;
  /** Share of pairs whose two values fall in the same rating band. */
  band_agreement: number;
  agreement: AgreementLevel;
  /** The agreement in words, e.g. "safety_judge agrees well with people: kappa 0.72 over 140 pairs". */
  summary: string;
  judge_mean: number;
  human_mean: number;
  /** Mean of |judge - human| over the pairs. */
  mean_abs_diff: number;
  /** Pairs by band: `confusion[judge band][human band]`, bands in RATING_BANDS order. */
  confusion: number[][];
}

/** GET /api/judges/{name}/calibration */
export interface JudgeCalibrationAnswer {
  judge: string;
  start_time: string;
  end_time: string;
  /** One per score name of the judge with paired people's scores, most pairs first. */
  calibrations: JudgeCalibration[];
}

/** GET /api/judges/calibration */
export interface CalibrationList {
  start_time: string;
  end_time: string;
  min_pairs: number;
  /** Every (judge, score name) with at least `min_pairs` pairs, most pairs first (at most MAX_CALIBRATIONS). */
  calibrations: JudgeCalibration[];
  truncated: boolean;
}
