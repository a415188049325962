import {
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import {
  approvalSignal,
  approvalStateQuery,
  cancelRunSignal,
  cancelSignal,
  caseWorkflowId,
  pauseSignal,
  progressQuery,
  runningTrialsQuery,
  type CaseOutcome,
  type CaseWorkflowInput,
  type RunOutcome,
  type RunWorkflowInput,
} from './contract.js';
import { activitiesFor } from './activity-options.js';
import { decideTrial, TRIAL_DECISIONS_PATCH, type Trial, type TrialState } from './case-trial.js';
import { legacyTrial } from './case-trial-v1.js';

/**
 * Deterministic workflow code (STYLE 1): only `@temporalio/workflow` and types, here and in the
 * modules it imports (activity-options.ts, case-trial.ts, case-trial-v1.ts). All I/O is in
 * activities.
 */

/**
 * One trial of one case: call the agent (waiting for approval if it asks), then score and record
 * it; case-trial.ts makes each decision, case-trial-v1.ts for trials started before it did.
 */
export async function evalCaseWorkflow(input: CaseWorkflowInput): Promise<CaseOutcome> {
  const { runId, caseIndex, trial, policy } = input;
  // A trial starts only while its run is not paused; a pause that comes later holds its next step.
  const state: TrialState = { paused: false, cancelled: false, waiting: null };
  const scope = new CancellationScope();
  setHandler(pauseSignal, (req) => {
    state.paused = req?.paused ?? !state.paused;
  });
  setHandler(cancelSignal, () => {
    state.cancelled = true;
    scope.cancel();
  });
  setHandler(approvalSignal, (d) => {
    state.decision = d;
  });
  setHandler(approvalStateQuery, () => state.waiting);

  const t: Trial = {
    acts: activitiesFor(policy),
    key: { runId, caseIndex, trial },
    policy,
    scope,
    state,
    startedAt: Date.now(),
    calls: [],
    /** SPEC: a pause lasts 24 hours at most, then the run goes on by itself. */
    async whilePaused() {
      if (!state.paused) return;
      if (!(await condition(() => !state.paused, policy.pauseMaxMs))) state.paused = false;
    },
  };
  return patched(TRIAL_DECISIONS_PATCH) ? decideTrial(t) : legacyTrial(t);
}

/** The patch id (Temporal `patched()`) of a run storing a pause or resume while its last cases run. Never change it. */
const DRAIN_STATUS_PATCH = 'run-status-while-draining';

/** Most case traces written by one emit activity. */
const TRACE_BATCH = 100;
/**
 * How long a finished trial's trace may wait for others to share its batch. Sequential runs finish
 * one trial at a time: writing each alone cost an activity and a trace store insert per case.
 */
const TRACE_BATCH_WAIT_MS = 1000;

/**
 * A whole run: one child workflow per case trial, `concurrency` at a time, with pause, resume,
 * cancel and per-case signals; progress by query.
 */
export async function evalRunWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  const { runId, projectId, caseCount, repetitions, concurrency, policy } = input;
  const acts = activitiesFor(policy);
  const total = caseCount * repetitions;
  let next = input.carried?.next ?? 0;
  let completed = input.carried?.completed ?? 0;
  let paused = input.carried?.paused ?? false;
  let pausedSince = input.carried?.pausedSince ?? (paused ? Date.now() : undefined);
  let cancelled = false;
  const cancelledCases = new Set<number>(input.carried?.cancelledCases ?? []);
  /** Case trials started and not finished, by child workflow id. */
  const running = new Map<string, { caseIndex: number; trial: number }>();
  let pauseChanged = false;
  /** Recorded trials whose traces are not written yet, and whether a batch is being written. */
  const traceBacklog: Array<{ caseIndex: number; trial: number }> = [];
  let writingTraces = false;
  /** A timer is armed to write a partial batch; the run is draining its backlog. */
  let flushArmed = false;
  let draining = false;
  /**
   * Writes the backlog one batch at a time, beside the running cases: a full batch at once, a
   * partial one when its oldest trial has waited TRACE_BATCH_WAIT_MS or the run drains.
   */
  const writeTraces = (flushPartial = false) => {
    if (writingTraces || traceBacklog.length === 0) return;
    if (traceBacklog.length < TRACE_BATCH && !flushPartial && !draining) {
      if (flushArmed) return;
      flushArmed = true;
      void sleep(TRACE_BATCH_WAIT_MS).then(() => {
        flushArmed = false;
        writeTraces(true);
      });
      return;
    }
    writingTraces = true;
    const trials = traceBacklog.splice(0, TRACE_BATCH);
    void acts.emit
      .emitCaseTraces({ runId, trials })
      // Writing traces must not fail the run: a trace store that stays down loses traces, not results.
      .catch(() => acts.book.unlinkCaseTraces({ runId, trials }))
      .finally(() => {
        writingTraces = false;
        writeTraces();
      });
  };
  const tracesWritten = async () => {
    draining = true;
    writeTraces();
    await condition(() => !writingTraces && traceBacklog.length === 0);
    draining = false;
  };

  const signalChild = (childId: string, fn: (h: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>) => {
    // A child that just finished no longer takes signals; that is fine.
    fn(getExternalWorkflowHandle(childId)).catch(() => undefined);
  };

  setHandler(progressQuery, () => ({ completed, total }));
  setHandler(runningTrialsQuery, () => [...running.values()].map((c) => ({ case_index: c.caseIndex, trial: c.trial })));
  /** Pauses or resumes the run and every case running in it. */
  const setPaused = (want: boolean) => {
    if (want === paused || cancelled) return;
    paused = want;
    pausedSince = paused ? Date.now() : undefined;
    pauseChanged = true;
    for (const id of running.keys()) signalChild(id, (h) => h.signal(pauseSignal, { paused: want }));
  };
  setHandler(pauseSignal, (req) => setPaused(req?.paused ?? !paused));
  setHandler(cancelRunSignal, () => {
    if (cancelled) return;
    cancelled = true;
    for (const id of running.keys()) signalChild(id, (h) => h.signal(cancelSignal, { case_index: -1 }));
  });
  setHandler(cancelSignal, ({ case_index }) => {
    cancelledCases.add(case_index);
    for (const [id, child] of running) if (child.caseIndex === case_index) signalChild(id, (h) => h.signal(cancelSignal, { case_index }));
  });
  setHandler(approvalSignal, (d) => {
    const id = caseWorkflowId(runId, d.case_index, d.trial ?? 0);
    if (running.has(id)) signalChild(id, (h) => h.signal(approvalSignal, d));
  });

  if (!input.carried) await acts.book.markRun(runId, 'running');

  const syncStatus = async () => {
    if (!pauseChanged) return;
    pauseChanged = false;
    await acts.book.markRun(runId, paused ? 'paused' : 'running');
  };

  while (next < total && !cancelled) {
    await syncStatus();
    if (paused) {
      const left = Math.max(1, policy.pauseMaxMs - (Date.now() - (pausedSince ?? Date.now())));
      const resumed = await condition(() => !paused || cancelled || pauseChanged, left);
      // SPEC: after 24 hours without a resume the run resumes by itself (its running cases too).
      if (!resumed && paused) setPaused(false);
      continue;
    }
    await condition(() => running.size < concurrency || paused || cancelled || pauseChanged);
    if (paused || cancelled || pauseChanged) continue;

    const caseIndex = Math.floor(next / repetitions);
    const trial = next % repetitions;
    next++;
    if (cancelledCases.has(caseIndex)) {
      await acts.book.cancelPendingCases(runId, caseIndex);
      completed++;
      continue;
    }
    const childId = caseWorkflowId(runId, caseIndex, trial);
    // Not awaited: every free slot is filled in the same workflow task (one engine round trip
    // for all of them, where awaiting each start cost one per case).
    running.set(childId, { caseIndex, trial });
    void startChild(evalCaseWorkflow, { workflowId: childId, args: [{ runId, projectId, caseIndex, trial, policy }] })
      .then((child) => child.result())
      .catch(() => undefined)
      .finally(() => {
        running.delete(childId);
        completed++;
        traceBacklog.push({ caseIndex, trial });
        writeTraces();
      });

    if (workflowInfo().historyLength > policy.historyMaxEvents || workflowInfo().continueAsNewSuggested) {
      await condition(() => running.size === 0);
      await tracesWritten();
      await condition(allHandlersFinished);
      // A pause or resume that came in meanwhile is stored before this history ends.
      await syncStatus();
      if (!cancelled && next < total) {
        await continueAsNew<typeof evalRunWorkflow>({
          ...input,
          carried: { next, completed, paused, pausedSince, cancelledCases: [...cancelledCases] },
        });
      }
    }
  }
  // The last cases may run long (a conversation of many turns): a pause or resume meanwhile is
  // stored as it comes. Runs started before this (no marker of DRAIN_STATUS_PATCH) replay as they ran.
  if (patched(DRAIN_STATUS_PATCH)) {
    while (running.size > 0) {
      await condition(() => running.size === 0 || pauseChanged);
      await syncStatus();
    }
  } else await condition(() => running.size === 0);
  await tracesWritten();
  await syncStatus();
  if (cancelled) {
    await acts.book.cancelPendingCases(runId);
    await acts.book.finishRun(runId, 'cancelled');
    return 'cancelled';
  }
  await acts.book.finishRun(runId, 'completed');
  return 'completed';
}
