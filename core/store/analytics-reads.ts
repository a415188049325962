import type { PriceTable } from '../cost/price-table.js';
import type {
  ComponentHealth,
  ComponentHealthQuery,
  CorrelationQuery,
  MetricSeries,
  MetricSeriesQuery,
  ScoreCorrelation,
  ScoreTrends,
  ScoreTrendsQuery,
  ToolAnalytics,
  ToolAnalyticsQuery,
} from '../model/analytics.js';
import type { CalibrationList, CalibrationListQuery, JudgeCalibrationAnswer, JudgeCalibrationQuery } from '../model/calibration.js';
import type { RecomputeResult, TraceCost } from '../model/cost.js';
import type { CostBreakdown, CostBreakdownQuery } from '../model/cost-analytics.js';
import type { FailureSpan } from '../failures/root-cause.js';

/**
 * The analytical store's aggregate reads: the dashboard's analytics, costs, judges' calibration.
 * Implemented over ClickHouse in store/clickhouse/ (analytics-reads.ts, cost-reads.ts,
 * calibration-reads.ts); reached as `AnalyticsStore.aggregates`, `.costs` and `.calibration`.
 *
 * Promises, for every read here:
 * - Every read filters by the project it is given; nothing of another project is counted.
 * - Reads change nothing: any of them may be retried or repeated at will. They see what was
 *   acknowledged before they started (an acknowledged write is on disk, docs/architecture.md).
 * - Counts are of distinct spans and scores (a span or score written twice counts once).
 * - An unreachable or overloaded store rejects (503 by core/wire-error.ts); nothing is cached here,
 *   and what a caller gets is its own copy to keep.
 */

/** The dashboard's aggregate reads (docs/api.md, "Analytics"). Every read filters by project. */
export interface AnalyticsReads {
  scoreTrends(projectId: string, q: ScoreTrendsQuery): Promise<ScoreTrends>;
  componentHealth(projectId: string, q: ComponentHealthQuery): Promise<ComponentHealth>;
  metricSeries(projectId: string, q: MetricSeriesQuery): Promise<MetricSeries>;
  correlation(projectId: string, q: CorrelationQuery): Promise<ScoreCorrelation>;
  /** Per tool: calls, errors, latency, and argument mismatches from the `toolCalls` scores (GET /api/analytics/tools). */
  tools(projectId: string, q: ToolAnalyticsQuery): Promise<ToolAnalytics>;
  /** What model calls cost by a grouping, per bucket, with the costliest traces and sessions (GET /api/analytics/costs). */
  costs(projectId: string, q: CostBreakdownQuery): Promise<CostBreakdown>;
  /** What failure analysis reads of the traces' spans (core/failures), by trace id; at most `maxRows` spans in all. */
  failureSpans(projectId: string, traceIds: readonly string[], maxRows: number): Promise<Map<string, FailureSpan[]>>;
}

/** Costs over stored spans (docs/costs.md): the cost of given traces (a run's), and repricing a window. */
export interface CostReads {
  /** Per trace of `traceIds` (those with generation spans): total, judges' part, unpriced calls. */
  traceCosts(projectId: string, traceIds: string[]): Promise<Map<string, TraceCost>>;
  /**
   * Reprices the project's generation spans that started in [from, to) with `prices`: new row
   * versions of the spans whose cost changes, and new cost states of their traces. The one write
   * here; idempotent: running it again with the same prices writes nothing more.
   */
  recompute(projectId: string, from: Date, to: Date, prices: PriceTable): Promise<RecomputeResult>;
}

/** Judges' agreement with people, computed where the scores live (GET /api/judges/*calibration). */
export interface CalibrationReads {
  judge(projectId: string, judge: string, q: JudgeCalibrationQuery): Promise<JudgeCalibrationAnswer>;
  list(projectId: string, q: CalibrationListQuery): Promise<CalibrationList>;
}
