import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { againstBound, ruleScorer } from './support.js';

const Config = z.strictObject({
  maxTokens: z.number().int().positive().max(1e12).optional(),
});

/** 1 within the token budget, else budget / tokens used. */
export const tokenEfficiencyScorer: Scorer = ruleScorer({
  name: 'tokenEfficiency',
  description: 'input_tokens + output_tokens against expected.maxTokens (or config.maxTokens): 1 within the budget, else budget / total.',
  config: Config,
  evaluate(input, config) {
    const budget = input.expected.maxTokens ?? config.maxTokens;
    if (budget === undefined) throw new Error('tokenEfficiency needs expected.maxTokens or config.maxTokens');
    const usage = input.usage;
    if (!usage) return { score: 0, reason: 'agent reported no token usage', evidence: [] };
    const total = count(usage.input_tokens) + count(usage.output_tokens);
    const evidence = [`input_tokens ${count(usage.input_tokens)}, output_tokens ${count(usage.output_tokens)}, budget ${budget}`];
    const within = `${total} tokens used, within the budget of ${budget}`;
    return againstBound(total, budget, { within, over: `${total} tokens used, over the budget of ${budget}` }, evidence);
  },
});

/** A reported token count; negative or non-numeric counts are treated as 0. */
function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}
