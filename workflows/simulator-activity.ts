import { ApplicationFailure } from '@temporalio/common';
import { budgetGate } from './judge-activity.js';
import type { JudgeRuntime } from '../core/judges/judge-scorer.js';
import type { PriceJudgeCall } from '../core/judges/run-judge.js';
import { SimulatorAnswerError, SimulatorUnavailableError, simulateUserTurn, type UserTurnOutcome } from '../core/conversations/simulator.js';
import type { RecordedUserTurns } from '../core/conversations/replay.js';
import type { Simulation } from '../core/model/conversation.js';
import type { LlmMessage } from '../core/model/messages.js';
import { ProviderError } from '../core/providers/types.js';
import type { JudgeStore } from '../core/store/judges.js';
import type { RunForWorker } from '../core/store/runs.js';
import type { TrialRef } from './activity-types.js';
import { caseTraceId } from './case-trace.js';

/**
 * The simulated user as an activity's work (docs/evals.md, "Simulated users"): one user turn of a
 * simulated case trial, through the judges' providers, within the run's judge budget, every call
 * recorded with the judges' calls (so its spend counts, and the case trace shows it as a
 * `simulated_user` generation span: judge-trace.ts). With `replay_from` in the run's config, the
 * turns that run recorded for the same case (trial 1) are used as they are, and the LLM is called
 * only once they run out.
 *
 * The engine calls it as an LLM call activity (SPEC: 5 min, 5 retries, 1 s to 30 s), through
 * simulateUserActivity below; the workflow decides from the outcome (core/conversations/stop.ts).
 */

export interface SimulatorActivityDeps {
  /** The judges' providers and limits (JUDGE_* settings): the simulated user is played through them. */
  judges: JudgeRuntime;
  /** Where every call is recorded (spans, budget); without it the simulated user runs unrecorded and unbounded. */
  judgeCalls?: JudgeStore;
  priceJudgeCall?: PriceJudgeCall;
  /** The user turns an earlier run recorded (replay); without it `replay_from` is refused. */
  recordedTurns?: RecordedUserTurns;
}

/** A simulated case trial's user turn `turn` (1-based), the conversation so far in `messages`. */
export interface SimulateUserInput extends TrialRef {
  turn: number;
  messages: LlmMessage[];
}

/**
 * One user turn of a trial. `run` and the case (`caseName`, `simulation`) as the activity read
 * them. Fails with an ApplicationFailure the engine understands: `LlmCallFailed` (retried, after
 * the provider's Retry-After when it sent one), `LlmRequestRefused`, `SimulatorUnavailable` (no
 * provider here) and `SimulatedUserUnusable` (unusable answers, each asked again already): those
 * three are not retried, and the trial fails with the message.
 */
export async function simulateUserActivity(
  deps: SimulatorActivityDeps,
  run: RunForWorker,
  caseName: string,
  simulation: Simulation,
  input: SimulateUserInput,
  signal?: AbortSignal,
): Promise<UserTurnOutcome> {
  const key = { runId: input.runId, caseIndex: input.caseIndex, trial: input.trial };
  const store = deps.judgeCalls;
  try {
    const replayFrom = run.config.replay_from;
    let recorded;
    if (replayFrom) {
      if (!deps.recordedTurns) throw new SimulatorUnavailableError(`replay_from ${replayFrom}: this worker cannot read recorded conversations`);
      recorded = (await deps.recordedTurns(run.project_id, replayFrom, { caseName, caseIndex: input.caseIndex })) ?? undefined;
    }
    return await simulateUserTurn(
      {
        runtime: deps.judges,
        hooks: {
          signal,
          beforeCall: budgetGate(deps, run, 'the simulated user'),
          onGeneration: store
            ? (generation) =>
                store.record({
                  projectId: run.project_id,
                  run: key,
                  traceId: caseTraceId(key),
                  generation,
                  cost: deps.priceJudgeCall?.(generation) ?? null,
                })
            : undefined,
        },
      },
      { simulation, messages: input.messages, turn: input.turn, recorded },
    );
  } catch (err) {
    throw simulatorFailure(err);
  }
}

/** A failure of the simulated user as the engine should treat it (see simulateUserActivity); anything else as it is. */
export function simulatorFailure(err: unknown): unknown {
  if (err instanceof ProviderError) {
    return ApplicationFailure.create({
      message: `simulated user: ${err.message}`,
      type: err.retryable ? 'LlmCallFailed' : 'LlmRequestRefused',
      nonRetryable: !err.retryable,
      nextRetryDelay: err.retryAfterMs,
    });
  }
  if (err instanceof SimulatorUnavailableError) return ApplicationFailure.nonRetryable(err.message, 'SimulatorUnavailable');
  if (err instanceof SimulatorAnswerError) return ApplicationFailure.nonRetryable(err.message, 'SimulatedUserUnusable');
  return err;
}
