import type { AlertFilter, DriftSource, TraceMetric } from '../model/alert.js';

/**
 * The analytical store's side of alert rules (docs/alerts.md, "Metrics"): aggregates over a
 * project's traces or scores in a time range. Implemented over ClickHouse by
 * store/clickhouse/alert-metrics.ts; reached as `AnalyticsStore.alerts`.
 *
 * Promises:
 * - Reads only, each filtered by the project: a call may be retried or repeated at will.
 * - A read gives up after a bounded time and rejects; the evaluator tries again at the rule's next
 *   interval, so nothing waits on a slow store.
 * - Drift samples are uniform and seeded: the same stored data gives the same sample.
 * - What a caller gets is its own: it may keep and change the values.
 */

/** A half-open time range [from, to). */
export interface TimeRange {
  from: Date;
  to: Date;
}

/** A metric's value over a range and how many traces or scores it was computed from. */
export interface WindowValue {
  /** Null when there were no samples. */
  value: number | null;
  samples: number;
}

export interface DriftSamples {
  baseline: number[];
  current: number[];
}

export interface AlertMetrics {
  /** A trace metric over the traces that started in `range`. */
  traceMetric(projectId: string, metric: TraceMetric, range: TimeRange, filter: AlertFilter): Promise<WindowValue>;
  /** The mean of the scores named `scoreName` created in `range`. */
  scoreMean(projectId: string, scoreName: string, range: TimeRange): Promise<WindowValue>;
  /**
   * Values of a score (by `filter.score_name`) or trace latencies in the baseline range and in the
   * current one, each a uniform sample of a bounded size (seeded, so repeatable).
   */
  driftSamples(projectId: string, source: DriftSource, filter: AlertFilter, baseline: TimeRange, current: TimeRange): Promise<DriftSamples>;
}
