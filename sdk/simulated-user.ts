import { EnvSchema } from '../core/config-env.js';
import { simulateUserTurn, simulatorProvider } from '../core/conversations/simulator.js';
import { simulatorCallSpan } from '../core/conversations/simulator-span.js';
import type { JudgeGeneration } from '../core/judges/judge.js';
import type { JudgeRuntime } from '../core/judges/judge-scorer.js';
import { LLM_CALL_RETRY, withRetries } from '../core/judges/retry.js';
import type { SimulatedUserTurn, Simulation } from '../core/model/conversation.js';
import type { LlmMessage } from '../core/model/messages.js';
import { LLM_ENV, llmSettings } from '../core/providers/settings.js';
import type { SpanFactory } from './tracing.js';

/**
 * Who plays the simulated users of a local run (docs/sdk.md, "Conversations"; docs/evals.md,
 * "Runs executed outside the service"). A local run is executed by its client, simulated users
 * included: by default an LLM through this process's own provider configuration (the variables
 * the service reads: ANTHROPIC_API_KEY, OPENAI_API_KEY, GOOGLE_CLOUD_PROJECT, JUDGE_PROVIDER,
 * JUDGE_MODEL_*, the *_BASE_URL ones; docs/judges.md), with the service's simulator
 * (core/conversations/simulator.ts: the same prompt, answer reading and re-asks); or a function
 * of the caller's. Provider keys never leave the client, and the service never calls an LLM for
 * a local run.
 */

/** What a simulated user function is asked: its turn `turn`, given the conversation so far. */
export interface SimulatedUserRequest {
  case: { index: number; name: string };
  /** 0-based repetition of the case. */
  trial: number;
  /** The case's simulated user: persona, goal, facts, max_turns... */
  simulation: Simulation;
  /** The turn to write, 1-based. */
  turn: number;
  /** The conversation so far: user and assistant messages in the product's message model. */
  messages: LlmMessage[];
  /** Aborted when the evaluation is cancelled. */
  signal: AbortSignal;
}

/** The user's next message, or that it stops (`goal_met`, `gave_up`: then `message` is its closing words, not sent to the agent). */
export interface SimulatedUserReply {
  message: string;
  stop?: 'goal_met' | 'gave_up' | null;
}

/** A simulated user of your own (a scripted one for tests, your own model...): `evaluate({simulatedUser})`. */
export type SimulatedUserFunction = (request: SimulatedUserRequest) => SimulatedUserReply | Promise<SimulatedUserReply>;

/** Plays one turn of a simulated user; rejects when it cannot (the trial then fails with the message). */
export type UserPlayer = (request: SimulatedUserRequest) => Promise<SimulatedUserTurn>;

const STOPS = new Set([null, undefined, 'goal_met', 'gave_up']);

/**
 * A caller's function as a player. Turn 1 is the case's `first_message` when it has one (as with
 * the LLM, the function is not asked); an answer that is not `{message, stop?}` fails the trial.
 */
export function functionPlayer(fn: SimulatedUserFunction): UserPlayer {
  return async (req) => {
    if (req.turn === 1 && req.simulation.first_message !== undefined) return { message: req.simulation.first_message, stop: null };
    const reply: unknown = await fn(req);
    const r = (typeof reply === 'object' && reply !== null ? reply : {}) as Partial<SimulatedUserReply>;
    if (typeof r.message !== 'string' || !STOPS.has(r.stop))
      throw new TypeError(
        `simulatedUser returned ${JSON.stringify(reply) ?? String(reply)} for turn ${req.turn}: give {message, stop?: 'goal_met' | 'gave_up'}`,
      );
    if (!r.message && !r.stop) throw new TypeError(`simulatedUser returned an empty message for turn ${req.turn} without stopping`);
    return { message: r.message, stop: r.stop ?? null };
  };
}

/** The judges' runtime of this process's environment (only the providers' variables are read). */
async function environmentRuntime(env: Record<string, string | undefined>): Promise<JudgeRuntime> {
  const parsed = EnvSchema.pick(LLM_ENV).safeParse(env);
  if (!parsed.success)
    throw new TypeError(`the LLM provider settings are invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const settings = llmSettings(parsed.data);
  // The providers' official SDKs load only when a simulated user is played.
  const { createProviders } = await import('../core/providers/index.js');
  return { providers: createProviders(settings), maxAnswerAttempts: settings.maxAnswerAttempts, maxOutputTokens: settings.maxOutputTokens };
}

/** One simulated user's call as a generation span of component type `simulated_user` under the active span (the case's root), as a managed run's trace has it. */
function recordCall(spans: SpanFactory, g: JudgeGeneration): void {
  const span = simulatorCallSpan({
    scorer: g.scorer,
    provider: g.provider,
    model: g.model,
    attempt: g.attempt,
    status: g.status,
    error: g.error ?? null,
    input: g.input,
    output: g.output,
    input_tokens: g.usage?.input_tokens ?? 0,
    output_tokens: g.usage?.output_tokens ?? 0,
    cached_input_tokens: g.usage?.cached_input_tokens ?? 0,
    started_ms: g.startedAt,
    ended_ms: g.endedAt,
  });
  // Without the GenAI convention's keys: over OTLP those would make it an agent's generation (docs/conventions.md, precedence); the SDK's `span_type` and `component_type` say what it is.
  const attributes = Object.fromEntries(Object.entries(span.attributes as Record<string, unknown>).filter(([key]) => !key.startsWith('gen_ai.')));
  const handle = spans.start('generation', String(span.name), { startTime: g.startedAt, attributes });
  handle.setGeneration({
    model: g.model,
    input: g.input,
    output: g.output,
    usage: { input_tokens: g.usage?.input_tokens ?? 0, output_tokens: g.usage?.output_tokens ?? 0 },
  });
  if (g.status === 'error') handle.recordError(new Error(g.error ?? 'the call failed'));
  handle.end(Math.max(g.startedAt, g.endedAt));
}

/**
 * The LLM simulated user of this process: the provider its environment configures (rejects,
 * saying which variable to set, when none is). A failed call is retried as the run engine's LLM
 * call activity is (5 retries, 1 s to 30 s); each call is a span of the case trace.
 */
export async function environmentPlayer(env: Record<string, string | undefined>, spans: SpanFactory): Promise<UserPlayer> {
  const runtime = await environmentRuntime(env);
  simulatorProvider(runtime);
  return async (req) => {
    const outcome = await withRetries(
      () =>
        simulateUserTurn(
          { runtime, hooks: { signal: req.signal, onGeneration: (g) => Promise.resolve(recordCall(spans, g)) } },
          { simulation: req.simulation, messages: req.messages, turn: req.turn },
        ),
      LLM_CALL_RETRY,
      req.signal,
    );
    if (outcome.tag === 'stopped') throw new Error(outcome.reason);
    return outcome.turn;
  };
}
