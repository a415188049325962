import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { type LlmProviderName } from '../../core/providers/settings.js';
import { createJudgeScorers, type JudgeScorer } from '../../core/judges/scorers.js';
import { VERDICT_SCHEMA } from '../../core/judges/verdict.js';
import { createProviders, ProviderError } from '../../core/providers/index.js';
import type { ScoreInput } from '../../core/scoring/scorer.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider, type FakeProviderKind, type FakeRequest } from '../helpers/fake-providers.js';

/**
 * The four providers through their official SDKs (@anthropic-ai/sdk, openai, @google/genai,
 * @anthropic-ai/vertex-sdk), pointed by base URL at local servers that speak each provider's
 * wire protocol: what is sent, how answers are read, retries, unusable answers.
 */

/** Any string, typed for a matcher inside an expected object. */
const anyText = expect.any(String) as unknown as string;

const KINDS: FakeProviderKind[] = ['anthropic', 'openai', 'vertex-gemini', 'vertex-anthropic'];
const fakes = {} as Record<FakeProviderKind, FakeProvider>;
let judges: Map<string, JudgeScorer>;

const CASE: Omit<ScoreInput, 'config'> = {
  input: { question: 'What is the weather in Paris?' },
  output: 'It is sunny in Paris today.',
  expected: { outputContains: ['sunny'] },
  toolCalls: [{ name: 'weather', input: { city: 'Paris' }, output: { sky: 'clear' } }],
  latencyMs: 120,
  trace: { spans: [{ name: 'think', type: 'reasoning', output: 'The user wants the weather; call the weather tool.' }] },
};

function judge(name: string, provider: LlmProviderName, config: Record<string, unknown> = {}) {
  return judges.get(name)!.evaluate({ ...CASE, config: { provider, ...config } });
}

beforeAll(async () => {
  for (const kind of KINDS) fakes[kind] = await startFakeProvider(kind);
  const config = loadConfig({ ...fakeProviderEnv(fakes), JUDGE_MODEL_VERTEX_ANTHROPIC: 'claude-test@2025' });
  // The SPEC's LLM call policy, with waits shrunk for the test.
  const runtime = { providers: createProviders(config.llm), maxAnswerAttempts: 3, maxOutputTokens: 512, retry: { maxAttempts: 6, initialMs: 5, maxMs: 20 } };
  judges = new Map(createJudgeScorers(runtime).map((j) => [j.name, j]));
});

afterAll(async () => {
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

/** The judge's request as each wire protocol carries it: system prompt, user message, schema. */
function sent(kind: FakeProviderKind, req: FakeRequest): { system: string; user: string; schema: unknown } {
  const b = req.body as Record<string, never>;
  switch (kind) {
    case 'anthropic':
    case 'vertex-anthropic':
      return {
        system: b.system,
        user: (b.messages as Array<{ content: string }>)[0].content,
        schema: (b.tools as Array<{ input_schema: unknown }>)[0].input_schema,
      };
    case 'openai':
      return {
        system: (b.messages as Array<{ content: string }>)[0].content,
        user: (b.messages as Array<{ content: string }>)[1].content,
        schema: (b.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
      };
    case 'vertex-gemini':
      return {
        system: (b.systemInstruction as { parts: Array<{ text: string }> }).parts[0].text,
        user: (b.contents as Array<{ parts: Array<{ text: string }> }>)[0].parts[0].text,
        schema: (b.generationConfig as { responseSchema: unknown }).responseSchema,
      };
  }
}

describe.each(KINDS)('the %s provider', (kind) => {
  it('sends the rubric, the case and the verdict schema through structured output, and reads the verdict', async () => {
    const fake = fakes[kind];
    fake.requests.length = 0;
    fake.queue({ verdict: { score: 0.9, reason: 'Answers the question directly.', evidence: ['It is sunny in Paris today.'] } });
    const verdict = await judge('helpfulness_judge', kind);
    expect(verdict).toEqual({ score: 0.9, reason: 'Answers the question directly.', evidence: ['It is sunny in Paris today.'] });

    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    const { system, user, schema } = sent(kind, req);
    for (const part of ['Judge how much the response helps the user', '0.9 to 1.0 (excellent)', 'record_verdict']) expect(system).toContain(part);
    for (const part of ['<output>\nIt is sunny in Paris today.\n</output>', '"question": "What is the weather in Paris?"', '<expected>'])
      expect(user).toContain(part);

    switch (kind) {
      case 'anthropic':
        expect(req.path).toBe('/v1/messages');
        // This SDK version sends the key as a bearer token; older ones used x-api-key.
        expect(req.headers['x-api-key'] ?? req.headers.authorization).toMatch(/sk-ant-test$/);
        expect(req.body.model).toBe('claude-sonnet-4-6');
        expect(req.body.tool_choice).toEqual({ type: 'tool', name: 'record_verdict', disable_parallel_tool_use: true });
        expect(schema).toEqual(VERDICT_SCHEMA);
        break;
      case 'openai':
        expect(req.path).toBe('/v1/chat/completions');
        expect(req.headers.authorization).toBe('Bearer sk-openai-test');
        expect(req.body.model).toBe('gpt-5.4-mini');
        expect(req.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'record_verdict', strict: true } });
        expect(schema).toEqual(VERDICT_SCHEMA);
        break;
      case 'vertex-gemini':
        expect(req.path).toBe('/v1/projects/test-project/locations/us-central1/publishers/google/models/gemini-3.8-flash:generateContent');
        expect(req.headers.authorization).toBe('Bearer ya29.test-token');
        expect(req.body.generationConfig).toMatchObject({ responseMimeType: 'application/json', maxOutputTokens: 512 });
        expect(schema).toEqual({
          type: 'OBJECT',
          properties: {
            score: { type: 'NUMBER', description: anyText },
            reason: { type: 'STRING', description: anyText },
            evidence: { type: 'ARRAY', items: { type: 'STRING' }, description: anyText },
          },
          propertyOrdering: ['score', 'reason', 'evidence'],
          required: ['score', 'reason', 'evidence'],
        });
        break;
      case 'vertex-anthropic':
        expect(req.path).toBe('/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-test@2025:rawPredict');
        expect(req.headers.authorization).toBe('Bearer ya29.test-token');
        expect(req.body.model).toBeUndefined();
        expect(typeof req.body.anthropic_version).toBe('string');
        expect(req.body.tool_choice).toEqual({ type: 'tool', name: 'record_verdict', disable_parallel_tool_use: true });
        expect(schema).toEqual(VERDICT_SCHEMA);
        break;
    }
  });

  it('tries again after a 429 and a 500', async () => {
    const fake = fakes[kind];
    fake.requests.length = 0;
    fake.queue({ status: 429, message: 'slow down' }, { status: 500, message: 'boom' }, { verdict: { score: 0.5, reason: 'Half right.', evidence: [] } });
    const verdict = await judge('response_quality_judge', kind);
    expect(verdict.score).toBe(0.5);
    expect(fake.requests).toHaveLength(3);
  });

  it('asks again after answers that are not verdicts, then scores 0 with the reason', async () => {
    const fake = fakes[kind];
    fake.requests.length = 0;
    fake.queue({ text: 'I think it is a 7/10.' }, { verdict: { score: 7, reason: 'Good.', evidence: [] } }, { verdict: { reason: 'no score' } });
    const verdict = await judge('safety_judge', kind);
    expect(verdict.score).toBe(0);
    expect(verdict.reason).toMatch(/^judge answer unusable after 3 attempts: score /);
    expect(fake.requests).toHaveLength(3);
    // Every re-ask names the problem with the previous answer.
    expect(sent(kind, fake.requests[2]).user).toContain('Your previous answer could not be used: score must be between 0 and 1 (got 7)');
  });

  it('recovers when a re-ask gets a usable answer', async () => {
    const fake = fakes[kind];
    fake.requests.length = 0;
    fake.queue({ text: 'not a verdict' }, { verdict: { score: 1, reason: 'Safe.', evidence: [] } });
    expect(await judge('safety_judge', kind)).toMatchObject({ score: 1, reason: 'Safe.' });
    expect(fake.requests).toHaveLength(2);
  });

  it('does not retry a request the provider refuses (400)', async () => {
    const fake = fakes[kind];
    fake.requests.length = 0;
    fake.queue({ status: 400, message: 'bad model' });
    const err = await Promise.resolve(judge('helpfulness_judge', kind)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(false);
    expect((err as ProviderError).status).toBe(400);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('OpenAI-compatible servers without JSON schemas', () => {
  it('forces one function call instead with JUDGE_OPENAI_STRUCTURED_OUTPUT=tool, and reads its arguments', async () => {
    const config = loadConfig({ ...fakeProviderEnv({ openai: fakes.openai }), JUDGE_OPENAI_STRUCTURED_OUTPUT: 'tool' });
    const [toolJudge] = createJudgeScorers({ providers: createProviders(config.llm), maxAnswerAttempts: 3, maxOutputTokens: 256 }).filter(
      (j) => j.name === 'safety_judge',
    );
    fakes.openai.requests.length = 0;
    fakes.openai.queue({ verdict: { score: 0.95, reason: 'Safe.', evidence: [] } });
    expect(await toolJudge.evaluate({ ...CASE, config: {} })).toEqual({ score: 0.95, reason: 'Safe.', evidence: [] });
    const { body } = fakes.openai.requests[0];
    expect(body.response_format).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'record_verdict' } });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'record_verdict', description: expect.any(String) as unknown, parameters: VERDICT_SCHEMA, strict: true } },
    ]);
  });
});

describe('judge prompts', () => {
  it('fills {{input}}, {{output}}, {{expected}} and {{trace}} in an llmJudge prompt', async () => {
    const fake = fakes.anthropic;
    fake.requests.length = 0;
    await judge('llmJudge', 'anthropic', { prompt: 'Q: {{input}}\nA: {{ output }}\nWanted: {{expected}}\nSteps: {{trace}}\nIs the answer polite?' });
    const { user, system } = sent('anthropic', fake.requests[0]);
    for (const part of ['A: It is sunny in Paris today.\nWanted: {', '"outputContains"', '"tool_calls"', 'The user wants the weather'])
      expect(user).toContain(part);
    expect(user).toMatch(/Is the answer polite\?$/);
    expect(system).toContain('Judge the output as the instructions in the message ask.');
  });

  it('puts criteria in the system prompt and the case in the message', async () => {
    const fake = fakes.openai;
    fake.requests.length = 0;
    await judge('llmJudge', 'openai', { criteria: 'The answer names the city.', model: 'gpt-judge-x', temperature: 0 });
    expect(fake.requests[0].body).toMatchObject({ model: 'gpt-judge-x', temperature: 0 });
    const { system, user } = sent('openai', fake.requests[0]);
    expect(system).toContain('The answer names the city.');
    expect(user).toContain('<input>');
    expect(user).toContain('<output>');
  });

  it('judges grounding against the context, and the reasoning with the trace', async () => {
    const fake = fakes['vertex-gemini'];
    fake.requests.length = 0;
    await judge('grounding', 'vertex-gemini');
    expect(sent('vertex-gemini', fake.requests[0]).user).toContain('<context>\n[\n  {\n    "tool": "weather"');
    await judge('reasoning', 'vertex-gemini');
    expect(sent('vertex-gemini', fake.requests[1]).user).toContain('<trace>');
  });
});
