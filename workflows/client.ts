import { Client, Connection, QueryNotRegisteredError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { ServiceUnavailableError } from '../core/errors.js';
import {
  approvalSignal,
  approvalStateQuery,
  cancelRunSignal,
  cancelSignal,
  pauseSignal,
  progressQuery,
  RUN_WORKFLOW,
  caseWorkflowId,
  runningTrialsQuery,
  runWorkflowId,
  type ApprovalDecision,
  type PendingApproval,
  type Progress,
  type RunPolicy,
  type RunWorkflowInput,
} from './contract.js';

/** What the API asks of the workflow engine about runs. */
export interface RunEngine {
  startRun(run: { runId: string; projectId: string; caseCount: number; repetitions: number; parallel: boolean; concurrency?: number }): Promise<void>;
  /** Each signal resolves false when the run's workflow is no longer running (nothing to signal). */
  pause(runId: string): Promise<boolean>;
  resume(runId: string): Promise<boolean>;
  cancel(runId: string): Promise<boolean>;
  cancelCase(runId: string, caseIndex: number): Promise<boolean>;
  approve(runId: string, decision: ApprovalDecision): Promise<boolean>;
  /** The run workflow's progress query; undefined when the workflow is closed or unknown. */
  progress(runId: string): Promise<Progress | undefined>;
  /**
   * The run's case trials waiting for a person's approval (at most MAX_APPROVAL_PROBES running
   * trials are asked); undefined when the run workflow is closed or unknown.
   */
  approvals(runId: string): Promise<PendingApproval[] | undefined>;
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

/**
 * How long one API call to the engine may take. The client retries an unreachable engine on its
 * own for much longer; an API caller should get a 503 to retry instead of a hanging request.
 */
const ENGINE_CALL_DEADLINE_MS = 5_000;

/** Running case trials asked whether they wait for an approval, per call (a run may run 1,000 at once). */
export const MAX_APPROVAL_PROBES = 200;

/** A lazy connection: the API starts when the engine is down, and answers 503 for run calls until it is back. */
export function createRunEngine(opts: RunEngineOptions): RunEngine {
  const connection = Connection.lazy({ address: opts.address, connectTimeout: '5 seconds' });
  const client = new Client({ connection, namespace: opts.namespace });

  /** Engine calls fail as 503 `Workflow engine service unavailable`, except a closed workflow (the caller decides). */
  async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await connection.withDeadline(Date.now() + ENGINE_CALL_DEADLINE_MS, fn);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowExecutionAlreadyStartedError || err instanceof QueryNotRegisteredError) throw err;
      throw new ServiceUnavailableError('workflow', err);
    }
  }
  const handle = (runId: string) => client.workflow.getHandle(runWorkflowId(runId));
  const signal = async (fn: () => Promise<void>): Promise<boolean> => {
    try {
      await engineCall(fn);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
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
    async approvals(runId) {
      let running;
      try {
        running = await engineCall(() => handle(runId).query(runningTrialsQuery));
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        // A run started by a version without the query: it cannot say, so nothing is listed.
        if (err instanceof QueryNotRegisteredError) return [];
        throw err;
      }
      const states = await Promise.all(
        running.slice(0, MAX_APPROVAL_PROBES).map((t) =>
          // A trial that finished in between is simply not waiting any more.
          engineCall(() => client.workflow.getHandle(caseWorkflowId(runId, t.case_index, t.trial)).query(approvalStateQuery)).catch((err: unknown) => {
            if (err instanceof WorkflowNotFoundError || err instanceof QueryNotRegisteredError) return null;
            throw err;
          }),
        ),
      );
      return states.filter((s): s is PendingApproval => s !== null).sort((a, b) => a.case_index - b.case_index || a.trial - b.trial);
    },
    async ping() {
      await connection.ensureConnected();
      await connection.workflowService.getSystemInfo({});
      return true;
    },
    close: () => connection.close(),
  };
}
