import { z } from 'zod';
import { Timestamp } from './ingest-body.js';

/**
 * What a model call cost (docs/costs.md): priced at ingest from the price table
 * (core/cost/price-table.ts), stored with the span and the table's version, summed into traces,
 * runs and analytics. Amounts are US dollars.
 */

/** The cost of one generation span, in USD, and the version of the price table that priced it. */
export interface SpanCost {
  /** Input tokens not served from a prompt cache, at the model's input price. */
  input: number;
  output: number;
  /** Input tokens served from a prompt cache, at the model's cached-input price. */
  cached_input: number;
  total: number;
  /** The price table's `version` (e.g. `2026-11-23`, or `2026-11-23+acme-1` with an override file). */
  version: string;
}

/**
 * What pricing found for a generation span at ingest: `cost` null when the table has no price
 * for its model (or it names none). `at` (ms) orders repricings of the same span: the newest wins.
 */
export interface SpanPricing {
  at: number;
  cost: SpanCost | null;
}

/** A run's cost, summed over its case traces (docs/costs.md "Runs"). */
export interface RunCost {
  /** Every priced generation span of the run's traces: the agent's model calls and the judges'. */
  total_usd: number;
  /** The LLM judges' calls alone (spans with `agent_eval.judge`). */
  judges_usd: number;
  /** Generation spans of the run's traces whose model the price table does not know. */
  unpriced_llm_calls: number;
  /** Traces the sums cover (recorded trials with a trace). */
  traces: number;
}

/** The cost of one trace of a run's case (`GET /api/runs/{id}/results`). */
export interface TraceCost {
  total_usd: number;
  judges_usd: number;
  unpriced_llm_calls: number;
}

/** POST /api/admin/recompute-costs: what a repricing of a window changed (docs/costs.md "Recompute"). */
export interface RecomputeResult {
  /** The price table version the spans now carry. */
  version: string;
  from: string;
  to: string;
  /** Generation spans that started in the window (newest row of each). */
  spans_examined: number;
  /** Spans rewritten: their total cost or their price version changed. */
  spans_rewritten: number;
  /** Of those, spans whose total cost changed (including newly priced or no longer priced ones). */
  spans_changed: number;
  /** Spans whose model the table does not price. */
  spans_unpriced: number;
  /** Traces whose summaries got the new costs. */
  traces_updated: number;
  /** Models seen in the window that the table does not price, most frequent first (at most 50). */
  unpriced_models: string[];
}

/** POST /api/admin/recompute-costs: the window of span start times to reprice, [from, to). */
export const RecomputeCostsSchema = z
  .strictObject({ from: Timestamp, to: Timestamp })
  .refine((v) => v.from < v.to, { path: ['to'], message: 'must be after from' });
export type RecomputeCosts = z.output<typeof RecomputeCostsSchema>;
