import { z } from 'zod';
import { Timestamp } from './ingest-body.js';
import { COMPONENT_TYPES, type ComponentType } from './span.js';
import { SCORE_SOURCES } from './score.js';

/**
 * The aggregate reads behind the dashboard's analytics page (GET /api/analytics/*, docs/api.md
 * "Analytics"): their query parameters and answers. Every answer is computed in the analytical
 * store; none ships raw rows, and each is bounded (range, buckets, series, points).
 */

/** Preset ranges back from now (`range=`), as on the traces page, plus the longest one allowed. */
export const ANALYTICS_RANGES = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
} as const;
export type AnalyticsRange = keyof typeof ANALYTICS_RANGES;

/** Bucket widths of the time series, in seconds. Buckets start at multiples of the width since the epoch (UTC). */
export const INTERVALS = { '1m': 60, '5m': 300, '15m': 900, '30m': 1800, '1h': 3600, '3h': 10_800, '6h': 21_600, '12h': 43_200, '1d': 86_400 } as const;
export type IntervalName = keyof typeof INTERVALS;

/** Longest range any analytics read covers: what the stores keep (their TTL is 90 days). */
export const MAX_RANGE_MS = ANALYTICS_RANGES['90d'];
/** Most buckets an explicit `interval` may produce. */
export const MAX_BUCKETS = 500;
/** Most buckets the automatic interval produces: the narrowest width that gives at most this many. */
export const AUTO_BUCKETS = 200;
/** Default range when neither `range` nor `start_time` is given. */
export const DEFAULT_RANGE: AnalyticsRange = '24h';

/** Most score names listed, and most of them drawn as series (the most frequent first). */
export const MAX_SCORE_NAMES = 100;
export const MAX_SCORE_SERIES = 12;
/** Most models listed in component health (the busiest first). */
export const MAX_MODELS = 50;
/** Most tools listed in tool analytics (the most called first). */
export const MAX_TOOLS = 100;
/** Most points a correlation's scatter carries: a seeded uniform sample beyond that. */
export const MAX_SCATTER_POINTS = 500;

/** `component_type` filter value for spans without a component type. */
export const NO_COMPONENT = 'none';
export const COMPONENT_FILTERS = [...COMPONENT_TYPES, NO_COMPONENT] as const;
export type ComponentFilter = (typeof COMPONENT_FILTERS)[number];

/** A resolved time window: [fromMs, toMs) cut into buckets of `step` seconds. */
export interface AnalyticsWindowQuery {
  fromMs: number;
  toMs: number;
  interval: IntervalName;
  step: number;
}

/** Start of every bucket of the window, oldest first (epoch ms): the first holds `fromMs`, the last `toMs - 1`. */
export function bucketStarts(fromMs: number, toMs: number, step: number): number[] {
  const width = step * 1000;
  const out: number[] = [];
  for (let t = Math.floor(fromMs / width) * width; t < toMs; t += width) out.push(t);
  return out;
}

function bucketCount(fromMs: number, toMs: number, step: number): number {
  const width = step * 1000;
  return Math.floor((toMs - 1) / width) - Math.floor(fromMs / width) + 1;
}

/** The narrowest interval that cuts the window into at most AUTO_BUCKETS buckets. */
export function autoInterval(fromMs: number, toMs: number): IntervalName {
  const names = Object.keys(INTERVALS) as IntervalName[];
  return names.find((n) => bucketCount(fromMs, toMs, INTERVALS[n]) <= AUTO_BUCKETS) ?? '1d';
}

/** The window parameters every analytics read takes. */
export const WindowSchema = z.object({
  /** A preset range ending now; or `start_time` (and optionally `end_time`) for a fixed one. */
  range: z.enum(Object.keys(ANALYTICS_RANGES) as [AnalyticsRange, ...AnalyticsRange[]]).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  interval: z.enum(Object.keys(INTERVALS) as [IntervalName, ...IntervalName[]]).optional(),
});

type WindowInput = { range?: AnalyticsRange; start_time?: number; end_time?: number; interval?: IntervalName };

/**
 * A time window from `range` (back from now, `defaultRange` when neither is given) or
 * `start_time`/`end_time`, bounded to MAX_RANGE_MS; null after adding an issue that names the
 * parameter at fault (422). The analytics and the calibration queries share it.
 */
export function resolveTimeWindow(
  v: { range?: AnalyticsRange; start_time?: number; end_time?: number },
  ctx: z.RefinementCtx,
  defaultRange: AnalyticsRange,
): { fromMs: number; toMs: number } | null {
  const { range, start_time, end_time } = v;
  if (range !== undefined && (start_time !== undefined || end_time !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['range'], message: 'give either range or start_time/end_time, not both' });
    return null;
  }
  const toMs = end_time ?? Date.now();
  const fromMs = start_time ?? toMs - ANALYTICS_RANGES[range ?? defaultRange];
  if (fromMs >= toMs) {
    ctx.addIssue({ code: 'custom', path: [start_time === undefined ? 'end_time' : 'start_time'], message: 'start_time must be before end_time' });
    return null;
  }
  if (toMs - fromMs > MAX_RANGE_MS) {
    ctx.addIssue({ code: 'custom', path: ['start_time'], message: 'the range may be at most 90 days' });
    return null;
  }
  return { fromMs, toMs };
}

/** Resolves the window against the clock and bounds it, with its buckets; issues name the parameter at fault (422). */
export function resolveWindow<T extends WindowInput>(v: T, ctx: z.RefinementCtx): Omit<T, keyof WindowInput> & AnalyticsWindowQuery {
  const { range, start_time, end_time, interval, ...rest } = v;
  const window = resolveTimeWindow({ range, start_time, end_time }, ctx, DEFAULT_RANGE);
  if (!window) return z.NEVER;
  const { fromMs, toMs } = window;
  const name = interval ?? autoInterval(fromMs, toMs);
  const buckets = bucketCount(fromMs, toMs, INTERVALS[name]);
  if (buckets > MAX_BUCKETS) {
    ctx.addIssue({ code: 'custom', path: ['interval'], message: `gives ${buckets} buckets over this range; at most ${MAX_BUCKETS} (choose a wider interval)` });
    return z.NEVER;
  }
  return { ...rest, fromMs, toMs, interval: name, step: INTERVALS[name] };
}

const scoreName = z.string().min(1).max(256);
const componentType = z.enum(COMPONENT_FILTERS);
const model = z.string().min(1).max(256);

/** GET /api/analytics/scores */
export const ScoreTrendsQuerySchema = WindowSchema.extend({ score_name: scoreName.optional(), source: z.enum(SCORE_SOURCES).optional() }).transform(
  resolveWindow,
);
export type ScoreTrendsQuery = z.output<typeof ScoreTrendsQuerySchema>;

/** GET /api/analytics/components */
export const ComponentHealthQuerySchema = WindowSchema.extend({ component_type: componentType.optional(), model: model.optional() }).transform(resolveWindow);
export type ComponentHealthQuery = z.output<typeof ComponentHealthQuerySchema>;

/** GET /api/analytics/tools: the window only (range or start_time/end_time); no buckets. */
export const ToolAnalyticsQuerySchema = WindowSchema.omit({ interval: true }).transform((v, ctx) => resolveTimeWindow(v, ctx, DEFAULT_RANGE) ?? z.NEVER);
export type ToolAnalyticsQuery = z.output<typeof ToolAnalyticsQuerySchema>;

/** GET /api/analytics/timeseries: traces by default; `level=span` over spans, narrowed by component type and model. */
export const MetricSeriesQuerySchema = WindowSchema.extend({
  level: z.enum(['trace', 'span']).default('trace'),
  component_type: componentType.optional(),
  model: model.optional(),
})
  .superRefine((v, ctx) => {
    if (v.level === 'trace' && v.component_type !== undefined)
      ctx.addIssue({ code: 'custom', path: ['component_type'], message: 'applies to level=span only' });
    if (v.level === 'trace' && v.model !== undefined) ctx.addIssue({ code: 'custom', path: ['model'], message: 'applies to level=span only' });
  })
  .transform(resolveWindow);
export type MetricSeriesQuery = z.output<typeof MetricSeriesQuerySchema>;

export const CORRELATION_METRICS = ['latency', 'tokens'] as const;
export type CorrelationMetric = (typeof CORRELATION_METRICS)[number];

/** GET /api/analytics/correlation */
export const CorrelationQuerySchema = WindowSchema.extend({ score_name: scoreName, metric: z.enum(CORRELATION_METRICS).default('latency') }).transform(
  resolveWindow,
);
export type CorrelationQuery = z.output<typeof CorrelationQuerySchema>;

/** The window every time-series answer carries. */
export interface AnalyticsWindow {
  start_time: string;
  end_time: string;
  interval: IntervalName;
  interval_seconds: number;
  /** Start of each bucket (ISO 8601, UTC), oldest first; every per-bucket array lines up with it. */
  buckets: string[];
}

export interface ScoreNameCount {
  score_name: string;
  count: number;
  avg: number;
}

/** One score name's trend: per bucket, how many scores and their mean (null where there were none). */
export interface ScoreSeries extends ScoreNameCount {
  counts: number[];
  avgs: Array<number | null>;
}

export interface ScoreTrends extends AnalyticsWindow {
  /** Score names in the window, most frequent first (at most MAX_SCORE_NAMES). */
  score_names: ScoreNameCount[];
  score_names_truncated: boolean;
  /** The trends of the first MAX_SCORE_SERIES of `score_names` (or of `score_name` alone). */
  series: ScoreSeries[];
  /** Scores in the window over all names. */
  total: number;
}

export interface Quantiles2 {
  p50: number | null;
  p95: number | null;
}

export interface ComponentHealthRow {
  span_count: number;
  error_count: number;
  error_rate: number;
  latency_ms: Quantiles2;
  /** Input plus output tokens per span. */
  tokens: Quantiles2 & { total: number };
  /** USD over the priced spans (docs/costs.md). */
  cost_usd: number;
  /** Generation spans the price table could not price: their cost is missing from `cost_usd`. */
  unpriced_llm_calls: number;
}

export interface ComponentHealth {
  start_time: string;
  end_time: string;
  span_count: number;
  /** Per component type, busiest first; null is spans without one. */
  by_component_type: Array<ComponentHealthRow & { component_type: ComponentType | null }>;
  /** Per model (spans naming one), busiest first, at most MAX_MODELS. */
  by_model: Array<ComponentHealthRow & { model: string }>;
  models_truncated: boolean;
}

export interface Quantiles3Series {
  p50: Array<number | null>;
  p95: Array<number | null>;
  p99: Array<number | null>;
}

export interface MetricSeries extends AnalyticsWindow {
  level: 'trace' | 'span';
  /** Traces (or spans) started in each bucket. */
  counts: number[];
  error_rates: Array<number | null>;
  latency_ms: Quantiles3Series;
  tokens: Quantiles3Series;
  /** USD of the traces (or spans) started in each bucket (docs/costs.md). */
  cost_usd: number[];
  /** The same over the whole window. */
  overall: {
    count: number;
    error_rate: number | null;
    latency_ms: { p50: number | null; p95: number | null; p99: number | null };
    tokens: { p50: number | null; p95: number | null; p99: number | null };
    cost_usd: number;
  };
}

export interface ScatterPoint {
  trace_id: string;
  /** The trace's mean score of this name. */
  score: number;
  /** Its latency (ms) or tokens. */
  value: number;
}

export interface ScoreCorrelation {
  start_time: string;
  end_time: string;
  score_name: string;
  metric: CorrelationMetric;
  /** Scored traces found (each trace once, its scores of this name averaged). */
  n: number;
  /** Pearson's r of score and metric; null below 3 traces or when either side does not vary. */
  pearson_r: number | null;
  /** Spearman's rank correlation; null as for pearson_r. */
  spearman_rho: number | null;
  score_mean: number | null;
  metric_mean: number | null;
  /** All pairs, or a seeded uniform sample of MAX_SCATTER_POINTS when `sampled`. */
  points: ScatterPoint[];
  sampled: boolean;
}

/** One tool's calls (its tool spans) and, from the runs' `toolCalls` scores, how often its arguments did not match. */
export interface ToolStats {
  /** The tool span's tool name (the first of TOOL_NAME_KEYS it carries, core/scoring/trajectory/span-tree.ts), else its span name. */
  tool_name: string;
  /** Tool spans of this tool started in the window. */
  call_count: number;
  /** Of those, the ones with status `error` or attribute `tool_status: error` (as the `toolErrors` scorer counts them). */
  error_count: number;
  error_rate: number;
  latency_ms: Quantiles2;
  /** Traces with at least one call of it. */
  trace_count: number;
  /** `toolCalls` scores created in the window whose trace called this tool (or whose mismatch names it). */
  scored_count: number;
  /** Of those, the ones whose first mismatch is this tool's arguments (the score's reason names it). */
  argument_mismatch_count: number;
  /** argument_mismatch_count / scored_count; null when no toolCalls score saw the tool. */
  argument_mismatch_rate: number | null;
}

export interface ToolAnalytics {
  start_time: string;
  end_time: string;
  /** Tool spans started in the window, over every tool. */
  tool_call_count: number;
  /** `toolCalls` scores created in the window. */
  scored_count: number;
  /** Per tool, the most called first (then by name); at most MAX_TOOLS. */
  tools: ToolStats[];
  tools_truncated: boolean;
}
