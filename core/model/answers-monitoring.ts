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
