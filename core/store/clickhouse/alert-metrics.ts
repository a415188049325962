import type { AlertFilter, TraceMetric } from '../../model/alert.js';
import type { AlertMetrics, DriftSamples, TimeRange } from '../alert-metrics.js';
import type { ClickHouseClient } from './client.js';
import { toClickHouseTime } from './time.js';
import { TRACE_STATE_PARAMS, traceStateRows } from './trace-state-rows.js';
import { TRACE_FILTERS } from './trace-stats-sql.js';

/**
 * The analytical-store side of alert rules (docs/alerts.md, "Metrics"): aggregates over a
 * project's traces or scores in a time range. Values are always bound; the only text spliced in
 * comes from the fixed fragments below.
 */

/** Largest sample per side a drift test reads: KS and PSI are stable far below this. */
export const MAX_DRIFT_SAMPLES = 20_000;

/** Alert queries give up after this long: a rule is evaluated again at its next interval. */
const QUERY_SETTINGS = { max_execution_time: 30 } as const;

const TIME = "DateTime64(3, 'UTC')";

/**
 * The traces of a project that started in [from, to), one row each (trace-state-rows.ts). Column
 * names are those TRACE_FILTERS read (span_error, header_status, header_name, root_span).
 */
export function windowTracesSql(filter: AlertFilter): string {
  const where = [`start_time >= {from:${TIME}}`, `start_time < {to:${TIME}}`];
  if (filter.trace_name !== undefined) where.push(TRACE_FILTERS.name);
  // A span starts no earlier than its trace, so spans before `from` cannot matter.
  const picked =
    filter.model === undefined
      ? []
      : [`trace_id IN (SELECT trace_id FROM agent_eval.spans WHERE project_id = {project:String} AND model = {model:String} AND start_time >= {from:${TIME}})`];
  return `(
  SELECT
    trace_id,
    start_time,
    toUInt8(${TRACE_FILTERS.status}) AS is_error,
    toUInt64(greatest(0, dateDiff('millisecond', start_time, end_time))) AS duration_ms,
    tokens,
    ifNull(cost, 0) AS cost
  FROM ${traceStateRows(['start_time', 'end_time', 'span_error', 'header_name', 'header_status', 'root_span', 'tokens', 'cost'], { picked, since: `{from:${TIME}}` })}
  WHERE ${where.join(' AND ')}
)`;
}

/** Each trace metric's aggregate over the window's traces (docs/alerts.md gives the definitions). */
const TRACE_AGGREGATES: Record<TraceMetric, string> = {
  trace_count: 'count()',
  error_rate: 'avg(is_error)',
  latency_p50: 'quantileExactInclusive(0.5)(duration_ms)',
  latency_p95: 'quantileExactInclusive(0.95)(duration_ms)',
  tokens_per_trace: 'avg(tokens)',
  // A budget: USD of the window's traces, judges' own traces included (docs/costs.md).
  cost: 'sum(cost)',
};

/** The scores named {scoreName} created in [from, to), each score once (a re-sent score is one row). */
const WINDOW_SCORES = `(
  SELECT value, created_at
  FROM agent_eval.scores
  WHERE project_id = {project:String} AND ({scoreName:String} = '' OR name = {scoreName:String})
    AND created_at >= {from:${TIME}} AND created_at < {to:${TIME}}
  ORDER BY created_at DESC
  LIMIT 1 BY score_id
)`;

function traceParams(projectId: string, range: TimeRange, filter: AlertFilter): Record<string, unknown> {
  return {
    ...TRACE_STATE_PARAMS,
    project: projectId,
    from: toClickHouseTime(range.from.getTime()),
    to: toClickHouseTime(range.to.getTime()),
    // TRACE_FILTERS.status compares with {status}: the error flag is "status = 'error'".
    status: 'error',
    name: filter.trace_name,
    model: filter.model,
  };
}

function finiteOrNull(v: unknown): number | null {
  const n = Number(v);
  return v === null || v === undefined || !Number.isFinite(n) ? null : n;
}

/** Reads for alert rules; `client` is the analytical store's ClickHouse client. */
export function createAlertMetrics(client: ClickHouseClient): AlertMetrics {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: QUERY_SETTINGS });
    return rs.json<T>();
  }

  return {
    async traceMetric(projectId, metric, range, filter) {
      const [row] = await rows<{ value: unknown; samples: unknown }>(
        `SELECT ${TRACE_AGGREGATES[metric]} AS value, count() AS samples FROM ${windowTracesSql(filter)}`,
        traceParams(projectId, range, filter),
      );
      const samples = Number(row?.samples ?? 0);
      return { value: samples === 0 && metric !== 'trace_count' && metric !== 'cost' ? null : finiteOrNull(row?.value), samples };
    },

    async scoreMean(projectId, scoreName, range) {
      const [row] = await rows<{ value: unknown; samples: unknown }>(`SELECT avg(value) AS value, count() AS samples FROM ${WINDOW_SCORES}`, {
        project: projectId,
        scoreName,
        from: toClickHouseTime(range.from.getTime()),
        to: toClickHouseTime(range.to.getTime()),
      });
      const samples = Number(row?.samples ?? 0);
      return { value: samples === 0 ? null : finiteOrNull(row?.value), samples };
    },

    async driftSamples(projectId, source, filter, baseline, current) {
      const whole = { from: baseline.from, to: current.to };
      // The sample size is a constant of ours, not input: aggregate parameters must be literals.
      const sample = `groupArraySample(${MAX_DRIFT_SAMPLES}, 1)`;
      const split = `{currentFrom:${TIME}}`;
      const query =
        source === 'score'
          ? `SELECT toUInt8(created_at >= ${split}) AS is_current, ${sample}(value) AS sample FROM ${WINDOW_SCORES} GROUP BY is_current`
          : `SELECT toUInt8(start_time >= ${split}) AS is_current, ${sample}(toFloat64(duration_ms)) AS sample FROM ${windowTracesSql(filter)} GROUP BY is_current`;
      const params = {
        ...traceParams(projectId, whole, filter),
        scoreName: filter.score_name ?? '',
        currentFrom: toClickHouseTime(current.from.getTime()),
      };
      const out: DriftSamples = { baseline: [], current: [] };
      for (const row of await rows<{ is_current: unknown; sample: unknown[] }>(query, params)) {
        const values = row.sample.map(Number).filter(Number.isFinite);
        if (Number(row.is_current) === 1) out.current = values;
        else out.baseline = values;
      }
      return out;
    },
  };
}
