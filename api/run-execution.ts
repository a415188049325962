import type { z } from 'zod';
import type { CompleteLocalRunSchema, ControlAction, CreateLocalRun, CreateRun, LocalResult, NewRun, RunExecution, RunView } from '../core/model/eval-run.js';
import type { ApprovalDecision, PendingApproval } from '../workflows/contract.js';

/**
 * Who executes a run, as a strategy of the one run service (api/run-service.ts): `managed`
 * (api/managed-execution.ts: the workflow engine drives it, the worker calls the agent) or
 * `local` (api/local-execution.ts: a client runs the agent and the scorers and uploads results).
 * The service finds the run, answers 404 and refuses what a final run cannot do; everything that
 * depends on who executes the run is here, never a branch on `execution` in the service.
 */

/** `POST /api/runs/{id}/complete`: how a run its client executes ended. */
export type CompleteLocalRun = z.output<typeof CompleteLocalRunSchema>;

/** `POST /api/runs`'s body, either execution. */
export type DatasetRunBody = CreateRun | CreateLocalRun;

/** What a new run from an inline dataset is linked to, once its body has been admitted. */
export interface AdmittedRun {
  agent: NewRun['agent'];
  suite?: NewRun['suite'];
}

export interface ControlAnswer {
  run_id: string;
  action: ControlAction;
  status: string;
  accepted: true;
}

export interface UploadAnswer {
  run_id: string;
  accepted: number;
  progress: RunView['progress'];
}

export interface RunExecutionStrategy {
  readonly execution: RunExecution;
  /** Checks a `POST /api/runs` body this strategy would execute: its scorers and agent (and suite). */
  admit(projectId: string, body: DatasetRunBody): Promise<AdmittedRun>;
  /** Stores a new run and sets going what drives it; the run's id. */
  start(run: NewRun): Promise<string>;
  /** The progress `/status` shows for a run that is not final. */
  progress(run: RunView): Promise<RunView['progress']>;
  /** pause / resume / cancel of a run that is not final. */
  control(run: RunView, action: ControlAction): Promise<ControlAnswer>;
  /** Trials waiting for a person's approval, of a run that is not final. */
  approvals(run: RunView): Promise<PendingApproval[]>;
  /** Cancels one case of a run that is not final. */
  cancelCase(run: RunView, caseIndex: number): Promise<void>;
  /** A person's decision on a trial of a run that is not final. */
  approve(run: RunView, decision: ApprovalDecision): Promise<void>;
  /** `POST /api/runs/{id}/results`: a client's results. */
  addResults(projectId: string, run: RunView, results: LocalResult[]): Promise<UploadAnswer>;
  /** `POST /api/runs/{id}/complete`: the client says how the run ended. */
  complete(projectId: string, run: RunView, body: CompleteLocalRun): Promise<RunView>;
}
