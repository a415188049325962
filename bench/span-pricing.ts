import { decodeIngestBody } from '../collector/json/ingest-body.js';
import { normalizeSpan } from '../collector/normalize/index.js';
import { loadPriceTable } from '../core/cost/price-table.js';
import { priceSpan } from '../core/cost/span-cost.js';
import { IngestTraceSchema } from '../core/model/ingest-body.js';
import type { RawSpan } from '../core/model/raw-span.js';
import { encodeSpanRow } from '../core/store/clickhouse/rows.js';
import { createTraceStatsRows } from '../core/store/clickhouse/trace-stats-rows.js';
import { agentTrace, median, round, spanSize } from './lib.js';

/**
 * What pricing adds to ingest, per span, in this process without HTTP or a store (docs/costs.md
 * "What it costs"): the collector's per-span work (normalize, encode the row, add it to its
 * trace's stats row) with and without `priceSpan`, over the JSON bench's traces (half the spans
 * are gpt-4o generations, 2k of text each), and `priceSpan` alone per generation span.
 * Interleaved rounds, medians. Run: `npm run bench -- span-pricing [--runs N]`.
 */
export function benchSpanPricing(opts: { traces: number; spansPerTrace: number; rounds: number }) {
  const prices = loadPriceTable();
  const raws: RawSpan[] = [];
  for (let t = 0; t < opts.traces; t++) {
    const body = IngestTraceSchema.parse(agentTrace(`bench-${t}`, opts.spansPerTrace, Date.now(), t, spanSize('2k')));
    raws.push(...decodeIngestBody(body).spans);
  }
  const ingestWork = (withPrices: boolean) => {
    const stats = createTraceStatsRows();
    let bytes = 0;
    const at = Date.now();
    for (const raw of raws) {
      const span = normalizeSpan(raw, 'bench');
      if (withPrices) priceSpan(span, prices, at);
      bytes += encodeSpanRow(span).length;
      stats.add(span);
    }
    return bytes + stats.rows().length;
  };
  const generations = raws.map((r) => normalizeSpan(r, 'bench')).filter((s) => s.span_type === 'generation');
  const priceOnly = () => {
    const at = Date.now();
    for (const s of generations) priceSpan(s, prices, at);
  };
  const nsPer = (fn: () => unknown, n: number) => {
    const start = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - start) / n;
  };
  // Warm up every path (JIT, the lookup memo), then alternate so drifts in machine load hit both.
  ingestWork(false);
  ingestWork(true);
  priceOnly();
  const without: number[] = [];
  const withPricing: number[] = [];
  const alone: number[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    without.push(nsPer(() => ingestWork(false), raws.length));
    withPricing.push(nsPer(() => ingestWork(true), raws.length));
    alone.push(nsPer(priceOnly, generations.length));
  }
  const base = median(without);
  const priced = median(withPricing);
  return {
    spans: raws.length,
    generation_spans: generations.length,
    ingest_ns_per_span_without_pricing: round(base, 0),
    ingest_ns_per_span_with_pricing: round(priced, 0),
    pricing_overhead_pct: round(((priced - base) / base) * 100, 2),
    price_span_ns_per_generation: round(median(alone), 0),
  };
}
