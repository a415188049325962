import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { CaseRecord } from './activity-types.js';
import { TRIAL_NOT_RECORDED, type ApprovalDecision, type CaseOutcome } from './contract.js';
import { failureMessage } from './activity-options.js';
import { awaitApproval, judgeTrial, recordUnfinished, type Trial } from './case-trial.js';

/**
 * Workflow code (deterministic): a trial as it ran before the workflow made its decisions
 * (case-trial.ts). Kept, command for command, so trials whose history has no marker of
 * TRIAL_DECISIONS_PATCH (started by an older worker, in flight during an upgrade) replay and
 * finish here: executeAgent scores and records a rules-only case itself, scoreCase judges a judge
 * with no verdict in place, and a trial scoreCase could not store comes back as a failure carrying
 * its record. Remove it (and executeAgent, scoreCase) once no such trial can be running
 * (deprecatePatch first).
 */
export async function legacyTrial(t: Trial): Promise<CaseOutcome> {
  const { acts, key, startedAt, calls } = t;
  let error: string | undefined;
  let outcome: CaseOutcome | undefined;
  /** The case's LLM judges, as the last agent call named them. */
  let judges: string[] = [];
  let unrecorded: CaseRecord | undefined;
  try {
    await t.scope.run(async () => {
      const call = async (n: number, grant?: ApprovalDecision) => {
        // The first call starts at once (the run was not paused when it started this trial).
        if (n > 0 && t.state.paused) await t.whilePaused();
        const callStart = Date.now();
        try {
          const done = await acts.agent.executeAgent({ ...key, startedAt, calls, approval: t.approval, call: n, grant });
          calls.push(done.call);
          outcome = done.outcome;
          judges = done.judges ?? [];
        } catch (err) {
          if (isCancellation(err)) throw err;
          calls.push({ startedAt: callStart, endedAt: Date.now(), error: failureMessage(err) });
          throw err;
        }
      };
      await call(0);
      const asked = calls[0].reply?.approval;
      if (asked) await call(1, await awaitApproval(t, asked));
      // The agent call scored and recorded the trial when its scorers allowed (all rules).
      if (outcome) return;
      if (t.state.paused) await t.whilePaused();
      const judged = judges.length ? await judgeTrial(acts, { ...key, startedAt, calls, approval: t.approval }, judges) : undefined;
      try {
        outcome = await acts.score.scoreCase({ ...key, startedAt, calls, approval: t.approval, ...(judged ? { judged } : {}) });
      } catch (err) {
        unrecorded = notRecorded(err);
        if (!unrecorded) throw err;
      }
    });
  } catch (err) {
    if (!(t.state.cancelled || isCancellation(err))) error = failureMessage(err);
  }
  if (outcome) return outcome;
  return recordUnfinished(t, unrecorded, error);
}

/** The scored trial scoreCase could not store, if that is why it failed (the failure or one of its causes). */
function notRecorded(err: unknown): CaseRecord | undefined {
  for (let cur: unknown = err; cur instanceof Error; cur = cur.cause) {
    if (cur instanceof ApplicationFailure && cur.type === TRIAL_NOT_RECORDED) return cur.details?.[0] as CaseRecord;
  }
  return undefined;
}
