import type { SpanCost, SpanPricing } from '../model/cost.js';
import type { SpanRecord } from '../model/span.js';
import type { ModelPrice, PriceTable } from './price-table.js';

/**
 * Pricing of model calls (docs/costs.md "How a span is priced"): one table lookup (memoized by
 * model name) and a few multiplications per generation span, at ingest.
 */

/**
 * Attributes that report input tokens served from a prompt cache, first present wins. They count
 * toward `input_tokens` too (OpenTelemetry GenAI: input tokens include cached ones).
 */
export const CACHED_INPUT_TOKEN_ATTRIBUTES = [
  // The SPEC's flat attribute style (JSON ingest).
  'cached_input_tokens',
  // OpenTelemetry GenAI semantic conventions.
  'gen_ai.usage.cache_read.input_tokens',
  // OpenLLMetry (and the LLM judges' own spans).
  'gen_ai.usage.cache_read_input_tokens',
  // OpenInference.
  'llm.token_count.prompt_details.cache_read',
  // Vercel AI SDK 5+.
  'ai.usage.cachedInputTokens',
] as const;

/** Cached input tokens a span's (stringified) attributes report; 0 when none or not a count. */
export function cachedInputTokens(attributes: Record<string, string>): number {
  for (const key of CACHED_INPUT_TOKEN_ATTRIBUTES) {
    const v = attributes[key];
    if (v === undefined) continue;
    const n = Number(v);
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  }
  return 0;
}

export interface TokenCounts {
  input: number;
  output: number;
  cached: number;
}

/**
 * The cost of a call's tokens at `price`. Cached tokens are part of `input` (the usual reporting);
 * when a span reports more cached tokens than input tokens, its input evidently left them out
 * (Anthropic's own usage fields do), so all of `input` is uncached. The same arithmetic, in the
 * same order, reprices stored spans in SQL (core/store/clickhouse/cost-sql.ts).
 */
export function tokenCost(price: ModelPrice, version: string, t: TokenCounts): SpanCost {
  const uncached = t.cached <= t.input ? t.input - t.cached : t.input;
  const input = (uncached * price.input) / 1e6;
  const cachedInput = (t.cached * (price.cached_input ?? price.input)) / 1e6;
  const output = (t.output * price.output) / 1e6;
  return { input, output, cached_input: cachedInput, total: input + cachedInput + output, version };
}

/**
 * Prices a normalized span in place: generation spans get their cached-input tokens and their
 * pricing (cost null when the table does not know the model); other spans are left as they are.
 */
export function priceSpan(span: SpanRecord, prices: PriceTable, at: number): void {
  if (span.span_type !== 'generation') return;
  const cached = cachedInputTokens(span.attributes);
  span.cached_input_tokens = cached;
  const price = span.model === null ? undefined : prices.lookup(span.model);
  const pricing: SpanPricing = { at, cost: price ? tokenCost(price, prices.version, { input: span.input_tokens, output: span.output_tokens, cached }) : null };
  span.pricing = pricing;
}
