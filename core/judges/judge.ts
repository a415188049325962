import type { LlmProviderName } from '../providers/settings.js';
import type { ScoreDetail } from '../model/eval-case.js';
import type { LlmProvider, LlmUsage, StructuredRequest } from '../providers/types.js';
import { retryNote } from './prompt.js';
import { parseVerdict, VERDICT_TOOL } from './verdict.js';

/** SPEC "Activity time-outs and retries": an LLM call times out after 5 minutes. */
export const LLM_CALL_TIMEOUT_MS = 5 * 60_000;

/** What one judge asks one provider. */
export interface JudgeRequest {
  /** The scorer's name as the case lists it (`safety_judge`, `llmJudge:politeness`). */
  scorer: string;
  provider: LlmProviderName;
  /** The provider's default judge model when absent. */
  model?: string;
  system: string;
  /** The case, as the judge's user message. */
  prompt: string;
  temperature?: number;
}

/** One provider call a judge made, answered or not: a generation span of the judged trace, and spend. */
export interface JudgeGeneration {
  scorer: string;
  provider: LlmProviderName;
  /** The model that answered (else the one asked). */
  model: string;
  /** 1 for the first answer of this judging, 2 for the first re-ask... */
  attempt: number;
  input: { system: string; messages: StructuredRequest['messages'] };
  output: unknown;
  /** Null when the call failed before the provider reported usage. */
  usage: LlmUsage | null;
  startedAt: number;
  endedAt: number;
  /** `ok`: a usable verdict; `unusable`: an answer that was not one (the judge asks again); `error`: the call failed. */
  status: 'ok' | 'unusable' | 'error';
  /** Why the answer was unusable or the call failed. */
  error?: string;
}

export interface JudgeHooks {
  /** Asked before every provider call: a reason stops the judge (score 0 with that reason), e.g. a spent budget. */
  beforeCall?(): Promise<string | undefined>;
  /** Every call made, as soon as it ended; it should be stored durably (spend counts toward the budget). */
  onGeneration?(generation: JudgeGeneration): Promise<void>;
  signal?: AbortSignal;
}

export interface JudgeOptions {
  /** Answers asked for before an unusable one scores 0 (the first included). */
  maxAnswerAttempts: number;
  maxTokens: number;
  timeoutMs?: number;
}

/**
 * Asks the provider for a verdict through its structured output and checks it (a score in 0..1,
 * a reason, evidence). An answer that is not a usable verdict is asked for again, with the
 * problem named, up to `maxAnswerAttempts` answers; then the judge scores 0 with the reason. A
 * failed call (HTTP error, time-out) rejects with a ProviderError: the caller's retry policy (the
 * LLM call activity's, or `evaluate`'s own) decides whether to call again.
 */
export async function runJudge(provider: LlmProvider, req: JudgeRequest, opts: JudgeOptions, hooks: JudgeHooks = {}): Promise<ScoreDetail> {
  let problem = '';
  for (let attempt = 1; attempt <= opts.maxAnswerAttempts; attempt++) {
    hooks.signal?.throwIfAborted();
    const stop = await hooks.beforeCall?.();
    if (stop) return { score: 0, reason: stop, evidence: [] };
    const messages = [{ role: 'user' as const, content: attempt === 1 ? req.prompt : req.prompt + retryNote(problem) }];
    const input = { system: req.system, messages };
    const startedAt = Date.now();
    const base = { scorer: req.scorer, provider: provider.name, attempt, input, startedAt };
    let answer;
    try {
      answer = await provider.structured({
        model: req.model,
        system: req.system,
        messages,
        tool: VERDICT_TOOL,
        maxTokens: opts.maxTokens,
        temperature: req.temperature,
        timeoutMs: opts.timeoutMs ?? LLM_CALL_TIMEOUT_MS,
        signal: hooks.signal,
      });
    } catch (err) {
      if (!hooks.signal?.aborted) {
        await hooks.onGeneration?.({
          ...base,
          model: req.model ?? provider.defaultModel,
          output: null,
          usage: null,
          endedAt: Date.now(),
          status: 'error',
          error: (err as Error).message,
        });
      }
      throw err;
    }
    const parsed = answer.value === undefined ? { problem: answer.problem ?? 'no structured answer' } : parseVerdict(answer.value);
    const endedAt = Date.now();
    const generation = { ...base, model: answer.model, output: answer.raw, usage: answer.usage, endedAt };
    if ('verdict' in parsed) {
      await hooks.onGeneration?.({ ...generation, status: 'ok' });
      return parsed.verdict;
    }
    problem = parsed.problem;
    await hooks.onGeneration?.({ ...generation, status: 'unusable', error: problem });
  }
  return {
    score: 0,
    reason: `judge answer unusable after ${opts.maxAnswerAttempts} attempt${opts.maxAnswerAttempts === 1 ? '' : 's'}: ${problem}`,
    evidence: [],
  };
}
