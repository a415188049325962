import { MAX_COST_GROUPS, MAX_TOP_COSTS, type CostBreakdown, type CostBreakdownQuery, type CostGroupSeries } from '../../model/cost-analytics.js';
import { bucketStarts } from '../../model/analytics.js';
import { toClickHouseTime } from './time.js';
import { costSeriesSql, TOP_COSTS } from './cost-breakdown-sql.js';
import { traceSummary, type TraceRow } from './trace-summary-row.js';
import { TRACE_SUMMARIES } from './trace-stats-sql.js';
import { TRACE_STATE_PARAMS } from './trace-state-rows.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

const num = (v: unknown): number => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

type SeriesRow = { whole: unknown; key: string; bucket: unknown; cost: unknown; tokens: unknown; traces: unknown; unpriced: unknown };

/** GET /api/analytics/costs: the series by group (the costliest MAX_COST_GROUPS, the rest as `other`) and the top traces and sessions. */
export async function readCostBreakdown(rows: Rows, projectId: string, q: CostBreakdownQuery): Promise<CostBreakdown> {
  const params = {
    ...TRACE_STATE_PARAMS,
    project: projectId,
    from: toClickHouseTime(q.fromMs),
    to: toClickHouseTime(q.toMs),
    step: q.step,
    top: MAX_TOP_COSTS,
  };
  // The costliest traces' ids and sessions, then the traces' summaries (name, start, tokens, cost), in that order.
  const top = async (): Promise<{ traces: TraceRow[]; sessions: Array<[string, unknown, unknown]> }> => {
    const [row] = await rows<{ trace_ids: string[]; sessions: Array<[string, unknown, unknown]> }>(TOP_COSTS, params);
    const ids = row?.trace_ids ?? [];
    const sessions = row?.sessions ?? [];
    if (ids.length === 0) return { traces: [], sessions };
    const byId = new Map((await rows<TraceRow>(TRACE_SUMMARIES, { project: projectId, traces: ids })).map((t) => [t.trace_id, t]));
    return { traces: ids.map((id) => byId.get(id)).filter((t): t is TraceRow => t !== undefined), sessions };
  };
  const [series, { traces, sessions }] = await Promise.all([rows<SeriesRow>(costSeriesSql(q.group_by), params), top()]);
  const starts = bucketStarts(q.fromMs, q.toMs, q.step);
  const index = new Map(starts.map((t, i) => [t / 1000, i]));
  const byKey = new Map<string, CostGroupSeries>();
  const group = (key: string) => {
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { key, cost_usd: starts.map(() => 0), tokens: starts.map(() => 0), total_cost_usd: 0, total_tokens: 0, traces: 0 }));
    return g;
  };
  let unpriced = 0;
  let windowTraces = 0;
  for (const r of series) {
    if (num(r.whole) === 1) {
      windowTraces = num(r.traces);
      continue;
    }
    const g = group(r.key);
    const b = num(r.bucket);
    if (b === -1) {
      g.total_cost_usd = num(r.cost);
      g.total_tokens = num(r.tokens);
      g.traces = num(r.traces);
      unpriced += num(r.unpriced);
      continue;
    }
    const i = index.get(b);
    if (i === undefined) continue;
    g.cost_usd[i] = num(r.cost);
    g.tokens[i] = num(r.tokens);
  }
  const ranked = [...byKey.values()].sort((a, b) => b.total_cost_usd - a.total_cost_usd || b.total_tokens - a.total_tokens || a.key.localeCompare(b.key));
  const kept = ranked.slice(0, ranked.length > MAX_COST_GROUPS ? MAX_COST_GROUPS - 1 : MAX_COST_GROUPS);
  const rest = ranked.slice(kept.length);
  if (rest.length) {
    const other = { key: 'other', cost_usd: starts.map(() => 0), tokens: starts.map(() => 0), total_cost_usd: 0, total_tokens: 0, traces: 0 };
    for (const g of rest) {
      g.cost_usd.forEach((v, i) => (other.cost_usd[i] += v));
      g.tokens.forEach((v, i) => (other.tokens[i] += v));
      other.total_cost_usd += g.total_cost_usd;
      other.total_tokens += g.total_tokens;
      // A trace in two of the summed groups counts in each: an upper bound, as said in docs/api.md.
      other.traces += g.traces;
    }
    kept.push(other);
  }
  return {
    start_time: new Date(q.fromMs).toISOString(),
    end_time: new Date(q.toMs).toISOString(),
    interval: q.interval,
    interval_seconds: q.step,
    buckets: starts.map((t) => new Date(t).toISOString()),
    group_by: q.group_by,
    groups: kept,
    groups_truncated: rest.length > 0,
    total: {
      cost_usd: ranked.reduce((s, g) => s + g.total_cost_usd, 0),
      tokens: ranked.reduce((s, g) => s + g.total_tokens, 0),
      // Distinct traces over every group: the groups of one trace (its models, say) overlap.
      traces: windowTraces,
      unpriced_llm_calls: unpriced,
    },
    top_traces: traces.map(traceSummary).map((t) => ({
      trace_id: t.trace_id,
      name: t.name,
      start_time: t.start_time,
      cost_usd: t.total_cost ?? 0,
      tokens: t.total_input_tokens + t.total_output_tokens,
    })),
    top_sessions: sessions.map(([session_id, cost, count]) => ({ session_id, cost_usd: num(cost), traces: num(count) })),
  };
}
