import type { AlertRuleDefinition } from '../model/alert.js';
import type { AlertMetrics, TimeRange } from '../store/alert-metrics.js';
import type { AlertStore } from '../store/alerts.js';
import { ksStatistic, populationStabilityIndex } from './drift.js';

/** Where a rule's metric is read from. */
export interface MetricSources {
  metrics: AlertMetrics;
  runs: Pick<AlertStore, 'runPassRate'>;
}

export interface Measurement {
  /** Null: too little data in the window (fewer than min_samples; for drift, on either side). */
  value: number | null;
  samples: number;
  window: TimeRange;
}

/** The window a rule measures at `at`: [at - window_seconds, at). */
export function ruleWindow(rule: Pick<AlertRuleDefinition, 'window_seconds'>, at: Date): TimeRange {
  return { from: new Date(at.getTime() - rule.window_seconds * 1000), to: at };
}

/**
 * The drift baseline: the `baseline_windows` windows just before the current one,
 * [at - (N + 1) * window, at - window). A sliding baseline follows slow, accepted change and
 * flags what moved within about one window.
 */
export function baselineRange(rule: Pick<AlertRuleDefinition, 'window_seconds' | 'baseline_windows'>, at: Date): TimeRange {
  const w = rule.window_seconds * 1000;
  const n = rule.baseline_windows ?? 1;
  return { from: new Date(at.getTime() - (n + 1) * w), to: new Date(at.getTime() - w) };
}

/** Computes the rule's metric over its window ending at `at` (docs/alerts.md, "Metrics"). */
export async function measure(rule: AlertRuleDefinition, projectId: string, at: Date, sources: MetricSources): Promise<Measurement> {
  const window = ruleWindow(rule, at);
  const enough = (samples: number) => samples >= rule.min_samples;
  switch (rule.metric) {
    case 'trace_count': {
      const r = await sources.metrics.traceMetric(projectId, rule.metric, window, rule.filter);
      // A count is never missing: no traces is the value 0.
      return { value: r.samples, samples: r.samples, window };
    }
    case 'cost': {
      const r = await sources.metrics.traceMetric(projectId, rule.metric, window, rule.filter);
      // Nor is a sum of money: no traces cost $0.
      return { value: r.value ?? 0, samples: r.samples, window };
    }
    case 'error_rate':
    case 'latency_p50':
    case 'latency_p95':
    case 'tokens_per_trace': {
      const r = await sources.metrics.traceMetric(projectId, rule.metric, window, rule.filter);
      return { value: enough(r.samples) ? r.value : null, samples: r.samples, window };
    }
    case 'avg_score': {
      const r = await sources.metrics.scoreMean(projectId, rule.filter.score_name ?? '', window);
      return { value: enough(r.samples) ? r.value : null, samples: r.samples, window };
    }
    case 'run_pass_rate': {
      const r = await sources.runs.runPassRate(projectId, window, rule.filter.suite_name);
      return { value: enough(r.total) && r.total > 0 ? r.passed / r.total : null, samples: r.total, window };
    }
    case 'drift': {
      const s = await sources.metrics.driftSamples(projectId, rule.drift_source ?? 'score', rule.filter, baselineRange(rule, at), window);
      const samples = Math.min(s.baseline.length, s.current.length);
      if (!enough(samples)) return { value: null, samples, window };
      const value = rule.drift_test === 'ks' ? ksStatistic(s.baseline, s.current) : populationStabilityIndex(s.baseline, s.current, rule.psi_bins ?? undefined);
      return { value, samples, window };
    }
  }
}
