import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { ruleScorer } from './support.js';

const Config = z.strictObject({
  maxMs: z.number().positive().max(86_400_000).optional(),
});

/** 1 within the latency bound, else bound / latency: twice as slow as allowed scores 0.5. */
export const latencyScorer: Scorer = ruleScorer({
  name: 'latency',
  description: 'Agent wall time against expected.maxLatencyMs (or config.maxMs): 1 within the bound, else bound / latency.',
  config: Config,
  evaluate(input, config) {
    const max = input.expected.maxLatencyMs ?? config.maxMs;
    if (max === undefined) throw new Error('latency needs expected.maxLatencyMs or config.maxMs');
    const latency = input.latencyMs;
    if (!Number.isFinite(latency)) throw new Error('latency was not measured');
    const ms = Math.max(0, latency);
    const evidence = [`latency ${round(ms)} ms, bound ${round(max)} ms`];
    if (ms <= max) return { score: 1, reason: `latency ${round(ms)} ms is within the bound of ${round(max)} ms`, evidence };
    return { score: max / ms, reason: `latency ${round(ms)} ms exceeds the bound of ${round(max)} ms (${(ms / max).toFixed(2)}x)`, evidence };
  },
});

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
