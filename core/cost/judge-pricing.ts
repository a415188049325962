import type { JudgeGeneration } from '../judges/judge.js';
import type { PriceTable } from './price-table.js';
import { tokenCost } from './span-cost.js';

/**
 * The price of one LLM judge call from the same table that prices its span at ingest, for the
 * run's judge budget (`judge_budget.max_cost_usd`, docs/judges.md); null when the model is not
 * priced or the call reported no usage.
 */
export function judgeCallPricer(prices: PriceTable) {
  return (generation: JudgeGeneration): { cost_usd: number; price_version: string } | null => {
    const price = prices.lookup(generation.model);
    if (!price || !generation.usage) return null;
    const u = generation.usage;
    const cost = tokenCost(price, prices.version, { input: u.input_tokens, output: u.output_tokens, cached: u.cached_input_tokens });
    return { cost_usd: cost.total, price_version: prices.version };
  };
}
