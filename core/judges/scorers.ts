import { z } from 'zod';
import { LLM_PROVIDERS, PROVIDER_CREDENTIALS, type LlmProviderName } from '../providers/settings.js';
import type { ScoreDetail } from '../model/eval-case.js';
import type { LlmProvider, ProviderSet } from '../providers/types.js';
import type { Scorer, ScoreInput } from '../scoring/scorer.js';
import { traceView } from '../scoring/trace-view.js';
import { runJudge, type JudgeHooks, type JudgeRequest } from './judge.js';
import { caseBlock, promptText, renderTemplate, systemPrompt, usesVariables, type PromptVariable } from './prompt.js';
import { LLM_CALL_RETRY, withRetries, type RetryPolicy } from './retry.js';
import { RUBRICS, type Rubric } from './rubrics.js';

/** The SPEC's message for an llmJudge with neither a prompt nor criteria. */
export const PROMPT_REQUIRED = 'llmJudge requires a prompt string';

const MAX_PROMPT_CHARS = 100_000;

/** What judges need from the process: its providers and how hard to try. */
export interface JudgeRuntime {
  providers: ProviderSet;
  maxAnswerAttempts: number;
  maxOutputTokens: number;
  /** Retries of failed calls in `evaluate` (outside the workflow engine); default: the SPEC's LLM call policy. */
  retry?: RetryPolicy;
}

/** A judge: a scorer whose verdict comes from an LLM. */
export interface JudgeScorer extends Scorer {
  kind: 'judge';
  /**
   * One judging of `input` (its config already checked) with the caller's hooks (budget, the
   * record of every call) and no retry of a failed call: the LLM call activity retries.
   * `name` is the scorer's name as the case lists it (`llmJudge:politeness`).
   */
  judge(input: ScoreInput, hooks?: JudgeHooks, name?: string): Promise<ScoreDetail>;
}

export function isJudgeScorer(scorer: Scorer | undefined): scorer is JudgeScorer {
  return scorer?.kind === 'judge' && typeof (scorer as Partial<JudgeScorer>).judge === 'function';
}

/** A judge asked to run where it cannot: no provider for it in this process. */
export class JudgeUnavailableError extends Error {
  override name = 'JudgeUnavailableError';
}

const common = {
  provider: z.enum(LLM_PROVIDERS).optional(),
  model: z.string().trim().min(1).max(256).optional(),
  temperature: z.number().min(0).max(2).optional(),
};

const BuiltInConfig = z.strictObject({
  ...common,
  /** More criteria, added to the rubric. */
  criteria: z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional(),
});

const LlmJudgeConfig = z
  .strictObject({
    ...common,
    prompt: z.string({ error: PROMPT_REQUIRED }).max(MAX_PROMPT_CHARS).optional(),
    criteria: z.string({ error: PROMPT_REQUIRED }).max(MAX_PROMPT_CHARS).optional(),
  })
  .superRefine((config, ctx) => {
    if (!config.prompt?.trim() && !config.criteria?.trim()) ctx.addIssue({ code: 'custom', path: ['prompt'], message: PROMPT_REQUIRED });
  });

type CommonConfig = z.output<typeof BuiltInConfig> & { prompt?: string };

function providerFor(runtime: JudgeRuntime, scorer: string, config: CommonConfig): { provider?: LlmProvider; problem?: string } {
  const name: LlmProviderName | undefined = config.provider ?? runtime.providers.defaultProvider;
  if (!name) {
    return {
      problem: `LLM judge '${scorer}' needs an LLM provider and none is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_CLOUD_PROJECT (Vertex AI); see docs/judges.md`,
    };
  }
  const provider = runtime.providers.get(name);
  if (!provider) return { problem: `LLM judge '${scorer}' asks for the LLM provider '${name}', which is not configured: set ${PROVIDER_CREDENTIALS[name]}` };
  return { provider };
}

/** The parts of a case every judge can be shown, as text. */
function variables(input: ScoreInput): Record<PromptVariable, string> {
  const expected = Object.keys(input.expected ?? {}).length ? promptText(input.expected) : '';
  return { input: promptText(input.input), output: promptText(input.output), expected, trace: promptText(traceView(input)) };
}

/** What grounding judges against: expected.context, else retrieval spans' outputs, else tool results. */
function groundingContext(input: ScoreInput): string {
  const given = (input.expected as Record<string, unknown>).context;
  if (given !== undefined && given !== null && given !== '') return promptText(given);
  const retrieved = (input.trace?.spans ?? []).filter((s) => s.type === 'retrieval' && s.output !== undefined).map((s) => s.output);
  if (retrieved.length) return promptText(retrieved);
  const results = input.toolCalls.filter((c) => c.output !== undefined).map((c) => ({ tool: c.name, output: c.output }));
  if (results.length) return promptText(results);
  throw new Error('grounding needs context: expected.context, retrieval spans in the trace, or tool calls with outputs');
}

function builtInRequest(rubric: Rubric, config: CommonConfig, input: ScoreInput): Pick<JudgeRequest, 'system' | 'prompt'> {
  const v = variables(input);
  const parts: Array<[string, string]> = [['input', v.input]];
  if (rubric.sections.includes('context')) parts.push(['context', groundingContext(input)]);
  parts.push(['output', v.output]);
  if (rubric.sections.includes('expected') && v.expected) parts.push(['expected', v.expected]);
  if (rubric.sections.includes('trace')) parts.push(['trace', v.trace]);
  const criteria = config.criteria ? `${rubric.criteria}\nAlso: ${config.criteria}` : rubric.criteria;
  return { system: systemPrompt(criteria, rubric.bands), prompt: caseBlock(parts) };
}

/**
 * llmJudge: a prompt whose `{{input}}`, `{{output}}`, `{{expected}}` and `{{trace}}` are filled
 * in (a prompt naming none of them is followed by the case), and/or criteria for the system
 * prompt (criteria alone: the case is the message).
 */
function customRequest(config: CommonConfig, input: ScoreInput): Pick<JudgeRequest, 'system' | 'prompt'> {
  const v = variables(input);
  const block = caseBlock([['input', v.input], ['output', v.output], ...(v.expected ? [['expected', v.expected] as [string, string]] : [])]);
  const prompt = config.prompt?.trim();
  let message = block;
  if (prompt) message = usesVariables(prompt) ? renderTemplate(prompt, v) : `${prompt}\n\n${block}`;
  return { system: systemPrompt(config.criteria?.trim() || undefined), prompt: message };
}

function judgeScorer(
  runtime: JudgeRuntime,
  spec: {
    name: string;
    description: string;
    configSchema: z.ZodType<Record<string, unknown>>;
    request: (config: CommonConfig, input: ScoreInput) => Pick<JudgeRequest, 'system' | 'prompt'>;
  },
): JudgeScorer {
  const scorer: JudgeScorer = {
    name: spec.name,
    kind: 'judge',
    description: spec.description,
    configSchema: spec.configSchema,
    unavailable: (config) => providerFor(runtime, spec.name, config).problem,
    async judge(input, hooks = {}, name = spec.name) {
      const config = spec.configSchema.parse(input.config) as CommonConfig;
      const { provider, problem } = providerFor(runtime, name, config);
      if (!provider) throw new JudgeUnavailableError(problem);
      const { system, prompt } = spec.request(config, input);
      const request: JudgeRequest = { scorer: name, provider: provider.name, model: config.model, system, prompt, temperature: config.temperature };
      return runJudge(provider, request, { maxAnswerAttempts: runtime.maxAnswerAttempts, maxTokens: runtime.maxOutputTokens }, hooks);
    },
    evaluate(input, signal) {
      return withRetries(() => scorer.judge(input, { signal }), runtime.retry ?? LLM_CALL_RETRY, signal);
    },
  };
  return scorer;
}

/** The SPEC's LLM judges: llmJudge and the six built-ins (docs/judges.md). */
export function createJudgeScorers(runtime: JudgeRuntime): JudgeScorer[] {
  return [
    judgeScorer(runtime, {
      name: 'llmJudge',
      description: 'LLM judge with your own prompt ({{input}}, {{output}}, {{expected}}, {{trace}}) or criteria.',
      configSchema: LlmJudgeConfig,
      request: customRequest,
    }),
    ...RUBRICS.map((rubric) =>
      judgeScorer(runtime, {
        name: rubric.name,
        description: rubric.description,
        configSchema: BuiltInConfig,
        request: (config, input) => builtInRequest(rubric, config, input),
      }),
    ),
  ];
}
