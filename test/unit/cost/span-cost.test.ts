import { describe, expect, it } from 'vitest';
import { judgeCallPricer } from '../../../core/cost/judge-pricing.js';
import { buildPriceTable, parsePriceFile } from '../../../core/cost/price-table.js';
import { cachedInputTokens, priceSpan, tokenCost } from '../../../core/cost/span-cost.js';
import type { SpanRecord } from '../../../core/model/span.js';
import { spanRecord } from '../../helpers/span-record.js';

const prices = buildPriceTable(
  parsePriceFile(
    {
      version: 'v1',
      providers: { openai: { models: { 'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 }, nocache: { input: 2, output: 8 } } } },
    },
    'test',
  ),
);

const span = (extra: Partial<SpanRecord>): SpanRecord => spanRecord({ model: 'gpt-4o-mini', input_tokens: 1000, output_tokens: 500, ...extra });

describe('span cost', () => {
  it('prices uncached input, cached input and output separately, in USD per million tokens', () => {
    const cost = tokenCost(prices.lookup('gpt-4o-mini')!, 'v1', { input: 1000, output: 500, cached: 200 });
    // 800 uncached at $0.15/M, 200 cached at $0.075/M, 500 out at $0.60/M.
    expect(cost.input).toBeCloseTo(0.00012, 15);
    expect(cost.cached_input).toBeCloseTo(0.000015, 15);
    expect(cost.output).toBeCloseTo(0.0003, 15);
    expect(cost.total).toBeCloseTo(0.000435, 15);
    expect(cost.version).toBe('v1');
  });

  it('bills cached tokens at the input price when the model has no cached price', () => {
    expect(tokenCost(prices.lookup('nocache')!, 'v1', { input: 1_000_000, output: 0, cached: 400_000 }).total).toBeCloseTo(2, 12);
  });

  it('takes input as excluding the cache when more cached than input tokens are reported', () => {
    const cost = tokenCost(prices.lookup('gpt-4o-mini')!, 'v1', { input: 100, output: 0, cached: 1000 });
    expect(cost.input).toBeCloseTo((100 * 0.15) / 1e6, 15);
    expect(cost.cached_input).toBeCloseTo((1000 * 0.075) / 1e6, 15);
  });

  it('reads cached tokens from the conventions that report them, garbage as 0', () => {
    expect(cachedInputTokens({ 'gen_ai.usage.cache_read.input_tokens': '12' })).toBe(12);
    expect(cachedInputTokens({ 'gen_ai.usage.cache_read_input_tokens': '7' })).toBe(7);
    expect(cachedInputTokens({ 'llm.token_count.prompt_details.cache_read': '5' })).toBe(5);
    expect(cachedInputTokens({ 'ai.usage.cachedInputTokens': '3' })).toBe(3);
    expect(cachedInputTokens({ cached_input_tokens: '9', 'gen_ai.usage.cache_read_input_tokens': '1' })).toBe(9);
    expect(cachedInputTokens({ cached_input_tokens: 'lots' })).toBe(0);
    expect(cachedInputTokens({ cached_input_tokens: '-4' })).toBe(0);
    expect(cachedInputTokens({})).toBe(0);
  });

  it('prices generation spans only; an unknown model is priced as unknown, not as free', () => {
    const gen = span({ attributes: { 'gen_ai.usage.cache_read_input_tokens': '200' } });
    priceSpan(gen, prices, 1234);
    expect(gen.cached_input_tokens).toBe(200);
    expect(gen.pricing?.at).toBe(1234);
    expect(gen.pricing?.cost?.version).toBe('v1');
    expect(gen.pricing?.cost?.total).toBeCloseTo(0.000435, 15);

    const unknown = span({ model: 'mystery-model' });
    priceSpan(unknown, prices, 1234);
    expect(unknown.pricing).toEqual({ at: 1234, cost: null });

    const noModel = span({ model: null });
    priceSpan(noModel, prices, 1234);
    expect(noModel.pricing).toEqual({ at: 1234, cost: null });

    const tool = span({ span_type: 'tool', model: 'gpt-4o-mini' });
    priceSpan(tool, prices, 1234);
    expect(tool.pricing).toBeUndefined();
  });

  it("prices a judge's call from the same table", () => {
    const price = judgeCallPricer(prices);
    const base = {
      scorer: 'safety_judge',
      provider: 'openai' as const,
      attempt: 1,
      input: { system: '', messages: [] },
      output: null,
      startedAt: 0,
      endedAt: 1,
      status: 'ok' as const,
    };
    const priced = price({ ...base, model: 'gpt-4o-mini-2024-07-18', usage: { input_tokens: 1000, output_tokens: 500, cached_input_tokens: 200 } });
    expect(priced?.price_version).toBe('v1');
    expect(priced?.cost_usd).toBeCloseTo(0.000435, 15);
    expect(price({ ...base, model: 'mystery', usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 } })).toBeNull();
    expect(price({ ...base, model: 'gpt-4o-mini', usage: null })).toBeNull();
  });

  it('costs a Map lookup per span once a model name has been seen', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `garbage-${i}`);
    for (const n of names) prices.lookup(n);
    // The memo is bounded: still answers right after it started over.
    expect(prices.lookup('gpt-4o-mini')?.model).toBe('gpt-4o-mini');
  });
});
