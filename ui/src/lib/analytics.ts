/** The analytics page's helpers: its filters in the URL, the API queries they make, numbers and the correlation in words. */
import { COMPONENT_TYPES } from './filters.js';
import { formatCount, formatDuration } from './format.js';
import type { ComponentFilter, CorrelationMetric, IntervalName, ScoreCorrelation } from './types.js';

/** The page's ranges (the traces page's presets); the API takes up to 90 days. */
export const ANALYTICS_RANGES = ['15m', '1h', '24h', '7d', '30d'] as const;
export type AnalyticsRangeKey = (typeof ANALYTICS_RANGES)[number];
export const DEFAULT_RANGE: AnalyticsRangeKey = '24h';

export const RANGE_LABEL: Record<AnalyticsRangeKey, string> = {
  '15m': 'last 15 minutes',
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};

/** Component types the API groups by, and `none` for spans without one (core/model/analytics.ts COMPONENT_FILTERS). */
export const COMPONENT_CHOICES: readonly ComponentFilter[] = [...COMPONENT_TYPES, 'none'];

export interface AnalyticsFilters {
  range: AnalyticsRangeKey;
  /** The score the trends show alone and the correlation uses; else all (trends) and the most frequent (correlation). */
  scoreName?: string;
  componentType?: ComponentFilter;
  model?: string;
  /** What the score is correlated with. */
  metric: CorrelationMetric;
}

const isRange = (v: string | null): v is AnalyticsRangeKey => v !== null && (ANALYTICS_RANGES as readonly string[]).includes(v);
const isComponent = (v: string | null): v is ComponentFilter => v !== null && (COMPONENT_CHOICES as readonly string[]).includes(v);
const text = (v: string | null): string | undefined => {
  const t = v?.trim();
  return t ? t.slice(0, 256) : undefined;
};

/** Reads the filters from a query string; values that make no sense fall back to the defaults. */
export function parseAnalyticsFilters(q: URLSearchParams): AnalyticsFilters {
  const range = q.get('range');
  const component = q.get('component_type');
  const f: AnalyticsFilters = { range: isRange(range) ? range : DEFAULT_RANGE, metric: q.get('metric') === 'tokens' ? 'tokens' : 'latency' };
  const scoreName = text(q.get('score_name'));
  if (scoreName) f.scoreName = scoreName;
  if (isComponent(component)) f.componentType = component;
  const model = text(q.get('model'));
  if (model) f.model = model;
  return f;
}

/** The page's query string: only what differs from the defaults, in a fixed order. */
export function analyticsFiltersToQuery(f: AnalyticsFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.range !== DEFAULT_RANGE) q.set('range', f.range);
  if (f.scoreName) q.set('score_name', f.scoreName);
  if (f.componentType) q.set('component_type', f.componentType);
  if (f.model) q.set('model', f.model);
  if (f.metric !== 'latency') q.set('metric', f.metric);
  return q;
}

/** The API paths the page reads for these filters (docs/api.md, "Analytics"). */
export function analyticsRequests(f: AnalyticsFilters, correlateWith: string | null) {
  const range = `range=${f.range}`;
  const spans = new URLSearchParams();
  if (f.componentType) spans.set('component_type', f.componentType);
  if (f.model) spans.set('model', f.model);
  const spanLevel = spans.size > 0;
  return {
    scores: `/api/analytics/scores?${range}`,
    /** Only when a score is chosen that the unfiltered answer does not draw. */
    oneScore: f.scoreName ? `/api/analytics/scores?${range}&score_name=${encodeURIComponent(f.scoreName)}` : null,
    components: `/api/analytics/components?${range}${spanLevel ? `&${spans}` : ''}`,
    /** Per tool: the range alone (the component and model filters do not apply to tool calls). */
    tools: `/api/analytics/tools?${range}`,
    timeseries: `/api/analytics/timeseries?${range}${spanLevel ? `&level=span&${spans}` : ''}`,
    correlation: correlateWith ? `/api/analytics/correlation?${range}&score_name=${encodeURIComponent(correlateWith)}&metric=${f.metric}` : null,
  };
}

export function formatPercent(rate: number | null): string {
  if (rate === null || !Number.isFinite(rate)) return '-';
  const pct = rate * 100;
  if (pct === 0 || pct === 100) return `${pct}%`;
  return `${pct < 10 ? Number(pct.toFixed(1)) : Math.round(pct)}%`;
}

export function formatScore(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '-' : v.toFixed(2);
}

export const formatMs = (v: number | null): string => (v === null ? '-' : formatDuration(v));
export const formatTokens = (v: number | null): string => (v === null ? '-' : formatCount(Math.round(v)));

/** A metric's value in its unit. */
export function formatMetric(metric: CorrelationMetric, v: number | null): string {
  return metric === 'latency' ? formatMs(v) : `${formatTokens(v)} tokens`;
}

/** Bucket labels in local time: hours and minutes within a day, the date too beyond, the date alone for daily buckets. */
export function bucketLabels(buckets: readonly string[], interval: IntervalName, rangeMs: number): string[] {
  const opts: Intl.DateTimeFormatOptions =
    interval === '1d'
      ? { month: 'short', day: 'numeric' }
      : rangeMs > 86_400_000
        ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
        : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  const fmt = new Intl.DateTimeFormat(undefined, opts);
  return buckets.map((b) => fmt.format(new Date(b)));
}

/** The bucket width in words: "15-minute", "hourly", "daily". */
export function intervalWords(interval: IntervalName): string {
  const words: Record<IntervalName, string> = {
    '1m': 'per minute',
    '5m': 'per 5 minutes',
    '15m': 'per 15 minutes',
    '30m': 'per 30 minutes',
    '1h': 'per hour',
    '3h': 'per 3 hours',
    '6h': 'per 6 hours',
    '12h': 'per 12 hours',
    '1d': 'per day',
  };
  return words[interval];
}

const METRIC_WORD: Record<CorrelationMetric, string> = { latency: 'latency', tokens: 'token use' };

/** How strong |r| is, in words (Cohen's conventional cut-offs). */
export function strength(r: number): 'no' | 'weak' | 'moderate' | 'strong' {
  const a = Math.abs(r);
  if (a < 0.1) return 'no';
  if (a < 0.3) return 'weak';
  if (a < 0.5) return 'moderate';
  return 'strong';
}

const fixed2 = (v: number) => {
  const s = v.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
};

/**
 * The correlation in a sentence, e.g. "Pearson r = -0.42 over 1,234 scored traces: higher latency
 * goes with lower faithfulness (a moderate relation; Spearman's rho = -0.40)."
 */
export function correlationSentence(c: ScoreCorrelation): string {
  const name = c.score_name;
  const metric = METRIC_WORD[c.metric];
  const traces = `${formatCount(c.n)} scored trace${c.n === 1 ? '' : 's'}`;
  if (c.n === 0) return `No trace has a "${name}" score in this range, so there is nothing to correlate.`;
  if (c.n < 3) return `Only ${traces} with "${name}" in this range: at least 3 are needed to state a correlation.`;
  if (c.pearson_r === null) return `Over ${traces}, "${name}" or the ${metric} does not vary, so no correlation can be stated.`;
  const r = c.pearson_r;
  const rho = c.spearman_rho === null ? '' : `; Spearman's rho = ${fixed2(c.spearman_rho)}`;
  const head = `Pearson r = ${fixed2(r)} over ${traces}`;
  const s = strength(r);
  if (s === 'no') return `${head}: ${metric} and ${name} show no meaningful linear relation${rho ? ` (${rho.slice(2)})` : ''}.`;
  return `${head}: higher ${metric} goes with ${r < 0 ? 'lower' : 'higher'} ${name} (a ${s} relation${rho}).`;
}

/**
 * One colour per score series (the API draws at most 12), and the percentile lines: the palette's
 * (ui/src/palette.css --series-*), light or dark with the theme; AnalyticsChart resolves them for the canvas.
 */
export const SERIES_COLORS = Array.from({ length: 12 }, (_, i) => `var(--series-${i + 1})`);
export const PERCENTILE_COLORS = { p50: 'var(--series-1)', p95: 'var(--series-2)', p99: 'var(--error)' } as const;

/** The `i`th line of a chart with one line per series: its palette colour, a point per bucket, an empty bucket a gap. */
export function lineSeries(label: string, data: (number | null)[], i: number) {
  const color = SERIES_COLORS[i % SERIES_COLORS.length];
  return { label, data, borderColor: color, backgroundColor: color, spanGaps: false, pointRadius: 3, borderWidth: 2 };
}

/** A component type as the page names it; spans without one are "other spans". */
export function componentLabel(type: string | null): string {
  return type ?? 'other spans';
}
