import { z } from 'zod';
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

/**
 * What the alerting endpoints answer, as zod schemas: see core/model/answers.ts (how they are
 * used). Each mirrors the TypeScript type named in its comment (core/model/alert.ts).
 */

const Time = z.string().describe('ISO 8601 with milliseconds');

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
    created_at: Time,
    updated_at: Time,
  })
  .meta({ id: 'AlertRule' });

/** AlertRuleList. */
export const AlertRuleListSchema = z.object({ rules: z.array(AlertRuleSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

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
export const AlertEventListSchema = z.object({ events: z.array(AlertEventSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

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
    created_at: Time,
    updated_at: Time,
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
export const OnlineRuleListSchema = z.object({ rules: z.array(OnlineRuleSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

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
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
