import { askStructured, type JudgeHooks } from '../judges/judge.js';
import type { JudgeRuntime } from '../judges/judge-scorer.js';
import type { SimulatedUserTurn, Simulation } from '../model/conversation.js';
import type { LlmMessage } from '../model/messages.js';
import { PROVIDER_CREDENTIALS } from '../providers/settings.js';
import type { LlmProvider } from '../providers/types.js';
import { parseUserTurn, parseUserTurnText } from './simulator-answer.js';
import { simulatorPrompt, simulatorSystemPrompt, USER_TURN_TOOL, userTurnRetryNote } from './simulator-prompt.js';
import { simulatorCallName } from './simulator-span.js';

/**
 * The simulated user (docs/evals.md, "Simulated users"): one user turn of a simulated
 * conversation, written by an LLM through the judges' providers, or taken as it is (the case's
 * `first_message` on turn 1, a recorded turn on replay). Every call goes through the caller's
 * hooks as a judge's does: the run's judge budget asked before it, the call recorded (tokens,
 * cost, the case trace's span) as soon as it ends.
 */

/** What the simulator needs from the process: the judges' providers and limits, and the caller's hooks. */
export interface SimulatorDeps {
  runtime: JudgeRuntime;
  /** The run's judge budget (asked before every call) and the record of every call. */
  hooks?: JudgeHooks;
}

export interface UserTurnRequest {
  simulation: Simulation;
  /** The conversation so far (user and assistant messages in the product's message model; others are not shown to the user). */
  messages: LlmMessage[];
  /** The turn to write, 1-based. */
  turn: number;
  /** Turns recorded by an earlier run (replay): turn `n` is `recorded[n - 1]` where there is one. */
  recorded?: ReadonlyArray<SimulatedUserTurn | undefined>;
}

/** Where a turn came from. */
export type UserTurnSource = 'first_message' | 'replay' | 'simulator';

/**
 * What the simulator did: a turn (`stop` set: the user ended the conversation, its message is not
 * sent to the agent), or `stopped`: the run's judge budget is spent and no call was made (the
 * reason says so; the conversation cannot go on).
 */
export type UserTurnOutcome = { tag: 'turn'; turn: SimulatedUserTurn; source: UserTurnSource } | { tag: 'stopped'; reason: string };

/** The simulator cannot run here: no provider for it in this process (the run's trial fails with this). */
export class SimulatorUnavailableError extends Error {
  override name = 'SimulatorUnavailableError';
}

/** The provider gave no usable answer in `maxAnswerAttempts` answers (each asked again with the problem named). */
export class SimulatorAnswerError extends Error {
  override name = 'SimulatorAnswerError';
}

/** The provider that plays the user: the default judge provider (JUDGE_PROVIDER), with `simulation.model` when set. */
export function simulatorProvider(runtime: JudgeRuntime): LlmProvider {
  const name = runtime.providers.defaultProvider;
  if (!name) {
    throw new SimulatorUnavailableError(
      'a simulated user needs an LLM provider and none is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_CLOUD_PROJECT (Vertex AI); see docs/judges.md',
    );
  }
  const provider = runtime.providers.get(name);
  if (!provider)
    throw new SimulatorUnavailableError(`a simulated user needs the LLM provider '${name}', which is not configured: set ${PROVIDER_CREDENTIALS[name]}`);
  return provider;
}

/**
 * The user's turn `req.turn`. A ProviderError (HTTP error, time-out) is thrown as it is for the
 * caller to retry (the activity's LLM call policy); an unusable answer is asked for again, then
 * SimulatorAnswerError.
 */
export async function simulateUserTurn(deps: SimulatorDeps, req: UserTurnRequest): Promise<UserTurnOutcome> {
  const { simulation, turn } = req;
  if (turn === 1 && simulation.first_message !== undefined)
    return { tag: 'turn', turn: { message: simulation.first_message, stop: null }, source: 'first_message' };
  const recorded = req.recorded?.[turn - 1];
  if (recorded) return { tag: 'turn', turn: recorded, source: 'replay' };

  const { runtime, hooks = {} } = deps;
  const outcome = await askStructured<SimulatedUserTurn>(
    simulatorProvider(runtime),
    {
      scorer: simulatorCallName(turn),
      model: simulation.model,
      system: simulatorSystemPrompt(simulation),
      prompt: simulatorPrompt(req.messages, turn),
      tool: USER_TURN_TOOL,
      // As repeatable as the provider allows: greedy sampling, and the case's seed where a seed is taken.
      temperature: 0,
      seed: simulation.seed,
      read(answer) {
        // No structured value: a model that wrote text instead of calling the tool may still have answered in it.
        const parsed =
          answer.value !== undefined
            ? parseUserTurn(answer.value)
            : typeof answer.raw === 'string'
              ? parseUserTurnText(answer.raw)
              : { problem: answer.problem ?? 'no structured answer' };
        return 'turn' in parsed ? { value: parsed.turn } : parsed;
      },
      retryNote: userTurnRetryNote,
    },
    { maxAnswerAttempts: runtime.maxAnswerAttempts, maxTokens: runtime.maxOutputTokens },
    hooks,
  );
  if (outcome.tag === 'answer') return { tag: 'turn', turn: outcome.value, source: 'simulator' };
  if (outcome.tag === 'stopped') return { tag: 'stopped', reason: outcome.reason };
  throw new SimulatorAnswerError(
    `the simulated user's answer for turn ${turn} was unusable after ${runtime.maxAnswerAttempts} attempt${runtime.maxAnswerAttempts === 1 ? '' : 's'}: ${outcome.problem}`,
  );
}
