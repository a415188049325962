import { z } from 'zod';
import type { SimulatedUserTurn } from '../model/conversation.js';

/**
 * Deterministic replay (docs/evals.md, "Simulated users"): a run whose config has
 * `replay_from: <run id>` gives each simulated case the user turns that run recorded for the case
 * of the same name (else the same index), trial 1, instead of asking the LLM; a new agent version
 * is so compared on the same user turns. A recorded turn that ended the conversation (`goal_met`,
 * `gave_up`) ends it again at the same turn; once the recording runs out without one (the new
 * agent needed more turns), the simulator takes over from the conversation as it stands.
 * Browser-safe.
 */

/** `config.replay_from`: the id of the run whose recorded user turns simulated cases reuse. */
export const ReplayFromSchema = z.string().min(1).max(128);

/** A run config's `replay_from`, when it has a valid one. */
export function replayFromOf(config: unknown): string | undefined {
  const value = config !== null && typeof config === 'object' ? (config as { replay_from?: unknown }).replay_from : undefined;
  const parsed = ReplayFromSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Which case of the recorded run: the one named `caseName`, else the one at `caseIndex`. */
export interface RecordedCaseRef {
  caseName: string;
  caseIndex: number;
}

/**
 * The user turns a run recorded for a case's first trial, in order; null when that run has no
 * such case or the case was not a conversation. Read from the run store (the trial's stored turns).
 */
export type RecordedUserTurns = (projectId: string, runId: string, which: RecordedCaseRef) => Promise<SimulatedUserTurn[] | null>;

/** The index of the recorded case to replay: the first named `caseName`, else `caseIndex` when that case exists; undefined otherwise. */
export function recordedCaseIndex(cases: ReadonlyArray<{ case_index: number; name: string }>, which: RecordedCaseRef): number | undefined {
  return cases.find((c) => c.name === which.caseName)?.case_index ?? cases.find((c) => c.case_index === which.caseIndex)?.case_index;
}
