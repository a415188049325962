import type { RecomputeResult, TraceCost } from '../../model/cost.js';
import { CACHED_INPUT_TOKEN_ATTRIBUTES } from '../../cost/span-cost.js';
import type { ClickHouseClient } from './client.js';
import { toClickHouseTime } from './time.js';
import type { CostReads } from '../analytics-reads.js';
import { REPRICE_REPORT, REPRICE_SPANS, REPRICE_TRACE_STATS, TRACE_COSTS, WINDOW_MODELS } from './cost-sql.js';

/** Trace ids per query: a bound array travels in the request (the URL over HTTP). */
const IDS_PER_QUERY = 2000;

/** A repricing may read and rewrite a lot; it gets longer than a dashboard read. */
const RECOMPUTE_SETTINGS = { max_execution_time: 600 } as const;
const READ_SETTINGS = { max_execution_time: 30 } as const;

const num = (v: unknown): number => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

export function createCostReads(client: ClickHouseClient): CostReads {
  async function rows<T>(query: string, params: Record<string, unknown>, settings: Record<string, number> = READ_SETTINGS): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: settings });
    return rs.json<T>();
  }

  async function traceCosts(projectId: string, traceIds: string[]): Promise<Map<string, TraceCost>> {
    const out = new Map<string, TraceCost>();
    for (let i = 0; i < traceIds.length; i += IDS_PER_QUERY) {
      const list = await rows<{ trace_id: string; total: unknown; judges: unknown; unpriced: unknown }>(TRACE_COSTS, {
        project: projectId,
        traces: traceIds.slice(i, i + IDS_PER_QUERY),
      });
      for (const r of list) out.set(r.trace_id, { total_usd: num(r.total), judges_usd: num(r.judges), unpriced_llm_calls: num(r.unpriced) });
    }
    return out;
  }

  return {
    traceCosts,

    async recompute(projectId, from, to, prices) {
      const window = { project: projectId, from: toClickHouseTime(from.getTime()), to: toClickHouseTime(to.getTime()) };
      // The names as spans spell them, resolved by the table's own matching rules.
      const names = await rows<{ model: string }>(WINDOW_MODELS, window, RECOMPUTE_SETTINGS);
      const priced = names.flatMap(({ model }) => {
        const price = prices.lookup(model);
        return price ? [{ model, price }] : [];
      });
      const params = {
        ...window,
        models: priced.map((p) => p.model),
        inputPrices: priced.map((p) => p.price.input),
        outputPrices: priced.map((p) => p.price.output),
        cachedPrices: priced.map((p) => p.price.cached_input ?? p.price.input),
        version: prices.version,
        cacheKeys: [...CACHED_INPUT_TOKEN_ATTRIBUTES],
        pricedAt: Date.now(),
      };
      const [report] = await rows<{ examined: unknown; rewritten: unknown; changed: unknown; unpriced: unknown; traces: unknown; unpriced_models: string[] }>(
        REPRICE_REPORT,
        params,
        RECOMPUTE_SETTINGS,
      );
      const result: RecomputeResult = {
        version: prices.version,
        from: from.toISOString(),
        to: to.toISOString(),
        spans_examined: num(report?.examined),
        spans_rewritten: num(report?.rewritten),
        spans_changed: num(report?.changed),
        spans_unpriced: num(report?.unpriced),
        traces_updated: num(report?.traces),
        unpriced_models: (report?.unpriced_models ?? []).filter((m) => m !== ''),
      };
      if (result.spans_examined === 0) return result;
      // Trace states first: if the span rewrite then fails, running the recompute again finds the
      // same spans still to rewrite and writes both again (states are idempotent).
      await client.command({ query: REPRICE_TRACE_STATS, query_params: params, clickhouse_settings: RECOMPUTE_SETTINGS });
      if (result.spans_rewritten > 0) await client.command({ query: REPRICE_SPANS, query_params: params, clickhouse_settings: RECOMPUTE_SETTINGS });
      return result;
    },
  };
}
