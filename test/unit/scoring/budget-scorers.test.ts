import { describe, expect, it } from 'vitest';
import { latencyScorer } from '../../../core/scoring/rules/latency.js';
import { tokenEfficiencyScorer } from '../../../core/scoring/rules/token-efficiency.js';
import { score } from './score-input.js';

describe('latency', () => {
  it('scores 1 within the bound from expected.maxLatencyMs', async () => {
    const d = await score(latencyScorer, 'ok', { maxLatencyMs: 1000 }, {}, { latencyMs: 1000 });
    expect(d.score).toBe(1);
    expect(d.evidence).toEqual(['latency 1000 ms, bound 1000 ms']);
  });

  it('scores bound / latency above it', async () => {
    const d = await score(latencyScorer, 'ok', { maxLatencyMs: 1000 }, {}, { latencyMs: 4000 });
    expect(d.score).toBe(0.25);
    expect(d.reason).toContain('exceeds the bound of 1000 ms');
  });

  it('falls back to config.maxMs, the case winning over the config', async () => {
    expect((await score(latencyScorer, 'ok', {}, { maxMs: 500 }, { latencyMs: 1000 })).score).toBe(0.5);
    expect((await score(latencyScorer, 'ok', { maxLatencyMs: 2000 }, { maxMs: 500 }, { latencyMs: 1000 })).score).toBe(1);
  });

  it('throws without any bound', async () => {
    await expect(score(latencyScorer, 'ok', {}, {}, { latencyMs: 5 })).rejects.toThrow('latency needs expected.maxLatencyMs or config.maxMs');
  });

  it('refuses a non-positive maxMs', () => {
    expect(latencyScorer.configSchema.safeParse({ maxMs: 0 }).success).toBe(false);
    expect(latencyScorer.configSchema.safeParse({}).success).toBe(true);
  });
});

describe('tokenEfficiency', () => {
  const usage = (input_tokens: number, output_tokens: number) => ({ usage: { input_tokens, output_tokens } });

  it('scores 1 within the budget', async () => {
    const d = await score(tokenEfficiencyScorer, 'ok', { maxTokens: 1000 }, {}, usage(600, 400));
    expect(d.score).toBe(1);
    expect(d.evidence[0]).toContain('input_tokens 600, output_tokens 400');
  });

  it('scores budget / total over it', async () => {
    const d = await score(tokenEfficiencyScorer, 'ok', { maxTokens: 1000 }, {}, usage(1500, 500));
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain('2000 tokens used, over the budget of 1000');
  });

  it('uses config.maxTokens when the case has no budget', async () => {
    expect((await score(tokenEfficiencyScorer, 'ok', {}, { maxTokens: 100 }, usage(300, 100))).score).toBe(0.25);
  });

  it('scores 0 when the agent reported no usage', async () => {
    const d = await score(tokenEfficiencyScorer, 'ok', { maxTokens: 1000 });
    expect(d).toEqual({ score: 0, reason: 'agent reported no token usage', evidence: [] });
  });

  it('throws without a budget', async () => {
    await expect(score(tokenEfficiencyScorer, 'ok', {}, {}, usage(1, 1))).rejects.toThrow('tokenEfficiency needs expected.maxTokens or config.maxTokens');
  });
});
