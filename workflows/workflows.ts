import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { ScoreDetail } from '../core/model/eval-case.js';
import type { AgentCall, CaseRecord, CaseRun, EvalActivities } from './activity-types.js';
import {
  approvalSignal,
  approvalStateQuery,
  cancelRunSignal,
  cancelSignal,
  caseWorkflowId,
  pauseSignal,
  progressQuery,
  runningTrialsQuery,
  type ApprovalDecision,
  type PendingApproval,
  type CaseOutcome,
  type CaseWorkflowInput,
  type RunOutcome,
  type RunPolicy,
  type RunWorkflowInput,
  TRIAL_NOT_RECORDED,
} from './contract.js';

/**
 * Deterministic workflow code (STYLE 1): only `@temporalio/workflow` and types. All I/O is in
 * activities. SPEC "Activity time-outs and retries" sets each activity's options; `policy`
 * scales the retry intervals (1 in production, small in tests).
 */

const seconds = (s: number, scale: number) => Math.max(1, Math.round(s * 1000 * scale));

function activitiesFor(policy: RunPolicy) {
  const k = policy.retryTimeScale;
  return {
    /*
     * A case's steps run as local activities: in the worker, within the case's workflow task,
     * with no round trip through the engine per step (measured: each activity hop cost tens of
     * ms of latency and engine CPU; docs/benchmarks.md). Their results are recorded in the
     * history like any activity's. A worker that dies mid-step is noticed when the workflow
     * task times out (10 s) and the step runs again: steps are idempotent (deterministic trace
     * ids, results keyed by run, case and trial) and the agent call is at-least-once.
     */
    /** Agent execution: 5 min, 5 retries, 1 s to 30 s. */
    agent: proxyLocalActivities<Pick<EvalActivities, 'executeAgent'>>({
      startToCloseTimeout: '5 minutes',
      retry: { maximumAttempts: 6, initialInterval: seconds(1, k), maximumInterval: seconds(30, k), backoffCoefficient: 2, nonRetryableErrorTypes: ['AgentReplyInvalid', 'AgentGone'] },
    }),
    /**
     * LLM call: 5 min, 5 retries, 1 s to 30 s; one LLM judge of a case (a provider's
     * Retry-After, when sent, sets the next wait). A refused request is not retried.
     */
    llm: proxyLocalActivities<Pick<EvalActivities, 'callJudge'>>({
      startToCloseTimeout: '5 minutes',
      retry: {
        maximumAttempts: 6,
        initialInterval: seconds(1, k),
        maximumInterval: seconds(30, k),
        backoffCoefficient: 2,
        nonRetryableErrorTypes: ['LlmRequestRefused', 'JudgeUnavailable', 'RunGone'],
      },
    }),
    /** Score trace: 10 min, 3 retries, 2 s to 1 min. */
    score: proxyLocalActivities<Pick<EvalActivities, 'scoreCase'>>({
      startToCloseTimeout: '10 minutes',
      retry: { maximumAttempts: 4, initialInterval: seconds(2, k), maximumInterval: seconds(60, k), backoffCoefficient: 2 },
    }),
    /**
     * Emit span: 1 min, 3 retries, 1 s to 10 s. The run writes the traces of recorded cases in
     * batches while its next cases run, so no case waits for the trace store.
     */
    emit: proxyActivities<Pick<EvalActivities, 'emitCaseTraces'>>({
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 4, initialInterval: seconds(1, k), maximumInterval: seconds(10, k), backoffCoefficient: 2 },
    }),
    /** The case's result: retried without limit (a database outage delays a run, it never loses a result). */
    record: proxyLocalActivities<Pick<EvalActivities, 'recordCaseResult'>>({
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: seconds(1, k), maximumInterval: seconds(60, k), backoffCoefficient: 2 },
    }),
    /** The run's own bookkeeping in the metadata store, retried without limit, each attempt bounded. */
    book: proxyActivities<Pick<EvalActivities, 'markRun' | 'finishRun' | 'cancelPendingCases' | 'unlinkCaseTraces'>>({
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: seconds(1, k), maximumInterval: seconds(60, k), backoffCoefficient: 2 },
    }),
  };
}

/** Why an activity failed, in a person's words (the innermost cause's message). */
function failureMessage(err: unknown): string {
  let cur: unknown = err;
  while (cur instanceof ActivityFailure && cur.cause) cur = cur.cause;
  return cur instanceof Error ? cur.message : String(cur);
}

/**
 * Every LLM judge of a trial at once, each its own LLM call activity; a judge whose calls failed
 * through every retry scores 0 with the error as the reason (SPEC: a scorer that fails records 0).
 */
async function judgeTrial(acts: ReturnType<typeof activitiesFor>, run: CaseRun, judges: string[]): Promise<Record<string, ScoreDetail>> {
  const verdicts = await Promise.all(
    judges.map(async (scorer): Promise<[string, ScoreDetail]> => {
      try {
        return [scorer, await acts.llm.callJudge({ ...run, scorer })];
      } catch (err) {
        if (isCancellation(err)) throw err;
        return [scorer, { score: 0, reason: `scorer error: ${failureMessage(err)}`, evidence: [] }];
      }
    }),
  );
  return Object.fromEntries(verdicts);
}

/** One trial of one case: call the agent (waiting for approval if it asks), then score and record it. */
export async function evalCaseWorkflow(input: CaseWorkflowInput): Promise<CaseOutcome> {
  const { runId, caseIndex, trial, policy } = input;
  const acts = activitiesFor(policy);
  const key = { runId, caseIndex, trial };
  // A trial starts only while its run is not paused; a pause that comes later holds its next step.
  let paused = false;
  let cancelled = false;
  let decision: ApprovalDecision | undefined;
  const scope = new CancellationScope();
  setHandler(pauseSignal, (req) => {
    paused = req?.paused ?? !paused;
  });
  setHandler(cancelSignal, () => {
    cancelled = true;
    scope.cancel();
  });
  setHandler(approvalSignal, (d) => {
    decision = d;
  });
  /** Set while the trial waits for a person's approval (GET /api/runs/{id}/approvals reads it). */
  let waiting: PendingApproval | null = null;
  setHandler(approvalStateQuery, () => waiting);

  /** SPEC: a pause lasts 24 hours at most, then the run goes on by itself. */
  const whilePaused = async () => {
    if (!paused) return;
    if (!(await condition(() => !paused, policy.pauseMaxMs))) paused = false;
  };

  const startedAt = Date.now();
  const calls: AgentCall[] = [];
  let error: string | undefined;
  let approval: CaseRun['approval'];
  let outcome: CaseOutcome | undefined;
  /** The case's LLM judges, as the last agent call named them. */
  let judges: string[] = [];
  let unrecorded: CaseRecord | undefined;
  try {
    await scope.run(async () => {
      const call = async (n: number, grant?: ApprovalDecision) => {
        // The first call starts at once (the run was not paused when it started this trial).
        if (n > 0 && paused) await whilePaused();
        const callStart = Date.now();
        try {
          const done = await acts.agent.executeAgent({ ...key, startedAt, calls, approval, call: n, grant });
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
      if (asked) {
        // SPEC: a sensitive tool call waits for approvalSignal at most 7 days.
        waiting = { case_index: caseIndex, trial, tool: asked.tool, reason: asked.reason ?? null, since: Date.now() };
        const answered = await condition(() => decision !== undefined, policy.approvalMaxMs).finally(() => (waiting = null));
        approval = { tool: asked.tool, approved: answered && decision!.approved, comment: decision?.comment, by: decision?.by };
        if (!answered) throw ApplicationFailure.nonRetryable(`approval for tool '${asked.tool}' was not given within ${policy.approvalMaxMs} ms`, 'ApprovalTimeout');
        if (!decision!.approved) throw ApplicationFailure.nonRetryable(`approval for tool '${asked.tool}' was denied${decision!.comment ? `: ${decision!.comment}` : ''}`, 'ApprovalDenied');
        await call(1, decision);
      }
      // The agent call scored and recorded the trial when its scorers allowed (all rules).
      if (outcome) return;
      if (paused) await whilePaused();
      const judged = judges.length ? await judgeTrial(acts, { ...key, startedAt, calls, approval }, judges) : undefined;
      try {
        outcome = await acts.score.scoreCase({ ...key, startedAt, calls, approval, ...(judged ? { judged } : {}) });
      } catch (err) {
        unrecorded = notRecorded(err);
        if (!unrecorded) throw err;
      }
    });
  } catch (err) {
    if (!(cancelled || isCancellation(err))) error = failureMessage(err);
  }
  if (outcome) return outcome;
  const status: CaseOutcome = unrecorded?.status ?? (cancelled ? 'cancelled' : 'failed');
  const record: CaseRecord = unrecorded ?? {
    ...key,
    startedAt,
    endedAt: Date.now(),
    calls,
    approval,
    details: {},
    avgScore: 0,
    passed: false,
    status,
    error: status === 'cancelled' ? 'cancelled while running' : error,
  };
  // Recorded even when cancelled (the first record of a trial wins); the run writes its trace afterwards.
  await CancellationScope.nonCancellable(() => acts.record.recordCaseResult(record));
  return status;
}

/** The scored trial scoreCase could not store, if that is why it failed (the failure or one of its causes). */
function notRecorded(err: unknown): CaseRecord | undefined {
  for (let cur: unknown = err; cur instanceof Error; cur = cur.cause) {
    if (cur instanceof ApplicationFailure && cur.type === TRIAL_NOT_RECORDED) return cur.details?.[0] as CaseRecord;
  }
  return undefined;
}

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
  await condition(() => running.size === 0);
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
