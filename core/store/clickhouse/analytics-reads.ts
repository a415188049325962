import {
  bucketStarts,
  MAX_MODELS,
  MAX_SCORE_NAMES,
  MAX_SCORE_SERIES,
  NO_COMPONENT,
  type AnalyticsWindow,
  type AnalyticsWindowQuery,
  type ComponentHealthRow,
  type MetricSeries,
} from '../../model/analytics.js';
import type { ComponentType } from '../../model/span.js';
import type { ClickHouseClient } from './client.js';
import { toClickHouseTime } from './time.js';
import { TRACE_STATE_PARAMS } from './trace-state-rows.js';
import {
  componentHealthSql,
  correlationSql,
  scoreBucketsSql,
  scoreNamesSql,
  spanSeriesSql,
  TRACE_SERIES,
  type ScoreFilter,
  type SpanFilter,
} from './analytics-sql.js';
import type { AnalyticsReads } from '../analytics-reads.js';
import { readToolAnalytics } from './tool-analytics-reads.js';
import { readCostBreakdown } from './cost-breakdown-reads.js';
import { readFailureSpans } from './failure-spans-reads.js';

/** A read gives up after this long (503: the store is overloaded), instead of holding a connection. */
const QUERY_SETTINGS = { max_execution_time: 30 } as const;

/** ClickHouse answers numbers as numbers or (64-bit) as text, NaN and nulls where nothing was aggregated. */
function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
const count = (v: unknown): number => num(v) ?? 0;

function quantiles(v: unknown, n: number): Array<number | null> {
  const list = Array.isArray(v) ? v : [];
  return Array.from({ length: n }, (_, i) => num(list[i]));
}

/** What every window read binds (the trace series reads traces one row each: trace-state-rows.ts). */
function windowParams(projectId: string, q: AnalyticsWindowQuery): Record<string, unknown> {
  return { ...TRACE_STATE_PARAMS, project: projectId, from: toClickHouseTime(q.fromMs), to: toClickHouseTime(q.toMs), step: q.step };
}

/** The window's description and, per bucket start (epoch seconds), its index in `buckets`. */
function describeWindow(q: AnalyticsWindowQuery): { window: AnalyticsWindow; index: Map<number, number> } {
  const starts = bucketStarts(q.fromMs, q.toMs, q.step);
  return {
    window: {
      start_time: new Date(q.fromMs).toISOString(),
      end_time: new Date(q.toMs).toISOString(),
      interval: q.interval,
      interval_seconds: q.step,
      buckets: starts.map((t) => new Date(t).toISOString()),
    },
    index: new Map(starts.map((t, i) => [t / 1000, i])),
  };
}

function spanFilters(q: { component_type?: string; model?: string }): { filters: SpanFilter[]; params: Record<string, unknown> } {
  const filters: SpanFilter[] = [];
  if (q.component_type !== undefined) filters.push('componentType');
  if (q.model !== undefined) filters.push('model');
  // Spans without a component type store ''.
  return { filters, params: { componentType: q.component_type === NO_COMPONENT ? '' : q.component_type, model: q.model } };
}

interface HealthRow {
  dim: string;
  key: string;
  span_count: unknown;
  error_count: unknown;
  latency: unknown;
  tok: unknown;
  tokens_total: unknown;
  cost_total: unknown;
  unpriced: unknown;
}

function healthRow(r: HealthRow): ComponentHealthRow {
  const spans = count(r.span_count);
  const errors = count(r.error_count);
  const [lp50, lp95] = quantiles(r.latency, 2);
  const [tp50, tp95] = quantiles(r.tok, 2);
  return {
    span_count: spans,
    error_count: errors,
    error_rate: spans === 0 ? 0 : errors / spans,
    latency_ms: { p50: lp50, p95: lp95 },
    tokens: { p50: tp50, p95: tp95, total: count(r.tokens_total) },
    cost_usd: count(r.cost_total),
    unpriced_llm_calls: count(r.unpriced),
  };
}

interface SeriesRow {
  bucket: unknown;
  n: unknown;
  error_rate: unknown;
  latency: unknown;
  tok: unknown;
  cost: unknown;
}

/** Reads over the analytical store's client; each query is bounded by QUERY_SETTINGS. */
export function createAnalyticsReads(client: ClickHouseClient): AnalyticsReads {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: QUERY_SETTINGS });
    return rs.json<T>();
  }

  return {
    async scoreTrends(projectId, q) {
      const filters: ScoreFilter[] = [];
      if (q.score_name !== undefined) filters.push('scoreName');
      if (q.source !== undefined) filters.push('source');
      const params = { ...windowParams(projectId, q), scoreName: q.score_name, source: q.source };
      const names = await rows<{ name: string; n: unknown; avg: unknown; total: unknown }>(scoreNamesSql(filters), { ...params, limit: MAX_SCORE_NAMES + 1 });
      const listed = names.slice(0, MAX_SCORE_NAMES).map((r) => ({ score_name: r.name, count: count(r.n), avg: num(r.avg) ?? 0 }));
      const drawn = listed.slice(0, MAX_SCORE_SERIES);
      const { window, index } = describeWindow(q);
      const series = drawn.map((s) => ({ ...s, counts: window.buckets.map(() => 0), avgs: window.buckets.map((): number | null => null) }));
      if (drawn.length > 0) {
        const byName = new Map(series.map((s) => [s.score_name, s]));
        const buckets = await rows<{ name: string; bucket: unknown; n: unknown; avg: unknown }>(scoreBucketsSql(filters), {
          ...params,
          names: drawn.map((s) => s.score_name),
        });
        for (const b of buckets) {
          const s = byName.get(b.name);
          const i = index.get(count(b.bucket));
          if (!s || i === undefined) continue;
          s.counts[i] = count(b.n);
          s.avgs[i] = num(b.avg);
        }
      }
      return { ...window, score_names: listed, score_names_truncated: names.length > MAX_SCORE_NAMES, series, total: count(names[0]?.total) };
    },

    async componentHealth(projectId, q) {
      const { filters, params } = spanFilters(q);
      const list = await rows<HealthRow>(componentHealthSql(filters), { ...windowParams(projectId, q), ...params });
      const all = list.find((r) => r.dim === 'all');
      const models = list.filter((r) => r.dim === 'model' && r.key !== '');
      return {
        start_time: new Date(q.fromMs).toISOString(),
        end_time: new Date(q.toMs).toISOString(),
        span_count: count(all?.span_count),
        by_component_type: list
          .filter((r) => r.dim === 'component_type')
          .map((r) => ({ component_type: r.key === '' ? null : (r.key as ComponentType), ...healthRow(r) })),
        by_model: models.slice(0, MAX_MODELS).map((r) => ({ model: r.key, ...healthRow(r) })),
        models_truncated: models.length > MAX_MODELS,
      };
    },

    async metricSeries(projectId, q) {
      const { filters, params } = spanFilters(q);
      const sql = q.level === 'trace' ? TRACE_SERIES : spanSeriesSql(filters);
      // The trace window reads the error flag as TRACE_FILTERS.status = {status}.
      const list = await rows<SeriesRow>(sql, { ...windowParams(projectId, q), ...params, status: 'error' });
      const { window, index } = describeWindow(q);
      const blank = () => window.buckets.map((): number | null => null);
      const out: MetricSeries = {
        ...window,
        level: q.level,
        counts: window.buckets.map(() => 0),
        error_rates: blank(),
        latency_ms: { p50: blank(), p95: blank(), p99: blank() },
        tokens: { p50: blank(), p95: blank(), p99: blank() },
        cost_usd: window.buckets.map(() => 0),
        overall: { count: 0, error_rate: null, latency_ms: { p50: null, p95: null, p99: null }, tokens: { p50: null, p95: null, p99: null }, cost_usd: 0 },
      };
      for (const r of list) {
        const [l50, l95, l99] = quantiles(r.latency, 3);
        const [t50, t95, t99] = quantiles(r.tok, 3);
        const b = count(r.bucket);
        if (b === -1) {
          out.overall = {
            count: count(r.n),
            error_rate: num(r.error_rate),
            latency_ms: { p50: l50, p95: l95, p99: l99 },
            tokens: { p50: t50, p95: t95, p99: t99 },
            cost_usd: count(r.cost),
          };
          continue;
        }
        const i = index.get(b);
        if (i === undefined) continue;
        out.counts[i] = count(r.n);
        out.error_rates[i] = num(r.error_rate);
        out.cost_usd[i] = count(r.cost);
        [out.latency_ms.p50[i], out.latency_ms.p95[i], out.latency_ms.p99[i]] = [l50, l95, l99];
        [out.tokens.p50[i], out.tokens.p95[i], out.tokens.p99[i]] = [t50, t95, t99];
      }
      return out;
    },

    async correlation(projectId, q) {
      const [row] = await rows<{
        n: unknown;
        pearson: unknown;
        spearman: unknown;
        score_mean: unknown;
        metric_mean: unknown;
        points: Array<[string, unknown, unknown]>;
      }>(correlationSql(q.metric), { ...windowParams(projectId, q), scoreName: q.score_name });
      const n = count(row?.n);
      const pearson = n >= 3 ? num(row?.pearson) : null;
      const points = (row?.points ?? []).map(([trace_id, score, value]) => ({ trace_id, score: count(score), value: count(value) }));
      return {
        start_time: new Date(q.fromMs).toISOString(),
        end_time: new Date(q.toMs).toISOString(),
        score_name: q.score_name,
        metric: q.metric,
        n,
        pearson_r: pearson,
        // Where Pearson's r is undefined (a side that does not vary) rank correlation means nothing either.
        spearman_rho: pearson === null ? null : num(row?.spearman),
        score_mean: n > 0 ? num(row?.score_mean) : null,
        metric_mean: n > 0 ? num(row?.metric_mean) : null,
        points,
        sampled: n > points.length,
      };
    },

    tools: (projectId, q) => readToolAnalytics(rows, projectId, q),
    costs: (projectId, q) => readCostBreakdown(rows, projectId, q),
    failureSpans: (projectId, traceIds, maxRows) => readFailureSpans(rows, projectId, traceIds, maxRows),
  };
}
