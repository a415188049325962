import { z } from 'zod';
import { offsetList, offsetPageFields, Time, timestamps } from './answer-fields.js';
import {
  ALERT_EVENT_KINDS,
  ALERT_METRICS,
  ALERT_OPERATORS,
  ALERT_SEVERITIES,
  ALERT_STATES,
  AlertFilterSchema,
  DELIVERY_STATUSES,
  DRIFT_SOURCES,
  DRIFT_TESTS,
  NO_DATA_POLICIES,
} from './alert.js';
import { EVALUATION_STATUSES, ON_RESUME, ONLINE_RULE_TARGETS } from './online-rule.js';
import { CORRELATION_METRICS, INTERVALS, type IntervalName } from './analytics.js';
import { COST_GROUPS } from './cost-analytics.js';
import { AGREEMENT_LEVELS } from './calibration.js';
import { COMPONENT_TYPES } from './span.js';

/**
 * What the alerting endpoints answer, as zod schemas: see core/model/answers.ts (how they are
 * used). Each mirrors the TypeScript type named in its comment (core/model/alert.ts).
 */

/** AlertRule: its definition and where its evaluation stands. */
export const AlertRuleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    metric: z.enum(ALERT_METRICS),
    filter: AlertFilterSchema,
    window_seconds: z.number().int(),
    eval_interval_seconds: z.number().int(),
    operator: z.enum(ALERT_OPERATORS),
    threshold: z.number(),
    severity: z.enum(ALERT_SEVERITIES),
    webhook_url: z.string().nullable(),
    no_data: z.enum(NO_DATA_POLICIES),
    min_samples: z.number().int(),
    enabled: z.boolean(),
    drift_test: z.enum(DRIFT_TESTS).nullable(),
    drift_source: z.enum(DRIFT_SOURCES).nullable(),
    baseline_windows: z.number().int().nullable(),
    psi_bins: z.number().int().nullable(),
    state: z.enum(ALERT_STATES),
    state_since: Time,
    next_eval_at: Time,
    last_evaluated_at: Time.nullable(),
    last_value: z.number().nullable(),
    last_error: z.string().nullable(),
    ...timestamps,
  })
  .meta({ id: 'AlertRule' });

/** AlertRuleList. */
export const AlertRuleListSchema = offsetList('rules', AlertRuleSchema);

/** AlertEvent: a rule's state change and its webhook delivery (`payload` is what the webhook receives). */
export const AlertEventSchema = z
  .object({
    id: z.string(),
    rule_id: z.string(),
    kind: z.enum(ALERT_EVENT_KINDS),
    value: z.number().nullable(),
    threshold: z.number(),
    at: Time,
    payload: z.object({
      event: z.enum(ALERT_EVENT_KINDS),
      event_id: z.string(),
      rule: z.object({
        id: z.string(),
        name: z.string(),
        metric: z.enum(ALERT_METRICS),
        filter: AlertFilterSchema,
        operator: z.enum(ALERT_OPERATORS),
        threshold: z.number(),
        severity: z.enum(ALERT_SEVERITIES),
        state: z.enum(ALERT_STATES),
      }),
      value: z.number().nullable(),
      threshold: z.number(),
      window: z.object({ seconds: z.number().int(), from: Time, to: Time }),
      project_id: z.string(),
      at: Time,
    }),
    delivery_status: z.enum(DELIVERY_STATUSES),
    delivery_attempts: z.number().int(),
    delivery_error: z.string().nullable(),
    last_attempt_at: Time.nullable(),
    next_attempt_at: Time.nullable(),
  })
  .meta({ id: 'AlertEvent' });

/** AlertEventList. */
export const AlertEventListSchema = offsetList('events', AlertEventSchema);

// ---- Online rules (core/model/online-rule.ts) ----

const definitionShape = {
  name: z.string(),
  target: z.enum(ONLINE_RULE_TARGETS),
  filter: z.looseObject({}).describe('The trace filter (docs/online-evals.md)'),
  sample_rate: z.number().min(0).max(1),
  scorers: z.array(z.unknown()).describe('Scorer references, as the suites name them (docs/scorers.md)'),
  expected: z.looseObject({}).describe("What rule-based scorers compare each trace with (a case's expected)"),
  delay_seconds: z.number().int().optional(),
  idle_seconds: z.number().int().optional(),
  on_resume: z.enum(ON_RESUME).optional(),
  enabled: z.boolean(),
};

/** OnlineRule: its settings, defaults filled, and what it has done so far (OnlineRuleStats). */
export const OnlineRuleSchema = z
  .object({
    id: z.string(),
    ...definitionShape,
    since: Time,
    ...timestamps,
    stats: z.object({
      scored: z.number().int(),
      skipped_by_sampling: z.number().int(),
      errors: z.number().int(),
      pending: z.number().int(),
      judge_tokens: z.number().int(),
      cost_usd: z.number(),
      last_scored_at: Time.nullable(),
      last_scan_at: Time.nullable(),
      last_scan_error: z.string().nullable(),
      lag_seconds: z.number(),
      watermark: Time,
    }),
  })
  .meta({ id: 'OnlineRule' });

/** OnlineRuleList. */
export const OnlineRuleListSchema = offsetList('rules', OnlineRuleSchema);

/** PUT/PATCH /api/evals/online-rules/{id}: fields to change, merged into the stored rule, which is then checked whole. */
export const OnlineRulePatchSchema = z
  .looseObject(Object.fromEntries(Object.entries(definitionShape).map(([k, v]) => [k, v.optional()])))
  .describe(
    "Fields of the rule to change (`{enabled: false}` pauses it), merged into the stored rule and checked as a whole; GET's read-only fields are accepted and ignored",
  );

const ScoreRecord = z.object({ score_id: z.string(), value: z.number(), reason: z.string(), judge_trace_id: z.string().optional() });
const evaluationShape = {
  status: z.enum(EVALUATION_STATUSES),
  attempts: z.number().int(),
  scores: z.record(z.string(), ScoreRecord).nullable(),
  error: z.string().nullable(),
  cost_usd: z.number().nullable(),
  created_at: Time,
  finished_at: Time.nullable(),
};

/** A rule's evaluations: a trace rule's (OnlineEvaluation) or a session rule's (OnlineSessionEvaluation), newest first. */
export const OnlineEvaluationListSchema = z.object({
  evaluations: z.array(
    z.union([
      z.object({ trace_id: z.string(), trace_end: Time, ...evaluationShape }),
      z.object({
        session_id: z.string(),
        generation: z.number().int(),
        session_end: Time,
        idle_since: Time,
        turns: z.number().int().nullable(),
        last_trace_id: z.string().nullable(),
        ...evaluationShape,
      }),
    ]),
  ),
  ...offsetPageFields,
});

// ---- Analytics (core/model/analytics.ts) and judge calibration (core/model/calibration.ts) ----

const N = z.number();
const NN = z.number().nullable();
const windowShape = {
  start_time: Time,
  end_time: Time,
  interval: z.enum(Object.keys(INTERVALS) as [IntervalName, ...IntervalName[]]),
  interval_seconds: z.number().int(),
  buckets: z.array(Time),
};
const scoreNameCount = { score_name: z.string(), count: z.number().int(), avg: N };

/** ScoreTrends: GET /api/analytics/scores. */
export const ScoreTrendsSchema = z.object({
  ...windowShape,
  score_names: z.array(z.object(scoreNameCount)),
  score_names_truncated: z.boolean(),
  series: z.array(z.object({ ...scoreNameCount, counts: z.array(z.number().int()), avgs: z.array(NN) })),
  total: z.number().int(),
});

const Quantiles2 = z.object({ p50: NN, p95: NN });
const healthRow = {
  span_count: z.number().int(),
  error_count: z.number().int(),
  error_rate: N,
  latency_ms: Quantiles2,
  tokens: Quantiles2.extend({ total: N }),
  cost_usd: N,
  unpriced_llm_calls: z.number().int(),
};

/** ComponentHealth: GET /api/analytics/components. */
export const ComponentHealthSchema = z.object({
  start_time: Time,
  end_time: Time,
  span_count: z.number().int(),
  by_component_type: z.array(z.object({ ...healthRow, component_type: z.enum(COMPONENT_TYPES).nullable() })),
  by_model: z.array(z.object({ ...healthRow, model: z.string() })),
  models_truncated: z.boolean(),
});

const Quantiles3Series = z.object({ p50: z.array(NN), p95: z.array(NN), p99: z.array(NN) });
const Quantiles3 = z.object({ p50: NN, p95: NN, p99: NN });

/** MetricSeries: GET /api/analytics/timeseries. */
export const MetricSeriesSchema = z.object({
  ...windowShape,
  level: z.enum(['trace', 'span']),
  counts: z.array(z.number().int()),
  error_rates: z.array(NN),
  latency_ms: Quantiles3Series,
  tokens: Quantiles3Series,
  cost_usd: z.array(N),
  overall: z.object({ count: z.number().int(), error_rate: NN, latency_ms: Quantiles3, tokens: Quantiles3, cost_usd: N }),
});

/** ScoreCorrelation: GET /api/analytics/correlation. */
export const ScoreCorrelationSchema = z.object({
  start_time: Time,
  end_time: Time,
  score_name: z.string(),
  metric: z.enum(CORRELATION_METRICS),
  n: z.number().int(),
  pearson_r: NN,
  spearman_rho: NN,
  score_mean: NN,
  metric_mean: NN,
  points: z.array(z.object({ trace_id: z.string(), score: N, value: N })),
  sampled: z.boolean(),
});

/** CostBreakdown (core/model/cost-analytics.ts): GET /api/analytics/costs. */
export const CostBreakdownSchema = z.object({
  ...windowShape,
  group_by: z.enum(COST_GROUPS),
  groups: z.array(
    z.object({
      key: z.string(),
      label: z.string().nullable().optional(),
      cost_usd: z.array(N),
      tokens: z.array(N),
      total_cost_usd: N,
      total_tokens: N,
      traces: z.number().int(),
    }),
  ),
  groups_truncated: z.boolean(),
  total: z.object({ cost_usd: N, tokens: N, traces: z.number().int(), unpriced_llm_calls: z.number().int() }),
  top_traces: z.array(z.object({ trace_id: z.string(), name: z.string(), start_time: Time, cost_usd: N, tokens: N })),
  top_sessions: z.array(z.object({ session_id: z.string(), cost_usd: N, traces: z.number().int() })),
});

/** ToolAnalytics: GET /api/analytics/tools. */
export const ToolAnalyticsSchema = z.object({
  start_time: Time,
  end_time: Time,
  tool_call_count: z.number().int(),
  scored_count: z.number().int(),
  tools: z.array(
    z.object({
      tool_name: z.string(),
      call_count: z.number().int(),
      error_count: z.number().int(),
      error_rate: N,
      latency_ms: Quantiles2,
      trace_count: z.number().int(),
      scored_count: z.number().int(),
      argument_mismatch_count: z.number().int(),
      argument_mismatch_rate: NN,
    }),
  ),
  tools_truncated: z.boolean(),
});

const JudgeCalibrationSchema = z.object({
  judge: z.string(),
  score_name: z.string(),
  human_score_name: z.string(),
  pairs: z.number().int(),
  pearson_r: NN,
  spearman_rho: NN,
  kappa: NN,
  band_agreement: N,
  agreement: z.enum(AGREEMENT_LEVELS),
  summary: z.string(),
  judge_mean: N,
  human_mean: N,
  mean_abs_diff: N,
  confusion: z.array(z.array(N)),
});

/** JudgeCalibrationAnswer: GET /api/judges/{name}/calibration. */
export const JudgeCalibrationAnswerSchema = z.object({ judge: z.string(), start_time: Time, end_time: Time, calibrations: z.array(JudgeCalibrationSchema) });

/** CalibrationList: GET /api/judges/calibration. */
export const CalibrationListSchema = z.object({
  start_time: Time,
  end_time: Time,
  min_pairs: z.number().int(),
  calibrations: z.array(JudgeCalibrationSchema),
  truncated: z.boolean(),
});
