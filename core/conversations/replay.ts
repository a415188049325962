import type { SimulatedUserTurn } from '../model/conversation.js';
import type { RunConfig } from '../model/eval-run.js';
import type { JudgeStore, StoredJudgeCall } from '../store/judges.js';
import type { RunStore } from '../store/runs.js';
import { parseUserTurn } from './simulator-answer.js';
import { simulatorTurnOf } from './simulator-span.js';

/**
 * Deterministic replay (docs/evals.md, "Simulated users"): a run whose config has
 * `replay_from: <run id>` gives each simulated case the user turns that run recorded for the case
 * of the same name (else the same index), first trial, instead of asking the LLM; a new agent
 * version is so compared on the same user turns. A recorded turn that ended the conversation
 * (`goal_met`, `gave_up`) ends it again at the same turn; once the recording runs out without one
 * (the new agent needed more turns), the simulator takes over from the conversation as it stands.
 *
 * The turns are read from the simulated user's recorded calls (the judge calls store): the last
 * usable answer of each turn. A turn the simulator did not write (a case's `first_message`, a
 * turn itself replayed) has none: `first_message` comes from the case again, and a run that
 * replayed another is replayed from that one's recording.
 */

/** Which case of the recorded run: the one named `caseName`, else the one at `caseIndex`. */
export interface RecordedCaseRef {
  caseName: string;
  caseIndex: number;
}

/** The user turns a run recorded for a case's first trial by turn (index `turn - 1`; a hole where none was written); null when there is no such case. */
export type RecordedUserTurns = (projectId: string, runId: string, which: RecordedCaseRef) => Promise<Array<SimulatedUserTurn | undefined> | null>;

/** A run config's `replay_from`. */
export const replayFromOf = (config: Pick<RunConfig, 'replay_from'>): string | undefined => config.replay_from;

/** The index of the recorded case to replay: the first named `caseName`, else `caseIndex` when that case exists; undefined otherwise. */
export function recordedCaseIndex(cases: ReadonlyArray<{ case_index: number; case_name: string }>, which: RecordedCaseRef): number | undefined {
  return cases.find((c) => c.case_name === which.caseName)?.case_index ?? cases.find((c) => c.case_index === which.caseIndex)?.case_index;
}

/** The user turns in a trial's recorded calls: per turn, the last answer that was usable (a retried activity may have made two). */
export function userTurnsOfCalls(calls: readonly StoredJudgeCall[]): Array<SimulatedUserTurn | undefined> {
  const turns: Array<SimulatedUserTurn | undefined> = [];
  for (const call of calls) {
    const turn = simulatorTurnOf(call.scorer);
    if (turn === undefined || call.status !== 'ok') continue;
    const parsed = parseUserTurn(call.output);
    if ('turn' in parsed) turns[turn - 1] = parsed.turn;
  }
  return Array.from(turns);
}

/** The first trial's number (trials are numbered from 0). */
const FIRST_TRIAL = 0;

/** Most runs a chain of replays is followed through (a run that replayed one that replayed another...). */
const MAX_REPLAY_DEPTH = 8;

type ReplayStores = { runs: Pick<RunStore, 'results' | 'forWorker'>; judgeCalls: Pick<JudgeStore, 'callsForTrials'> };

/**
 * Recorded user turns read from the run store (the run's cases, in the project) and the judge
 * calls store. A recorded run that itself replayed another has that one's turns, overlaid with
 * the turns its own simulator wrote once the recording ran out.
 */
export function recordedUserTurns(stores: ReplayStores): RecordedUserTurns {
  const read = async (projectId: string, runId: string, which: RecordedCaseRef, depth: number): Promise<Array<SimulatedUserTurn | undefined> | null> => {
    const [results, run] = await Promise.all([stores.runs.results(projectId, runId), stores.runs.forWorker(runId)]);
    const caseIndex = results && recordedCaseIndex(results, which);
    if (caseIndex === undefined || caseIndex === null || !run) return null;
    const own = userTurnsOfCalls(await stores.judgeCalls.callsForTrials(runId, [{ caseIndex, trial: FIRST_TRIAL }]));
    const from = replayFromOf(run.config);
    if (!from || depth >= MAX_REPLAY_DEPTH) return own;
    const base = (await read(projectId, from, which, depth + 1)) ?? [];
    return Array.from({ length: Math.max(base.length, own.length) }, (_, i) => own[i] ?? base[i]);
  };
  return (projectId, runId, which) => read(projectId, runId, which, 1);
}
