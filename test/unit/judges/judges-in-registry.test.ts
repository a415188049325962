import { describe, expect, it } from 'vitest';
import { createJudgeScorers, PROMPT_REQUIRED } from '../../../core/judges/scorers.js';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { providerSet } from '../../../core/providers/index.js';
import { createScorerRegistry, defaultScorerRegistry, extendRegistry, RULE_SCORERS } from '../../../core/scoring/index.js';
import { stubProvider } from './stub-provider.js';

const refs = (list: unknown) => ScorerRefListSchema.parse(list);
/** A string matcher, typed for use inside an expected object. */
const matching = (pattern: RegExp) => expect.stringMatching(pattern) as unknown as string;

describe('judges in the registry', () => {
  const openaiOnly = { providers: providerSet(['openai'], 'openai', () => stubProvider([])), maxAnswerAttempts: 3, maxOutputTokens: 256 };
  const registry = createScorerRegistry([...RULE_SCORERS, ...createJudgeScorers(openaiOnly)]);

  it('refuses an llmJudge without a prompt string, and takes a prompt or criteria', () => {
    expect(registry.check(refs(['llmJudge']))).toEqual([{ index: 0, message: `scorer 'llmJudge': config.prompt ${PROMPT_REQUIRED}` }]);
    expect(registry.check(refs([{ name: 'llmJudge', config: { prompt: 7 } }]))[0].message).toBe(`scorer 'llmJudge': config.prompt ${PROMPT_REQUIRED}`);
    expect(registry.check(refs([{ name: 'llmJudge', config: { prompt: '  ' } }]))[0].message).toBe(`scorer 'llmJudge': config.prompt ${PROMPT_REQUIRED}`);
    expect(
      registry.check(
        refs([
          { name: 'llmJudge', config: { prompt: 'Is {{output}} kind?' } },
          { name: 'llmJudge:b', config: { criteria: 'kind' } },
        ]),
      ),
    ).toEqual([]);
  });

  it('checks built-in judges configs strictly', () => {
    expect(registry.check(refs(['safety_judge', { name: 'grounding', config: { model: 'x', provider: 'openai', temperature: 0 } }]))).toEqual([]);
    const issues = registry.check(
      refs([
        { name: 'safety_judge', config: { provider: 'mistral' } },
        { name: 'reasoning', config: { temprature: 0 } },
      ]),
    );
    expect(issues.map((i) => i.index)).toEqual([0, 1]);
  });

  it('names another instance of a judge as judge:label, never of a rule', () => {
    expect(registry.get('llmJudge:politeness')?.name).toBe('llmJudge');
    expect(registry.get('safety_judge:strict')?.name).toBe('safety_judge');
    expect(registry.get('contains:x')).toBeUndefined();
    expect(registry.get('llmJudge:')).toBeUndefined();
  });

  it('says which judges cannot run here: a provider that is not configured, or none at all', () => {
    expect(registry.unavailable(refs(['contains', 'safety_judge', { name: 'grounding', config: { provider: 'anthropic' } }]))).toEqual([
      { index: 2, message: "LLM judge 'grounding' asks for the LLM provider 'anthropic', which is not configured: set ANTHROPIC_API_KEY" },
    ]);
    const none = defaultScorerRegistry();
    expect(none.unavailable(refs(['contains', 'helpfulness_judge']))).toEqual([
      { index: 1, message: matching(/^LLM judge 'helpfulness_judge' needs an LLM provider and none is configured/) },
    ]);
  });

  it("adds a project's custom scorers without shadowing the built-in ones", () => {
    const custom = { ...RULE_SCORERS[0], name: 'tone', kind: 'custom' as const };
    const shadow = { ...RULE_SCORERS[0], name: 'contains', kind: 'custom' as const };
    const extended = extendRegistry(registry, [custom, shadow]);
    expect(extended.get('tone')).toBe(custom);
    expect(extended.get('contains')?.kind).toBe('rule');
  });
});
