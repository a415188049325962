import type { LlmProviderName } from '../providers/settings.js';
import type { ScoreDetail } from '../model/eval-case.js';
import type { LlmProvider, LlmUsage, StructuredRequest, StructuredResponse } from '../providers/types.js';
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

/** One structured question asked until the answer is usable (askStructured): what to ask and how to read the answer. */
export interface StructuredAsk<T> {
  /** Who asks, as every call is recorded (JudgeGeneration.scorer). */
  scorer: string;
  /** The provider's default model when absent. */
  model?: string;
  system: string;
  prompt: string;
  tool: StructuredRequest['tool'];
  temperature?: number;
  seed?: number;
  /** The answer read, or why it cannot be used (the problem is named when asking again). */
  read(answer: StructuredResponse): { value: T } | { problem: string };
  /** Added to the prompt when asking again after an unusable answer. */
  retryNote(problem: string): string;
}

/** How asking ended: a usable answer, a stop from the budget gate before a call, or `maxAnswerAttempts` unusable answers. */
export type AskOutcome<T> = { tag: 'answer'; value: T } | { tag: 'stopped'; reason: string } | { tag: 'unusable'; problem: string };

/**
 * Asks the provider through its structured output until the answer is usable: each call goes
 * through the hooks (the budget gate before it, the record of it as soon as it ended); an
 * unusable answer is asked for again with the problem named, up to `maxAnswerAttempts` answers.
 * A failed call (HTTP error, time-out) rejects with the provider's error: the caller's retry
 * policy decides whether to call again. The one loop of judges and the simulated user
 * (core/conversations/simulator.ts).
 */
export async function askStructured<T>(provider: LlmProvider, ask: StructuredAsk<T>, opts: JudgeOptions, hooks: JudgeHooks = {}): Promise<AskOutcome<T>> {
  let problem = '';
  for (let attempt = 1; attempt <= opts.maxAnswerAttempts; attempt++) {
    hooks.signal?.throwIfAborted();
    const stop = await hooks.beforeCall?.();
    if (stop) return { tag: 'stopped', reason: stop };
    const messages = [{ role: 'user' as const, content: attempt === 1 ? ask.prompt : ask.prompt + ask.retryNote(problem) }];
    const input = { system: ask.system, messages };
    const startedAt = Date.now();
    const base = { scorer: ask.scorer, provider: provider.name, attempt, input, startedAt };
    let answer;
    try {
      answer = await provider.structured({
        model: ask.model,
        system: ask.system,
        messages,
        tool: ask.tool,
        maxTokens: opts.maxTokens,
        temperature: ask.temperature,
        seed: ask.seed,
        timeoutMs: opts.timeoutMs ?? LLM_CALL_TIMEOUT_MS,
        signal: hooks.signal,
      });
    } catch (err) {
      if (!hooks.signal?.aborted) {
        await hooks.onGeneration?.({
          ...base,
          model: ask.model ?? provider.defaultModel,
          output: null,
          usage: null,
          endedAt: Date.now(),
          status: 'error',
          error: (err as Error).message,
        });
      }
      throw err;
    }
    const read = ask.read(answer);
    const generation = { ...base, model: answer.model, output: answer.raw, usage: answer.usage, endedAt: Date.now() };
    if ('value' in read) {
      await hooks.onGeneration?.({ ...generation, status: 'ok' });
      return { tag: 'answer', value: read.value };
    }
    problem = read.problem;
    await hooks.onGeneration?.({ ...generation, status: 'unusable', error: problem });
  }
  return { tag: 'unusable', problem };
}

/**
 * Asks the provider for a verdict through its structured output and checks it (a score in 0..1,
 * a reason, evidence). An answer that is not a usable verdict is asked for again, with the
 * problem named, up to `maxAnswerAttempts` answers; then the judge scores 0 with the reason. A
 * failed call (HTTP error, time-out) rejects with a ProviderError: the caller's retry policy (the
 * LLM call activity's, or `evaluate`'s own) decides whether to call again.
 */
export async function runJudge(provider: LlmProvider, req: JudgeRequest, opts: JudgeOptions, hooks: JudgeHooks = {}): Promise<ScoreDetail> {
  const outcome = await askStructured<ScoreDetail>(
    provider,
    {
      scorer: req.scorer,
      model: req.model,
      system: req.system,
      prompt: req.prompt,
      tool: VERDICT_TOOL,
      temperature: req.temperature,
      read(answer) {
        if (answer.value === undefined) return { problem: answer.problem ?? 'no structured answer' };
        const parsed = parseVerdict(answer.value);
        return 'verdict' in parsed ? { value: parsed.verdict } : parsed;
      },
      retryNote,
    },
    opts,
    hooks,
  );
  if (outcome.tag === 'answer') return outcome.value;
  if (outcome.tag === 'stopped') return { score: 0, reason: outcome.reason, evidence: [] };
  return {
    score: 0,
    reason: `judge answer unusable after ${opts.maxAnswerAttempts} attempt${opts.maxAnswerAttempts === 1 ? '' : 's'}: ${outcome.problem}`,
    evidence: [],
  };
}
