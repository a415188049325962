import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';
import { runJudge, type JudgeGeneration } from '../../../core/judges/judge.js';
import { promptText, renderTemplate, usesVariables } from '../../../core/judges/prompt.js';
import { BAND_LABELS, RUBRICS } from '../../../core/judges/rubrics.js';
import { createJudgeScorers, PROMPT_REQUIRED } from '../../../core/judges/scorers.js';
import { parseVerdict } from '../../../core/judges/verdict.js';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { providerError } from '../../../core/providers/errors.js';
import { providerSet } from '../../../core/providers/index.js';
import { ProviderError, type LlmProvider, type StructuredRequest, type StructuredResponse } from '../../../core/providers/types.js';
import { createScorerRegistry, defaultScorerRegistry, extendRegistry, RULE_SCORERS } from '../../../core/scoring/index.js';
import { REPO_ROOT } from '../../helpers/processes.js';

const refs = (list: unknown) => ScorerRefListSchema.parse(list);
/** A string matcher, typed for use inside an expected object. */
const matching = (pattern: RegExp) => expect.stringMatching(pattern) as unknown as string;

/** A provider that answers from a list and records what it was asked. */
function stubProvider(answers: Array<Partial<StructuredResponse> | Error>): LlmProvider & { asked: StructuredRequest[] } {
  const asked: StructuredRequest[] = [];
  return {
    name: 'anthropic',
    defaultModel: 'stub-model',
    asked,
    structured(req) {
      asked.push(req);
      const next = answers.shift();
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve({
        value: undefined,
        raw: null,
        model: 'stub-model',
        usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0 },
        stopReason: 'tool_use',
        ...next,
      });
    },
  };
}

describe('verdicts', () => {
  it('takes a score in 0..1 with a reason and evidence', () => {
    expect(parseVerdict({ score: 0.4, reason: 'half', evidence: ['q'] })).toEqual({ verdict: { score: 0.4, reason: 'half', evidence: ['q'] } });
    expect(parseVerdict({ score: 1, reason: 'ok' })).toEqual({ verdict: { score: 1, reason: 'ok', evidence: [] } });
  });

  it('names what is wrong with an answer that is not a verdict', () => {
    expect(parseVerdict({ score: 1.5, reason: 'x', evidence: [] })).toEqual({ problem: 'score must be between 0 and 1 (got 1.5)' });
    expect(parseVerdict({ score: '0.5', reason: 'x', evidence: [] })).toMatchObject({ problem: matching(/^score .*\(got "0\.5"\)$/) });
    expect(parseVerdict({ score: 0.5, reason: '  ', evidence: [] })).toMatchObject({ problem: matching(/^reason must not be empty/) });
    expect(parseVerdict('0.5')).toMatchObject({ problem: matching(/^the answer /) });
  });
});

describe('judge prompts', () => {
  it('fills the four variables, spaces allowed, and leaves anything else alone', () => {
    const values = { input: 'IN', output: 'OUT', expected: 'EXP', trace: 'TR' };
    expect(renderTemplate('{{input}} {{ output }} {{expected}} {{trace}} {{other}} {input}', values)).toBe('IN OUT EXP TR {{other}} {input}');
    expect(usesVariables('Rate {{ output }}')).toBe(true);
    expect(usesVariables('Rate the answer')).toBe(false);
  });

  it('shows non-text values as JSON and cuts very long ones', () => {
    expect(promptText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(promptText('x'.repeat(20), 10)).toBe(`${'x'.repeat(10)}\n[… 10 more characters not shown]`);
  });

  it('documents every built-in rubric word for word in docs/judges.md', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'judges.md'), 'utf8');
    for (const rubric of RUBRICS) {
      expect(doc, rubric.name).toContain(`### \`${rubric.name}\``);
      expect(doc, rubric.name).toContain(rubric.criteria);
      rubric.bands.forEach((band, i) => expect(doc, `${rubric.name} band ${i}`).toContain(`${BAND_LABELS[i]}: ${band}`));
    }
  });
});

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

describe('provider errors', () => {
  it('retries rate limits and server errors, honouring Retry-After, and not refused requests', () => {
    const limited = providerError('openai', Object.assign(new Error('429 slow down'), { status: 429, headers: new Headers({ 'retry-after': '3' }) }));
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 3000, message: 'openai: 429 slow down' });
    expect(providerError('openai', Object.assign(new Error('boom'), { status: 503 }))).toMatchObject({ retryable: true, message: 'openai: 503 boom' });
    expect(providerError('anthropic', Object.assign(new Error('bad'), { status: 400 }))).toMatchObject({ retryable: false, status: 400 });
    expect(providerError('vertex-gemini', new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toMatchObject({
      retryable: true,
      message: 'vertex-gemini: call failed: fetch failed (ECONNREFUSED)',
    });
  });

  it('passes a cancellation through untouched', () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new Error('aborted');
    expect(providerError('openai', abort, controller.signal)).toBe(abort);
  });
});

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

describe('provider configuration', () => {
  it('configures each provider from its own variables and picks the first as the default', () => {
    const none = loadConfig({}).llm;
    expect(none.defaultProvider).toBeUndefined();
    expect(none.anthropic).toBeUndefined();
    const c = loadConfig({
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      GOOGLE_CLOUD_PROJECT: 'p',
      CLOUD_ML_REGION: 'us-east5',
      JUDGE_MODEL_OPENAI: 'gpt-x',
    }).llm;
    expect(c.defaultProvider).toBe('openai');
    expect(c.openai).toMatchObject({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-x', structuredOutput: 'json_schema' });
    expect(c['vertex-gemini']).toMatchObject({ project: 'p', location: 'global' });
    expect(c['vertex-anthropic']).toMatchObject({ project: 'p', region: 'us-east5' });
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', JUDGE_PROVIDER: 'openai' }).llm.defaultProvider).toBe('openai');
  });

  it('refuses a JUDGE_PROVIDER whose credentials are not set', () => {
    expect(() => loadConfig({ JUDGE_PROVIDER: 'anthropic' })).toThrow(ConfigError);
    expect(() => loadConfig({ JUDGE_PROVIDER: 'anthropic' })).toThrow(/JUDGE_PROVIDER: 'anthropic' is not configured \(ANTHROPIC_API_KEY is not set\)/);
  });
});
