import { z } from 'zod';
import { BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import { validate } from '../validate.js';
import { pgText } from './pg-json.js';
import { HttpUrlSchema } from './http-url.js';

/**
 * Alert rules and their events (SPEC "Alert rule (create fields)"; docs/alerts.md). A rule
 * measures a metric of one project over a sliding window, compares it with a threshold and
 * notifies a webhook when its state changes.
 */

export const ALERT_METRICS = [
  'avg_score',
  'error_rate',
  'latency_p50',
  'latency_p95',
  'tokens_per_trace',
  'run_pass_rate',
  'trace_count',
  'cost',
  'drift',
] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];

/** The metrics computed from trace summaries in the analytical store. */
export const TRACE_METRICS = ['error_rate', 'latency_p50', 'latency_p95', 'tokens_per_trace', 'trace_count', 'cost'] as const satisfies readonly AlertMetric[];
export type TraceMetric = (typeof TRACE_METRICS)[number];

export const ALERT_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq'] as const;
export type AlertOperator = (typeof ALERT_OPERATORS)[number];

export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** What a window without enough data does to the rule's state. */
export const NO_DATA_POLICIES = ['ok', 'alert', 'keep'] as const;
export type NoDataPolicy = (typeof NO_DATA_POLICIES)[number];

export const DRIFT_TESTS = ['psi', 'ks'] as const;
export type DriftTest = (typeof DRIFT_TESTS)[number];

export const DRIFT_SOURCES = ['score', 'latency'] as const;
export type DriftSource = (typeof DRIFT_SOURCES)[number];

export const ALERT_STATES = ['ok', 'firing', 'no_data'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export const ALERT_EVENT_KINDS = ['fired', 'resolved', 'no_data'] as const;
export type AlertEventKind = (typeof ALERT_EVENT_KINDS)[number];

export const DELIVERY_STATUSES = ['none', 'pending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Longest window: 30 days. */
export const MAX_WINDOW_SECONDS = 30 * 24 * 3600;
/** Longest span a drift rule reads (window plus baseline): 90 days, the default retention. */
export const MAX_DRIFT_SPAN_SECONDS = 90 * 24 * 3600;

export const DRIFT_DEFAULTS = { drift_test: 'psi', drift_source: 'score', baseline_windows: 6, psi_bins: 10, min_samples: 20 } as const;

type FilterKey = 'trace_name' | 'model' | 'score_name' | 'suite_name';

/** Narrows what a metric reads; which keys apply depends on the metric ({@link filterKeysFor}). */
export const AlertFilterSchema = z.strictObject({
  /** Traces whose name contains this text, case-insensitively (as GET /api/traces?name=). */
  trace_name: pgText(1024).min(1).optional(),
  /** Traces with at least one span of this model. */
  model: pgText(256).min(1).optional(),
  /** Scores of this name. */
  score_name: pgText(256).min(1).optional(),
  /** Runs of this suite. */
  suite_name: pgText(256).min(1).optional(),
});
export type AlertFilter = z.output<typeof AlertFilterSchema>;

/** The filter keys a rule's metric reads; any other key is refused (it would be ignored silently). */
export function filterKeysFor(metric: AlertMetric, driftSource: DriftSource | null): readonly FilterKey[] {
  if (metric === 'avg_score') return ['score_name'];
  if (metric === 'run_pass_rate') return ['suite_name'];
  if (metric === 'drift') return driftSource === 'latency' ? ['trace_name', 'model'] : ['score_name'];
  return ['trace_name', 'model'];
}

const Count = (min: number, max: number) => z.number().int().min(min).max(max);

/** The body of POST /api/alerts/rules once the SPEC's 400 checks passed. */
export const AlertRuleBodySchema = z.strictObject({
  name: pgText(256).trim().min(1),
  metric: z.enum(ALERT_METRICS),
  filter: AlertFilterSchema.nullish(),
  window_seconds: Count(1, MAX_WINDOW_SECONDS).default(300),
  eval_interval_seconds: Count(1, 86_400).default(60),
  operator: z.enum(ALERT_OPERATORS),
  threshold: z.number(),
  severity: z.enum(ALERT_SEVERITIES),
  webhook_url: HttpUrlSchema.nullish(),
  no_data: z.enum(NO_DATA_POLICIES).default('ok'),
  min_samples: Count(1, 1_000_000).nullish(),
  enabled: z.boolean().default(true),
  drift_test: z.enum(DRIFT_TESTS).nullish(),
  drift_source: z.enum(DRIFT_SOURCES).nullish(),
  baseline_windows: Count(1, 100).nullish(),
  psi_bins: Count(2, 100).nullish(),
});
/** An alert rule body as a client writes it (the SDK's typed client). */
export type AlertRuleBody = z.input<typeof AlertRuleBodySchema>;

/** A rule's settings, defaults filled: what is stored and what PUT merges into. */
export interface AlertRuleDefinition {
  name: string;
  metric: AlertMetric;
  filter: AlertFilter;
  window_seconds: number;
  eval_interval_seconds: number;
  operator: AlertOperator;
  threshold: number;
  severity: AlertSeverity;
  webhook_url: string | null;
  no_data: NoDataPolicy;
  min_samples: number;
  enabled: boolean;
  /** Drift rules only; null for other metrics. */
  drift_test: DriftTest | null;
  drift_source: DriftSource | null;
  baseline_windows: number | null;
  psi_bins: number | null;
}

/** The fields of a rule the client sets; PUT accepts the read-only ones of GET back and ignores them. */
export const DEFINITION_KEYS = [
  'name',
  'metric',
  'filter',
  'window_seconds',
  'eval_interval_seconds',
  'operator',
  'threshold',
  'severity',
  'webhook_url',
  'no_data',
  'min_samples',
  'enabled',
  'drift_test',
  'drift_source',
  'baseline_windows',
  'psi_bins',
] as const satisfies ReadonlyArray<keyof AlertRuleDefinition>;

/** Settings that only mean something for the rule's metric: PUT resets them when it changes the metric. */
const METRIC_SETTINGS = ['filter', 'min_samples', 'drift_test', 'drift_source', 'baseline_windows', 'psi_bins'] as const;

/** Read-only fields of a rule's view: PUT ignores them so a client can send back what it read. */
const READ_ONLY_KEYS = new Set(['id', 'state', 'state_since', 'next_eval_at', 'last_evaluated_at', 'last_value', 'last_error', 'created_at', 'updated_at']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function oneOf(values: readonly string[], value: unknown): boolean {
  return typeof value === 'string' && values.includes(value);
}

/**
 * The SPEC's 400s, in its order: `{field} is required` for name, metric, threshold and operator
 * (then severity, also required), and the operator and severity enums. Everything else is a 422.
 */
function requireSpecFields(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw)) throw new BadRequestError('name is required', 'NAME_REQUIRED');
  for (const field of ['name', 'metric', 'threshold', 'operator']) {
    if (missing(raw[field])) throw new BadRequestError(`${field} is required`, `${field.toUpperCase()}_REQUIRED`);
  }
  if (!oneOf(ALERT_OPERATORS, raw.operator)) throw new BadRequestError(`operator must be one of: ${ALERT_OPERATORS.join(', ')}`, 'INVALID_OPERATOR');
  if (missing(raw.severity)) throw new BadRequestError('severity is required', 'SEVERITY_REQUIRED');
  if (!oneOf(ALERT_SEVERITIES, raw.severity)) throw new BadRequestError(`severity must be one of: ${ALERT_SEVERITIES.join(', ')}`, 'INVALID_SEVERITY');
  return raw;
}

/** Checks across fields: filter keys for the metric, drift settings only on drift rules, the drift span. */
function normalize(body: z.output<typeof AlertRuleBodySchema>): AlertRuleDefinition {
  const issues: FieldIssue[] = [];
  const drift = body.metric === 'drift';
  if (!drift) {
    for (const key of ['drift_test', 'drift_source', 'baseline_windows', 'psi_bins'] as const) {
      if (body[key] !== undefined && body[key] !== null) issues.push({ field: key, message: 'applies to metric drift only' });
    }
  }
  const driftSource = drift ? (body.drift_source ?? DRIFT_DEFAULTS.drift_source) : null;
  const filter = body.filter ?? {};
  const allowed = filterKeysFor(body.metric, driftSource);
  for (const key of Object.keys(filter) as FilterKey[]) {
    if (filter[key] !== undefined && !allowed.includes(key)) {
      issues.push({
        field: `filter.${key}`,
        message: `does not apply to metric ${body.metric}${drift ? ` of ${driftSource}` : ''} (filters: ${allowed.join(', ')})`,
      });
    }
  }
  // avg_score without a name averages every score (SPEC: a rule is name, metric, threshold, operator,
  // severity); drift needs one score's values, as scores of different names have different scales.
  if (driftSource === 'score' && !filter.score_name) {
    issues.push({ field: 'filter.score_name', message: `is required for metric ${body.metric}` });
  }
  const baselineWindows = drift ? (body.baseline_windows ?? DRIFT_DEFAULTS.baseline_windows) : null;
  if (baselineWindows !== null && body.window_seconds * (baselineWindows + 1) > MAX_DRIFT_SPAN_SECONDS) {
    issues.push({ field: 'baseline_windows', message: `window_seconds * (baseline_windows + 1) must be at most ${MAX_DRIFT_SPAN_SECONDS} (90 days)` });
  }
  if (issues.length) throw new ValidationError(issues);
  return {
    name: body.name,
    metric: body.metric,
    filter,
    window_seconds: body.window_seconds,
    eval_interval_seconds: body.eval_interval_seconds,
    operator: body.operator,
    threshold: body.threshold,
    severity: body.severity,
    webhook_url: body.webhook_url ?? null,
    no_data: body.no_data,
    min_samples: body.min_samples ?? (drift ? DRIFT_DEFAULTS.min_samples : 1),
    enabled: body.enabled,
    drift_test: drift ? (body.drift_test ?? DRIFT_DEFAULTS.drift_test) : null,
    drift_source: driftSource,
    baseline_windows: baselineWindows,
    psi_bins: drift ? (body.psi_bins ?? DRIFT_DEFAULTS.psi_bins) : null,
  };
}

/** Checks a POST /api/alerts/rules body: the SPEC's 400s first, then 422s naming each field. */
export function parseAlertRule(raw: unknown): AlertRuleDefinition {
  return normalize(validate(AlertRuleBodySchema, requireSpecFields(raw)));
}

/**
 * PUT /api/alerts/rules/{id}: the body's fields replace the stored ones (`{"enabled": false}`
 * disables a rule), then the whole is checked as a create body. A body that changes the metric
 * resets the metric's settings (filter, min_samples, drift_*) it does not give.
 */
export function mergeAlertRule(stored: AlertRuleDefinition, raw: unknown): AlertRuleDefinition {
  if (!isRecord(raw)) throw new ValidationError([{ field: '(body)', message: 'must be a JSON object' }]);
  const reset = raw.metric !== undefined && raw.metric !== stored.metric ? new Set<string>(METRIC_SETTINGS) : new Set<string>();
  // fromEntries defines own properties: a `__proto__` key stays a key (and is refused as unknown).
  const merged = Object.fromEntries([
    ...Object.entries(stored).filter(([key]) => !reset.has(key)),
    ...Object.entries(raw).filter(([key]) => !READ_ONLY_KEYS.has(key)),
  ]);
  return parseAlertRule(merged);
}

/** Whether `value` meets the rule's condition. `eq` allows a relative rounding error of 1e-9. */
export function breaches(value: number, operator: AlertOperator, threshold: number): boolean {
  switch (operator) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
    case 'eq':
      return Math.abs(value - threshold) <= 1e-9 * Math.max(1, Math.abs(threshold));
  }
}

/** A rule as the API returns it. */
export interface AlertRule extends AlertRuleDefinition {
  id: string;
  state: AlertState;
  /** When the rule entered its state. */
  state_since: string;
  next_eval_at: string;
  last_evaluated_at: string | null;
  /** The metric's value at the last evaluation; null when the window had no data. */
  last_value: number | null;
  /** Why the last evaluation failed (a store error); null after a successful one. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface AlertRuleList {
  rules: AlertRule[];
  total: number;
  limit: number;
  offset: number;
}

/** What a webhook receives (and the event stores as `payload`). */
export interface AlertNotification {
  event: AlertEventKind;
  event_id: string;
  rule: Pick<AlertRule, 'id' | 'name' | 'metric' | 'filter' | 'operator' | 'threshold' | 'severity' | 'state'>;
  /** The metric's value; null when the event is about missing data. */
  value: number | null;
  threshold: number;
  /** The window measured: [from, to). */
  window: { seconds: number; from: string; to: string };
  project_id: string;
  at: string;
}

export interface AlertEvent {
  id: string;
  rule_id: string;
  kind: AlertEventKind;
  value: number | null;
  threshold: number;
  at: string;
  payload: AlertNotification;
  /** `none` when the rule has no webhook. */
  delivery_status: DeliveryStatus;
  delivery_attempts: number;
  delivery_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

export interface AlertEventList {
  events: AlertEvent[];
  total: number;
  limit: number;
  offset: number;
}
