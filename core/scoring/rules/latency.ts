import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { againstBound, ruleScorer } from './support.js';

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
    const within = `latency ${round(ms)} ms is within the bound of ${round(max)} ms`;
    return againstBound(ms, max, { within, over: `latency ${round(ms)} ms exceeds the bound of ${round(max)} ms` }, evidence);
  },
});

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
