import { digestBytes } from '../ids/derived-ids.js';

/**
 * The deterministic sampling decision (docs/online-evals.md): the first 52 bits of
 * SHA-256("{rule id}:{trace id}") as a fraction u in [0, 1); the trace is sampled when
 * u < sample_rate. Rate 1 takes every trace, 0 none; the same trace and rule always decide alike,
 * on every worker and after any restart, and two rules sample independently.
 */
export function sampleFraction(ruleId: string, traceId: string): number {
  const digest = digestBytes(`${ruleId}:${traceId}`);
  // 52 bits: exact in a double, so the fraction is uniform on a grid of 2^-52.
  return (digest.readUInt32BE(0) * 2 ** 20 + (digest.readUInt32BE(4) >>> 12)) / 2 ** 52;
}

export function isSampled(ruleId: string, traceId: string, sampleRate: number): boolean {
  return sampleFraction(ruleId, traceId) < sampleRate;
}
