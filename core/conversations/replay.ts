import type { SimulatedUserTurn } from '../model/conversation.js';
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
 * The turns are the trial's recorded turns (RunStore.turnsOf: the message each turn sent the
 * agent), and, past them, the simulated user's recorded calls (the judge calls store: the last
 * usable answer of each turn), which alone hold the turn that ended the conversation (its
 * closing words are never sent to the agent). A run that replayed another has no call for the
 * turn its recording ended with: that one is read through the run it replayed.
 */

/** Which case of the recorded run: the one named `caseName`, else the one at `caseIndex`. */
export interface RecordedCaseRef {
  caseName: string;
  caseIndex: number;
}

/** The user turns a run recorded for a case's first trial by turn (index `turn - 1`; a hole where none was written); null when there is no such case. */
export type RecordedUserTurns = (projectId: string, runId: string, which: RecordedCaseRef) => Promise<Array<SimulatedUserTurn | undefined> | null>;

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

type ReplayStores = { runs: Pick<RunStore, 'results' | 'forWorker' | 'turnsOf'>; judgeCalls: Pick<JudgeStore, 'callsForTrials'> };

/** `over` where it has a turn, else `under`. */
const overlay = (over: Array<SimulatedUserTurn | undefined>, under: Array<SimulatedUserTurn | undefined>) =>
  Array.from({ length: Math.max(over.length, under.length) }, (_, i) => over[i] ?? under[i]);

/** Most recorded cases a reader remembers the place of (oldest forgotten first). */
const MAX_LOCATED = 10_000;

/**
 * Recorded user turns read from the run store (the run's cases, in the project; the trial's
 * turns) and the judge calls store. A recorded run that itself replayed another is overlaid on
 * that one's turns. Where a case sits in a recorded run (its index, the run's own replay_from)
 * never changes: it is looked up once per case (a full read of the run's results), then only the
 * trial's turns and calls are read for each turn.
 */
export function recordedUserTurns(stores: ReplayStores): RecordedUserTurns {
  const located = new Map<string, Promise<{ caseIndex: number; replayFrom?: string } | null>>();
  const locate = (projectId: string, runId: string, which: RecordedCaseRef) => {
    const key = JSON.stringify([projectId, runId, which.caseName, which.caseIndex]);
    let found = located.get(key);
    if (!found) {
      found = (async () => {
        const [results, run] = await Promise.all([stores.runs.results(projectId, runId), stores.runs.forWorker(runId)]);
        const caseIndex = results ? recordedCaseIndex(results, which) : undefined;
        return caseIndex === undefined || !run ? null : { caseIndex, replayFrom: run.config.replay_from };
      })();
      // A store that failed is asked again next time.
      found.catch(() => located.delete(key));
      located.set(key, found);
      if (located.size > MAX_LOCATED) located.delete(located.keys().next().value!);
    }
    return found;
  };
  const read = async (projectId: string, runId: string, which: RecordedCaseRef, depth: number): Promise<Array<SimulatedUserTurn | undefined> | null> => {
    const place = await locate(projectId, runId, which);
    if (!place) return null;
    const [stored, calls] = await Promise.all([
      stores.runs.turnsOf(runId, place.caseIndex, FIRST_TRIAL),
      stores.judgeCalls.callsForTrials(runId, [{ caseIndex: place.caseIndex, trial: FIRST_TRIAL }]),
    ]);
    const sent: Array<SimulatedUserTurn | undefined> = [];
    for (const t of stored) sent[t.turn - 1] = { message: t.user, stop: null };
    const own = overlay(sent, userTurnsOfCalls(calls));
    if (!place.replayFrom || depth >= MAX_REPLAY_DEPTH) return own;
    return overlay(own, (await read(projectId, place.replayFrom, which, depth + 1)) ?? []);
  };
  return (projectId, runId, which) => read(projectId, runId, which, 1);
}
