import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * What the API (client) and the worker agree on (STYLE 1): workflow names, signals, queries and
 * the shapes they carry. The SPEC names the signals and the query.
 */

export const RUN_WORKFLOW = 'evalRunWorkflow';
export const CASE_WORKFLOW = 'evalCaseWorkflow';

/** A run's workflow id: the run id, so a run is started once however often the request is retried. */
export const runWorkflowId = (runId: string) => `eval-run-${runId}`;
/** One case trial's child workflow id. */
export const caseWorkflowId = (runId: string, caseIndex: number, trial: number) => `eval-run-${runId}-case-${caseIndex}-trial-${trial}`;

export interface Progress {
  completed: number;
  total: number;
}

/** Cancels the whole run: no new case starts, running ones stop, pending ones become `cancelled`. */
export const cancelRunSignal = defineSignal('cancelRunSignal');
/** `{paused: true|false}` pauses or resumes; without an argument it toggles (SPEC: "pauses or resumes"). */
export const pauseSignal = defineSignal<[PauseRequest?]>('pauseSignal');
/** A person's decision on a sensitive tool call a case's agent asked approval for. */
export const approvalSignal = defineSignal<[ApprovalDecision]>('approvalSignal');
/** Cancels one case (all its trials) of a run. */
export const cancelSignal = defineSignal<[CaseRef]>('cancelSignal');
export const progressQuery = defineQuery<Progress>('progressQuery');
/** A run's case trials started and not finished (by the run workflow); read with approvalStateQuery below. */
export const runningTrialsQuery = defineQuery<RunningTrial[]>('runningTrialsQuery');
/** A case trial's wait for a person's approval (by the case workflow); null when it is not waiting. */
export const approvalStateQuery = defineQuery<PendingApproval | null>('approvalStateQuery');

export interface RunningTrial {
  case_index: number;
  trial: number;
}

/** A case trial whose agent asked approval for a tool and waits for approvalSignal. */
export interface PendingApproval extends RunningTrial {
  tool: string;
  /** The agent's reason, when it gave one (not stored with the result). */
  reason: string | null;
  /** Epoch ms (workflow time) when the wait began. */
  since: number;
}

export interface PauseRequest {
  paused?: boolean;
}

export interface CaseRef {
  case_index: number;
}

export interface ApprovalDecision {
  case_index: number;
  /** Which trial asked; 0 when the run has one repetition. */
  trial?: number;
  approved: boolean;
  comment?: string;
  /** Who decided (the API's principal). */
  by?: string;
}

/** Time bounds and retry scaling, from the server's config, fixed for a run when it starts. */
export interface RunPolicy {
  pauseMaxMs: number;
  approvalMaxMs: number;
  /** Multiplies every retry interval (1 in production; small in tests). */
  retryTimeScale: number;
  /** A run continues as new once its history has this many events (Temporal's hard limit is 51,200). */
  historyMaxEvents: number;
}

export interface RunWorkflowInput {
  runId: string;
  projectId: string;
  caseCount: number;
  repetitions: number;
  /** Children running at once: 1 when the run is sequential. */
  concurrency: number;
  policy: RunPolicy;
  /** Carried over continue-as-new: where the previous history stopped. */
  carried?: { next: number; completed: number; paused: boolean; pausedSince?: number; cancelledCases: number[] };
}

export interface CaseWorkflowInput {
  runId: string;
  projectId: string;
  caseIndex: number;
  trial: number;
  policy: RunPolicy;
}

export type CaseOutcome = 'passed' | 'failed' | 'cancelled';

export type RunOutcome = 'completed' | 'cancelled';

/**
 * scoreCase scored the trial but could not record it: the workflow records it (retrying without
 * limit) from the record in the failure's details, so a metadata store outage never costs a result.
 */
export const TRIAL_NOT_RECORDED = 'TrialNotRecorded';
