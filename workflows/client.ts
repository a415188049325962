import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { ServiceUnavailableError } from '../core/errors.js';
import {
  approvalSignal,
  cancelRunSignal,
  cancelSignal,
  pauseSignal,
  progressQuery,
  RUN_WORKFLOW,
  runWorkflowId,
  type ApprovalDecision,
  type Progress,
  type RunPolicy,
  type RunWorkflowInput,
} from './contract.js';

/** What the API asks of the workflow engine about runs. */
export interface RunEngine {
  startRun(run: { runId: string; projectId: string; caseCount: number; repetitions: number; parallel: boolean; concurrency?: number }): Promise<void>;
  pause(runId: string): Promise<void>;
  resume(runId: string): Promise<void>;
  cancel(runId: string): Promise<void>;
  cancelCase(runId: string, caseIndex: number): Promise<void>;
  approve(runId: string, decision: ApprovalDecision): Promise<void>;
  /** The run workflow's progress query; undefined when the workflow is closed or unknown. */
  progress(runId: string): Promise<Progress | undefined>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface RunEngineOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  policy: RunPolicy;
  /** Children running at once in a parallel run that does not say. */
  defaultConcurrency: number;
}

/** Engine calls fail as 503 `Workflow engine service unavailable`, except a closed workflow (the caller decides). */
async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || err instanceof WorkflowExecutionAlreadyStartedError) throw err;
    throw new ServiceUnavailableError('workflow', err);
  }
}

/** A lazy connection: the API starts when the engine is down, and answers 503 for run calls until it is back. */
export function createRunEngine(opts: RunEngineOptions): RunEngine {
  const connection = Connection.lazy({ address: opts.address, connectTimeout: '5 seconds' });
  const client = new Client({ connection, namespace: opts.namespace });
  const handle = (runId: string) => client.workflow.getHandle(runWorkflowId(runId));
  // Signals to a run that already finished are no-ops: the API checks the stored status first.
  const signal = async (fn: () => Promise<void>) => {
    try {
      await engineCall(fn);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  };

  return {
    async startRun(run) {
      const input: RunWorkflowInput = {
        runId: run.runId,
        projectId: run.projectId,
        caseCount: run.caseCount,
        repetitions: run.repetitions,
        concurrency: run.parallel ? (run.concurrency ?? opts.defaultConcurrency) : 1,
        policy: opts.policy,
      };
      try {
        await engineCall(() => client.workflow.start(RUN_WORKFLOW, { workflowId: runWorkflowId(run.runId), taskQueue: opts.taskQueue, args: [input] }));
      } catch (err) {
        // A retried start of the same run: it is running already.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    pause: (runId) => signal(() => handle(runId).signal(pauseSignal, { paused: true })),
    resume: (runId) => signal(() => handle(runId).signal(pauseSignal, { paused: false })),
    cancel: (runId) => signal(() => handle(runId).signal(cancelRunSignal)),
    cancelCase: (runId, caseIndex) => signal(() => handle(runId).signal(cancelSignal, { case_index: caseIndex })),
    approve: (runId, decision) => signal(() => handle(runId).signal(approvalSignal, decision)),
    async progress(runId) {
      try {
        return await engineCall(() => handle(runId).query(progressQuery));
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
    },
    async ping() {
      await connection.ensureConnected();
      await connection.workflowService.getSystemInfo({});
      return true;
    },
    close: () => connection.close(),
  };
}
