import { BadRequestError, RunStateConflictError, ServiceUnavailableError } from '../core/errors.js';
import type { ControlAction, NewRun, RunView } from '../core/model/eval-run.js';
import type { ApiDeps } from './deps.js';
import { checkCaseScorers } from './project-scorers.js';
import type { ControlAnswer, RunExecutionStrategy } from './run-execution.js';

/**
 * Managed execution (docs/evals.md): the run is started on the workflow engine, which calls the
 * agent and records every result; the API reaches it only through `RunEngine`
 * (workflows/client.ts), by signals and queries.
 */

/** A registered agent by id or name, or the SPEC's 400. */
export async function requireAgent(deps: Pick<ApiDeps, 'metadata'>, projectId: string, idOrName: string) {
  const agent = await deps.metadata.agents.resolve(projectId, idOrName);
  if (!agent) throw new BadRequestError(`Agent not found: ${idOrName}`, 'AGENT_NOT_FOUND');
  return agent;
}

/** A client's uploads are for runs it executes. */
const uploadsRefused = (run: RunView) =>
  Promise.reject(new RunStateConflictError(`Run ${run.id} is executed by the service; its workflow records its results`));

export function managedExecution(deps: ApiDeps): RunExecutionStrategy {
  const runs = deps.metadata.runs;

  function engine() {
    if (!deps.engine) throw new ServiceUnavailableError('workflow', new Error('this process has no workflow engine client'));
    return deps.engine;
  }

  const cancelled = async (runId: string, action: ControlAction): Promise<ControlAnswer> => {
    await runs.cancelPending(runId);
    await runs.finish(runId, 'cancelled');
    return { run_id: runId, action, status: 'cancelled', accepted: true };
  };

  return {
    execution: 'managed',

    async admit(projectId, body) {
      await checkCaseScorers(
        deps,
        projectId,
        { field: 'scorers', refs: body.scorers },
        body.dataset.items.map((item, i) => ({ ...item, field: `dataset.items[${i}]` })),
      );
      const agent = await requireAgent(deps, projectId, body.agentId);
      return { agent: { id: agent.id, name: agent.name } };
    },

    /** Stores the run, then starts its workflow; a run whose workflow cannot start is removed (503, retry). */
    async start(run: NewRun) {
      const runId = await runs.create(run);
      try {
        await engine().startRun({
          runId,
          projectId: run.projectId,
          caseCount: run.cases.length,
          repetitions: run.config.repetitions,
          parallel: run.config.parallel,
          concurrency: run.config.concurrency,
        });
      } catch (err) {
        await runs.discard(runId).catch(() => undefined);
        throw err;
      }
      return runId;
    },

    /** The workflow's progress query while it runs (when it answers and is ahead), the stored count otherwise. */
    async progress(run: RunView) {
      if (!deps.engine) return run.progress;
      const live = await deps.engine.progress(run.id).catch(() => undefined);
      return live && live.completed >= run.progress.completed ? { ...live, cancelled: run.progress.cancelled } : run.progress;
    },

    async control(run, action) {
      const runId = run.id;
      const e = engine();
      const delivered = action === 'pause' ? await e.pause(runId) : action === 'resume' ? await e.resume(runId) : await e.cancel(runId);
      if (!delivered) {
        // The workflow is gone (terminated by an operator, or lost with its engine's database):
        // SPEC "a run stuck in a running state can be cancelled by the control endpoint".
        if (action === 'cancel') return cancelled(runId, action);
        await runs.finish(runId, 'failed', 'the run workflow is no longer running in the workflow engine');
        throw new RunStateConflictError(`Run ${runId} has no running workflow any more; it is marked failed and can only be compared or rerun`);
      }
      const expected = action === 'pause' ? 'paused' : action === 'resume' ? 'running' : 'cancelled';
      return { run_id: runId, action, status: expected, accepted: true };
    },

    async approvals(run) {
      return (await engine().approvals(run.id)) ?? [];
    },

    async cancelCase(run, caseIndex) {
      if (!(await engine().cancelCase(run.id, caseIndex))) throw new RunStateConflictError(`Run ${run.id} has no running workflow any more`);
    },

    async approve(run, decision) {
      if (!(await engine().approve(run.id, decision))) throw new RunStateConflictError(`Run ${run.id} has no running workflow any more`);
    },

    addResults(_projectId, run) {
      return uploadsRefused(run);
    },

    complete(_projectId, run) {
      return uploadsRefused(run);
    },
  };
}
