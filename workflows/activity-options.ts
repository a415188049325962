import { ActivityFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { EvalActivities } from './activity-types.js';
import type { RunPolicy } from './contract.js';

/**
 * Workflow code (deterministic, bundled with workflows.ts): the activities as the workflows call
 * them. SPEC "Activity time-outs and retries" sets each activity's options; `policy` scales the
 * retry intervals (1 in production, small in tests).
 */

const seconds = (s: number, scale: number) => Math.max(1, Math.round(s * 1000 * scale));

export function activitiesFor(policy: RunPolicy) {
  const k = policy.retryTimeScale;
  /** Retries doubling from `from` to `to` seconds (scaled), `retries` times (undefined: without limit); `refused` errors never. */
  const backoff = (retries: number | undefined, from: number, to: number, refused?: string[]) => ({
    ...(retries === undefined ? {} : { maximumAttempts: retries + 1 }),
    initialInterval: seconds(from, k),
    maximumInterval: seconds(to, k),
    backoffCoefficient: 2,
    ...(refused ? { nonRetryableErrorTypes: refused } : {}),
  });
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
    agent: proxyLocalActivities<Pick<EvalActivities, 'callCaseAgent' | 'executeAgent'>>({
      startToCloseTimeout: '5 minutes',
      retry: backoff(5, 1, 30, ['AgentReplyInvalid', 'AgentGone']),
    }),
    /**
     * LLM call: 5 min, 5 retries, 1 s to 30 s; one LLM judge of a case (a provider's
     * Retry-After, when sent, sets the next wait). A refused request is not retried.
     */
    llm: proxyLocalActivities<Pick<EvalActivities, 'callJudge'>>({
      startToCloseTimeout: '5 minutes',
      retry: backoff(5, 1, 30, ['LlmRequestRefused', 'JudgeUnavailable', 'RunGone']),
    }),
    /** Score trace: 10 min, 3 retries, 2 s to 1 min. */
    score: proxyLocalActivities<Pick<EvalActivities, 'scoreTrial' | 'scoreCase'>>({
      startToCloseTimeout: '10 minutes',
      retry: backoff(3, 2, 60),
    }),
    /**
     * Emit span: 1 min, 3 retries, 1 s to 10 s. The run writes the traces of recorded cases in
     * batches while its next cases run, so no case waits for the trace store.
     */
    emit: proxyActivities<Pick<EvalActivities, 'emitCaseTraces'>>({
      startToCloseTimeout: '1 minute',
      retry: backoff(3, 1, 10),
    }),
    /** The case's result: retried without limit (a database outage delays a run, it never loses a result). */
    record: proxyLocalActivities<Pick<EvalActivities, 'recordCaseResult'>>({
      startToCloseTimeout: '1 minute',
      retry: backoff(undefined, 1, 60),
    }),
    /*
     * A conversation's steps (workflows/conversation-trial.ts) are activities of the engine's, not
     * local ones: each turn's step ends a workflow task, so a pause, cancel or approval signal is
     * taken between any two steps (a chain of local activities holds the task open for seconds),
     * and a worker that dies resumes at the step it was on. Same options as the single call's,
     * plus a heartbeat (conversation-steps.ts beats every 2 s): a step whose worker died is tried
     * again after 10 s, not after its whole time-out.
     */
    /** Agent execution of a turn: as `agent`. */
    turnAgent: proxyActivities<Pick<EvalActivities, 'callTurnAgent'>>({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '10 seconds',
      retry: backoff(5, 1, 30, ['AgentReplyInvalid', 'AgentGone', 'CaseChanged']),
    }),
    /** The user's turn (the simulated user's is an LLM call): as `llm`. */
    user: proxyActivities<Pick<EvalActivities, 'conversationUserTurn'>>({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '10 seconds',
      retry: backoff(5, 1, 30, ['LlmRequestRefused', 'RunGone', 'SimulatorUnavailable', 'SimulatedUserUnusable', 'CaseChanged']),
    }),
    /** A turn scored and recorded: as `score`. */
    turnScore: proxyActivities<Pick<EvalActivities, 'finishTurn'>>({
      startToCloseTimeout: '10 minutes',
      heartbeatTimeout: '10 seconds',
      retry: backoff(3, 2, 60),
    }),
    /** The conversation's end (its conversation-level scorers, then the record): retried without limit, as `record`. */
    conversationEnd: proxyActivities<Pick<EvalActivities, 'finishConversation'>>({
      startToCloseTimeout: '10 minutes',
      heartbeatTimeout: '10 seconds',
      retry: backoff(undefined, 1, 60),
    }),
    /** The run's own bookkeeping in the metadata store, retried without limit, each attempt bounded. */
    book: proxyActivities<Pick<EvalActivities, 'markRun' | 'finishRun' | 'cancelPendingCases' | 'unlinkCaseTraces'>>({
      startToCloseTimeout: '1 minute',
      retry: backoff(undefined, 1, 60),
    }),
  };
}

export type RunActivities = ReturnType<typeof activitiesFor>;

/** Why an activity failed, in a person's words (the innermost cause's message). */
export function failureMessage(err: unknown): string {
  let cur: unknown = err;
  while (cur instanceof ActivityFailure && cur.cause) cur = cur.cause;
  return cur instanceof Error ? cur.message : String(cur);
}
