/** The alerts page: metrics, conditions and values as people read them (docs/alerts.md). */
import { formatCount, formatDuration } from './format.js';
import { formatUsd } from './cost.js';
import { filtersToQuery, type TraceFilters } from './filters.js';
import type {
  AlertEventKind,
  AlertMetric,
  AlertNotification,
  AlertOperator,
  AlertRule,
  AlertSeverity,
  AlertState,
  DriftSource,
  NoDataPolicy,
} from './types.js';

/** Every metric with its label; a Record so the compiler flags a metric the API adds. */
export const METRIC_LABELS: Record<AlertMetric, string> = {
  error_rate: 'Error rate',
  latency_p50: 'Latency p50',
  latency_p95: 'Latency p95',
  tokens_per_trace: 'Tokens per trace',
  trace_count: 'Trace count',
  cost: 'Cost (USD)',
  avg_score: 'Average score',
  run_pass_rate: 'Run pass rate',
  drift: 'Drift',
};
export const METRICS = Object.keys(METRIC_LABELS) as AlertMetric[];

export const OPERATOR_SYMBOLS: Record<AlertOperator, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=' };
export const OPERATORS = Object.keys(OPERATOR_SYMBOLS) as AlertOperator[];
export const SEVERITIES: AlertSeverity[] = ['critical', 'warning', 'info'];
export const STATES: AlertState[] = ['ok', 'firing', 'no_data'];
export const EVENT_KINDS: AlertEventKind[] = ['fired', 'resolved', 'no_data'];
export const NO_DATA_LABELS: Record<NoDataPolicy, string> = {
  ok: 'counts as OK (resolves)',
  alert: 'alerts (state "no data")',
  keep: 'keeps the state',
};

export type FilterKey = 'trace_name' | 'model' | 'score_name' | 'suite_name';
export const FILTER_LABELS: Record<FilterKey, string> = {
  trace_name: 'Trace name contains',
  model: 'Model',
  score_name: 'Score name',
  suite_name: 'Suite name',
};

/**
 * The filter keys a metric reads (docs/alerts.md "Metrics"): the form offers only these. The API's
 * rule is core/model/alert.ts `filterKeysFor`, which the UI cannot import (that module brings zod
 * into the bundle); test/unit/ui/catalog.test.ts checks the two agree for every metric.
 */
export function filterKeys(metric: AlertMetric, driftSource: DriftSource | null): FilterKey[] {
  if (metric === 'avg_score') return ['score_name'];
  if (metric === 'run_pass_rate') return ['suite_name'];
  if (metric === 'drift') return driftSource === 'latency' ? ['trace_name', 'model'] : ['score_name'];
  return ['trace_name', 'model'];
}

/** Whether the metric needs `filter.score_name` (the API's 422 otherwise). */
export function needsScoreName(metric: AlertMetric, driftSource: DriftSource | null): boolean {
  return metric === 'avg_score' || (metric === 'drift' && driftSource !== 'latency');
}

/** A metric's value in its unit: rates in percent, latencies in ms or s, counts with separators. */
export function formatMetricValue(metric: AlertMetric, value: number | null): string {
  if (value === null || !Number.isFinite(value)) return 'no data';
  switch (metric) {
    case 'error_rate':
    case 'run_pass_rate':
      return `${Number((value * 100).toFixed(2))} %`;
    case 'latency_p50':
    case 'latency_p95':
      return formatDuration(value);
    case 'trace_count':
      return formatCount(value);
    case 'cost':
      return formatUsd(value);
    case 'tokens_per_trace':
      return formatCount(Math.round(value * 10) / 10);
    default:
      // avg_score and drift: unitless, to 4 decimals.
      return String(Number(value.toFixed(4)));
  }
}

/** "Error rate > 5 %". */
export function conditionText(rule: Pick<AlertRule, 'metric' | 'operator' | 'threshold'>): string {
  return `${METRIC_LABELS[rule.metric]} ${OPERATOR_SYMBOLS[rule.operator]} ${formatMetricValue(rule.metric, rule.threshold)}`;
}

/** 300 -> "5 min", 90 -> "1 min 30 s", 86400 -> "1 d". */
export function formatSeconds(total: number): string {
  if (!Number.isFinite(total) || total <= 0) return '-';
  const units: Array<[number, string]> = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.round(total);
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** "trace name contains support, model gpt-4o" or ''. */
export function filterText(filter: Partial<Record<FilterKey, string>>): string {
  return (Object.entries(filter) as Array<[FilterKey, string | undefined]>)
    .filter(([, v]) => v)
    .map(([k, v]) => `${FILTER_LABELS[k].toLowerCase()} ${v}`)
    .join(', ');
}

export const STATE_LABELS: Record<AlertState, string> = { ok: 'OK', firing: 'Firing', no_data: 'No data' };
export const KIND_LABELS: Record<AlertEventKind, string> = { fired: 'Fired', resolved: 'Resolved', no_data: 'No data' };
/** The badge tone (app.css .badge.ok, .warn, .error) of a rule's severity, a rule's state and an event; a firing rule's own is filled red. */
export const SEVERITY_TONE: Record<AlertSeverity, string> = { critical: 'error', warning: 'warn', info: '' };
export const STATE_TONE: Record<AlertState, string> = { ok: 'ok', firing: 'firing', no_data: 'warn' };
export const EVENT_TONE: Record<AlertEventKind, string> = { fired: 'error', resolved: 'ok', no_data: 'warn' };

/**
 * The traces behind an alert event: the traces page filtered to the event's window and the rule's
 * filter, narrowed to what the metric counts where the list can say it (status error for the error rate,
 * traces at least as slow as the threshold for a latency rule that fires above it, traces whose
 * score is below the threshold for an average-score rule that fires below it). Null for a run pass
 * rate (runs, not traces) or an event without its window.
 */
export function eventTracesHref(payload: Pick<AlertNotification, 'rule' | 'window' | 'threshold'> | null | undefined): string | null {
  if (!payload?.window || !payload.rule || payload.rule.metric === 'run_pass_rate') return null;
  const { rule, window, threshold } = payload;
  const filter = (rule.filter ?? {}) as Record<string, string | undefined>;
  const f: TraceFilters = { from: window.from, to: window.to };
  if (filter.trace_name) f.name = filter.trace_name;
  if (filter.model) f.model = filter.model;
  const above = rule.operator === 'gt' || rule.operator === 'gte';
  if (rule.metric === 'error_rate') f.status = 'error';
  if ((rule.metric === 'latency_p50' || rule.metric === 'latency_p95') && above && threshold > 0) f.minDurationMs = threshold;
  if (rule.metric === 'avg_score' && !above && filter.score_name && threshold > 0 && threshold <= 1) {
    f.scoreName = filter.score_name;
    f.scoreBelow = threshold;
  }
  return `/traces?${filtersToQuery(f)}`;
}
