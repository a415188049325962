import { describe, expect, it } from 'vitest';
import { runJudge, type JudgeGeneration } from '../../../core/judges/judge.js';
import { ProviderError } from '../../../core/providers/types.js';
import { stubProvider } from './stub-provider.js';

describe('runJudge', () => {
  const request = { scorer: 'safety_judge', provider: 'anthropic' as const, system: 'S', prompt: 'P' };
  const opts = { maxAnswerAttempts: 3, maxTokens: 100 };

  it('records every call and asks again with the problem until the answer is a verdict', async () => {
    const provider = stubProvider([
      { value: undefined, problem: 'the model did not call record_verdict', raw: 'text' },
      { value: { score: 0.7, reason: 'fine', evidence: [] } },
    ]);
    const generations: JudgeGeneration[] = [];
    const verdict = await runJudge(provider, request, opts, { onGeneration: (g) => Promise.resolve(void generations.push(g)) });
    expect(verdict).toEqual({ score: 0.7, reason: 'fine', evidence: [] });
    expect(generations.map((g) => [g.attempt, g.status])).toEqual([
      [1, 'unusable'],
      [2, 'ok'],
    ]);
    expect(generations[0].error).toBe('the model did not call record_verdict');
    expect(provider.asked[1].messages[0].content).toContain('Your previous answer could not be used: the model did not call record_verdict');
    expect(provider.asked[0].tool.name).toBe('record_verdict');
  });

  it('makes no call once its budget gate says stop, and scores 0 with that reason', async () => {
    const provider = stubProvider([]);
    const verdict = await runJudge(provider, request, opts, { beforeCall: () => Promise.resolve('judge budget reached') });
    expect(verdict).toEqual({ score: 0, reason: 'judge budget reached', evidence: [] });
    expect(provider.asked).toHaveLength(0);
  });

  it('records a failed call and lets its error through for the caller to retry', async () => {
    const failure = new ProviderError('anthropic', '529 overloaded', true, 529);
    const generations: JudgeGeneration[] = [];
    await expect(runJudge(stubProvider([failure]), request, opts, { onGeneration: (g) => Promise.resolve(void generations.push(g)) })).rejects.toBe(failure);
    expect(generations).toMatchObject([{ status: 'error', usage: null, error: 'anthropic: 529 overloaded' }]);
  });
});
