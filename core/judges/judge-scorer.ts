import { z } from 'zod';
import type { ScoreDetail } from '../model/eval-case.js';
import { LLM_PROVIDERS, PROVIDER_CREDENTIALS, type LlmProviderName } from '../providers/settings.js';
import type { LlmProvider, ProviderSet } from '../providers/types.js';
import type { Scorer, ScoreInput } from '../scoring/scorer.js';
import { runJudge, type JudgeHooks, type JudgeRequest } from './judge.js';
import { LLM_CALL_RETRY, withRetries, type RetryPolicy } from './retry.js';

/**
 * How a judge is made a scorer (docs/judges.md): its provider, the one runJudge, the caller's
 * hooks. The SPEC's judges (scorers.ts) and the trajectory judges (trajectory-judge.ts,
 * span-judge.ts) are each declared as a JudgeSpec and built by {@link judgeScorer}.
 */

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

/** The longest prompt or criteria a judge's config takes. */
export const MAX_PROMPT_CHARS = 100_000;

/** The config keys every judge has: which provider and model, at which temperature. */
export const JUDGE_COMMON_CONFIG = {
  provider: z.enum(LLM_PROVIDERS).optional(),
  model: z.string().trim().min(1).max(256).optional(),
  temperature: z.number().min(0).max(2).optional(),
};

/** What every judge's config holds (JUDGE_COMMON_CONFIG). */
export interface JudgeConfig {
  provider?: LlmProviderName;
  model?: string;
  temperature?: number;
}

export function providerFor(runtime: JudgeRuntime, scorer: string, config: JudgeConfig): { provider?: LlmProvider; problem?: string } {
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

/** One question to the judge's provider: its system prompt and message. */
export type JudgeQuestion = Pick<JudgeRequest, 'system' | 'prompt'>;

/**
 * Asks the judge's provider one question through runJudge (core/judges/judge.ts) with the
 * caller's hooks (the run's budget, the record of every call): the verdict, and the reason the
 * budget gate gave when it stopped the judge before a call (the verdict is then that 0).
 */
export type AskJudge = (question: JudgeQuestion) => Promise<{ verdict: ScoreDetail; stopped?: string }>;

/** A judge as its file declares it: one question (`request`), or a judging that asks as many as it needs (`judging`). */
export type JudgeSpec<C extends JudgeConfig> = {
  name: string;
  description: string;
  configSchema: z.ZodType<C>;
  /** A conversation-level judge (Scorer.readsConversation): it reads ScoreInput.conversation. */
  readsConversation?: boolean;
} & (
  | { request: (config: C, input: ScoreInput) => JudgeQuestion }
  | { judging: (config: C, input: ScoreInput, ask: AskJudge, signal?: AbortSignal) => Promise<ScoreDetail> }
);

/**
 * A judge scorer: every judge, built in or not, runs through here and so through the same
 * providers, runJudge, budget gate and call records (runs: workflows/judge-activity.ts; online
 * rules: core/online/score-trace.ts; both through core/judges/run-judge.ts).
 */
export function judgeScorer<C extends JudgeConfig>(runtime: JudgeRuntime, spec: JudgeSpec<C>): JudgeScorer {
  const scorer: JudgeScorer = {
    name: spec.name,
    kind: 'judge',
    description: spec.description,
    configSchema: spec.configSchema as unknown as z.ZodType<Record<string, unknown>>,
    ...(spec.readsConversation ? { readsConversation: true } : {}),
    unavailable: (config) => providerFor(runtime, spec.name, config).problem,
    async judge(input, hooks = {}, name = spec.name) {
      const config = spec.configSchema.parse(input.config);
      const { provider, problem } = providerFor(runtime, name, config);
      if (!provider) throw new JudgeUnavailableError(problem);
      const ask: AskJudge = async ({ system, prompt }) => {
        let stopped: string | undefined;
        const gated: JudgeHooks = hooks.beforeCall ? { ...hooks, beforeCall: async () => (stopped = await hooks.beforeCall?.()) } : hooks;
        const request: JudgeRequest = { scorer: name, provider: provider.name, model: config.model, system, prompt, temperature: config.temperature };
        const verdict = await runJudge(provider, request, { maxAnswerAttempts: runtime.maxAnswerAttempts, maxTokens: runtime.maxOutputTokens }, gated);
        return stopped ? { verdict, stopped } : { verdict };
      };
      if ('request' in spec) return (await ask(spec.request(config, input))).verdict;
      return spec.judging(config, input, ask, hooks.signal);
    },
    evaluate(input, signal) {
      return withRetries(() => scorer.judge(input, { signal }), runtime.retry ?? LLM_CALL_RETRY, signal);
    },
  };
  return scorer;
}
