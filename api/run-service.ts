import { AppError, BadRequestError, NotFoundError, ServiceUnavailableError, ValidationError, type FieldIssue } from '../core/errors.js';
import type { ScorerRef } from '../core/model/eval-case.js';
import { compareRuns, type RunComparison } from '../core/evals/compare.js';
import { effectiveScorers } from '../core/model/suite.js';
import { isUuid } from '../core/model/agent.js';
import { jsonProblems } from '../core/model/pg-json.js';
import { FINAL_RUN_STATUSES, type CaseResultView, type ControlAction, type CreateEvalRun, type CreateRun, type NewRun, type RunView } from '../core/model/eval-run.js';
import type { RunCost, TraceCost } from '../core/model/cost.js';
import { withDeadline } from './deadline.js';

/** A run's cost is extra: an analytical store slower than this leaves it null rather than holding the run back. */
const COST_READ_TIMEOUT_MS = 5_000;
import type { ApprovalDecision, PendingApproval } from '../workflows/contract.js';
import type { ApiDeps } from './deps.js';
import { assertScorersRunnable, scorersFor } from './project-scorers.js';

/**
 * The one run model behind both API families: creation (from a stored suite or an inline
 * dataset), control, progress and comparison. Routes parse and answer; this decides.
 */

/** A run was asked to do what its status does not allow (resume a cancelled run...). */
export class RunStateConflictError extends AppError {
  constructor(message: string) {
    super(409, 'RUN_STATE_CONFLICT', message);
  }
}

/** A JSON value PostgreSQL cannot store is a 422 naming the field, never a 500. */
export function assertStorable(body: unknown): void {
  const issues: FieldIssue[] = jsonProblems(body);
  if (issues.length) throw new ValidationError(issues);
}

export function createRunService(deps: ApiDeps) {
  const { metadata } = deps;
  const runs = metadata.runs;

  function engine() {
    if (!deps.engine) throw new ServiceUnavailableError('workflow', new Error('this process has no workflow engine client'));
    return deps.engine;
  }

  async function resolveAgent(projectId: string, idOrName: string) {
    const agent = await metadata.agents.resolve(projectId, idOrName);
    if (!agent) throw new BadRequestError(`Agent not found: ${idOrName}`, 'AGENT_NOT_FOUND');
    return agent;
  }

  /**
   * Scorers the project's registry refuses (422), each named by where the request put it; then
   * scorers that cannot run here, such as a judge without a provider (400).
   */
  async function checkScorers(projectId: string, lists: Array<{ field: string; refs: ScorerRef[] | undefined }>): Promise<void> {
    const registry = await scorersFor(deps, projectId);
    const issues = lists.flatMap(({ field, refs }) => registry.check(refs ?? []).map((issue) => ({ field: `${field}[${issue.index}]`, message: issue.message })));
    if (issues.length) throw new ValidationError(issues.slice(0, 100));
    assertScorersRunnable(registry, lists);
  }

  /** Stores the run, then starts its workflow; a run whose workflow cannot start is removed (503, retry). */
  async function start(run: NewRun): Promise<RunView> {
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
    const view = await runs.get(run.projectId, runId);
    if (!view) throw new Error(`run ${runId} vanished after creation`);
    return view;
  }

  async function existing(projectId: string, runId: string): Promise<RunView> {
    const run = isUuid(runId) ? await runs.get(projectId, runId) : null;
    if (!run) throw new NotFoundError('Eval run not found', 'RUN_NOT_FOUND');
    return run;
  }

  /**
   * The cost of the traces of these results' trials, per case and summed (docs/costs.md "Runs"):
   * read from the analytical store, so null (and logged) when it does not answer; the run itself
   * comes from PostgreSQL and is shown regardless.
   */
  async function costsOf(projectId: string, results: CaseResultView[]) {
    const traceIds = results.flatMap((r) => r.trials.map((t) => t.trace_id)).filter((id): id is string => id !== null);
    const read = await withDeadline(() => deps.analytics.costs.traceCosts(projectId, [...new Set(traceIds)]), COST_READ_TIMEOUT_MS);
    if (read.ok) return read.value;
    deps.logger.warn({ err: read.error, reason: read.reason }, 'run costs unavailable');
    return null;
  }

  function runCostOf(results: CaseResultView[], costs: Map<string, TraceCost>): RunCost {
    const ids = new Set(results.flatMap((r) => r.trials.map((t) => t.trace_id)).filter((id): id is string => id !== null));
    const total: RunCost = { total_usd: 0, judges_usd: 0, unpriced_llm_calls: 0, traces: ids.size };
    for (const id of ids) {
      const c = costs.get(id);
      if (!c) continue;
      total.total_usd += c.total_usd;
      total.judges_usd += c.judges_usd;
      total.unpriced_llm_calls += c.unpriced_llm_calls;
    }
    return total;
  }

  function caseCostOf(result: CaseResultView, costs: Map<string, TraceCost>): TraceCost {
    const { total_usd, judges_usd, unpriced_llm_calls } = runCostOf([result], costs);
    return { total_usd, judges_usd, unpriced_llm_calls };
  }

  return {
    /** POST /api/evals/runs: the latest (or a given) version of a stored suite. */
    async createFromSuite(projectId: string, body: CreateEvalRun): Promise<RunView> {
      const suite = await metadata.suites.getByName(projectId, body.suite_name, body.suite_version);
      if (!suite) throw new NotFoundError(body.suite_version ? `Suite not found: ${body.suite_name} version ${body.suite_version}` : `Suite not found: ${body.suite_name}`, 'SUITE_NOT_FOUND');
      const def = suite.definition;
      // Checked when the suite was written; checked again in case this server knows fewer scorers.
      await checkScorers(projectId, [{ field: 'suite.defaultScorers', refs: def.defaultScorers }, ...def.cases.map((c, i) => ({ field: `suite.cases[${i}].scorers`, refs: c.scorers }))]);
      const agentRef = body.agent_id ?? def.agent_id;
      if (!agentRef) throw new BadRequestError('agent_id is required (the suite names no agent)', 'AGENT_REQUIRED');
      const agent = await resolveAgent(projectId, agentRef);
      return start({
        projectId,
        suite: { id: suite.id, version: suite.version, name: suite.name },
        agent: { id: agent.id, name: agent.name },
        agentVersion: body.agent_version,
        config: body.config,
        aggregation: def.aggregation,
        minScore: def.defaultMinScore,
        cases: def.cases.map((c) => ({
          name: c.name,
          input: c.input,
          expected: c.expected,
          scorers: effectiveScorers(def, c),
          min_score: c.minScore ?? null,
          weight: c.weight,
        })),
      });
    },

    /** POST /api/runs: an inline dataset judged by the run's scorers (or an item's own). */
    async createFromDataset(projectId: string, body: CreateRun): Promise<RunView> {
      await checkScorers(projectId, [{ field: 'scorers', refs: body.scorers }, ...body.dataset.items.map((item, i) => ({ field: `dataset.items[${i}].scorers`, refs: item.scorers }))]);
      const agent = await resolveAgent(projectId, body.agentId);
      const { minScore, aggregation, ...config } = body.config;
      return start({
        projectId,
        name: body.name,
        agent: { id: agent.id, name: agent.name },
        agentVersion: body.agentVersion,
        config,
        aggregation,
        minScore,
        cases: body.dataset.items.map((item, i) => ({
          name: item.name ?? `item ${i + 1}`,
          input: item.input,
          expected: item.expected,
          scorers: item.scorers ?? body.scorers,
          min_score: item.minScore ?? null,
          weight: item.weight,
        })),
      });
    },

    /** The run, with its cost over the traces of its recorded trials. */
    async get(projectId: string, runId: string): Promise<RunView> {
      const run = await existing(projectId, runId);
      const results = (await runs.results(projectId, runId)) ?? [];
      const costs = await costsOf(projectId, results);
      return { ...run, cost: costs && runCostOf(results, costs) };
    },

    async results(projectId: string, runId: string, failedOnly: boolean) {
      await existing(projectId, runId);
      const all = (await runs.results(projectId, runId)) ?? [];
      const results = failedOnly ? all.filter((r) => r.status === 'failed') : all;
      const costs = await costsOf(projectId, results);
      return results.map((r) => ({ ...r, cost: costs && caseCostOf(r, costs) }));
    },

    /** Status with live progress: the workflow's progress query while it runs, the stored count otherwise. */
    async status(projectId: string, runId: string) {
      const run = await existing(projectId, runId);
      let progress = run.progress;
      if (!FINAL_RUN_STATUSES.has(run.status) && run.execution === 'managed' && deps.engine) {
        const live = await deps.engine.progress(runId).catch(() => undefined);
        if (live && live.completed >= progress.completed) progress = live;
      }
      return { run_id: run.id, id: run.id, status: run.status, progress, summary: run.summary, created_at: run.created_at, started_at: run.started_at, completed_at: run.completed_at, error: run.error };
    },

    /** pause / resume / cancel by signal; refused (409) where the run's status does not allow it. */
    async control(projectId: string, runId: string, action: ControlAction) {
      const run = await existing(projectId, runId);
      if (FINAL_RUN_STATUSES.has(run.status)) {
        throw new RunStateConflictError(`Run ${runId} is ${run.status} and cannot be ${action === 'resume' ? 'resumed' : action === 'pause' ? 'paused' : 'cancelled'}`);
      }
      if (run.execution === 'local') {
        // No workflow drives a local run (api/local-run-service.ts): a cancel ends it here, and its client stops at its next upload.
        if (action !== 'cancel') throw new RunStateConflictError(`Run ${runId} is executed by its client and cannot be ${action === 'pause' ? 'paused' : 'resumed'}`);
        await runs.cancelPending(runId);
        await runs.finish(runId, 'cancelled');
        return { run_id: runId, action, status: 'cancelled', accepted: true };
      }
      const e = engine();
      const delivered = action === 'pause' ? await e.pause(runId) : action === 'resume' ? await e.resume(runId) : await e.cancel(runId);
      if (!delivered) {
        // The workflow is gone (terminated by an operator, or lost with its engine's database):
        // SPEC "a run stuck in a running state can be cancelled by the control endpoint".
        if (action === 'cancel') {
          await runs.cancelPending(runId);
          await runs.finish(runId, 'cancelled');
          return { run_id: runId, action, status: 'cancelled', accepted: true };
        }
        await runs.finish(runId, 'failed', 'the run workflow is no longer running in the workflow engine');
        throw new RunStateConflictError(`Run ${runId} has no running workflow any more; it is marked failed and can only be compared or rerun`);
      }
      const expected = action === 'pause' ? 'paused' : action === 'resume' ? 'running' : 'cancelled';
      return { run_id: runId, action, status: expected, accepted: true };
    },

    /** Case trials waiting for a person's approval: none once the run is final; 503 when the engine does not answer. */
    async approvals(projectId: string, runId: string): Promise<{ run_id: string; approvals: PendingApproval[] }> {
      const run = await existing(projectId, runId);
      if (FINAL_RUN_STATUSES.has(run.status) || run.execution === 'local') return { run_id: run.id, approvals: [] };
      return { run_id: run.id, approvals: (await engine().approvals(runId)) ?? [] };
    },

    async cancelCase(projectId: string, runId: string, caseIndex: number) {
      const run = await existing(projectId, runId);
      if (caseIndex >= run.summary.total_cases) throw new NotFoundError(`Case ${caseIndex} not found in run ${runId}`, 'CASE_NOT_FOUND');
      if (FINAL_RUN_STATUSES.has(run.status)) throw new RunStateConflictError(`Run ${runId} is ${run.status}; its cases can no longer be cancelled`);
      if (run.execution === 'local') throw new RunStateConflictError(`Run ${runId} is executed by its client; cancel the whole run`);
      if (!(await engine().cancelCase(runId, caseIndex))) throw new RunStateConflictError(`Run ${runId} has no running workflow any more`);
      return { run_id: runId, case_index: caseIndex, action: 'cancel', accepted: true };
    },

    async approve(projectId: string, runId: string, decision: ApprovalDecision) {
      const run = await existing(projectId, runId);
      if (decision.case_index >= run.summary.total_cases) throw new NotFoundError(`Case ${decision.case_index} not found in run ${runId}`, 'CASE_NOT_FOUND');
      if (FINAL_RUN_STATUSES.has(run.status)) throw new RunStateConflictError(`Run ${runId} is ${run.status}; there is nothing to approve`);
      if (run.execution === 'local') throw new RunStateConflictError(`Run ${runId} is executed by its client; there is nothing to approve`);
      if (!(await engine().approve(runId, decision))) throw new RunStateConflictError(`Run ${runId} has no running workflow any more`);
      return { run_id: runId, case_index: decision.case_index, trial: decision.trial ?? 0, approved: decision.approved, accepted: true };
    },

    /** Both comparison routes: per case and scorer, with the significance of the change. */
    async compare(projectId: string, baselineId: string, candidateId: string, threshold: number, alpha?: number): Promise<RunComparison> {
      const [baseline, candidate] = await Promise.all([isUuid(baselineId) ? runs.get(projectId, baselineId) : null, isUuid(candidateId) ? runs.get(projectId, candidateId) : null]);
      if (!baseline) throw new NotFoundError(`Baseline run ${baselineId} not found`, 'RUN_NOT_FOUND');
      if (!candidate) throw new NotFoundError(`Candidate run ${candidateId} not found`, 'RUN_NOT_FOUND');
      const [baseCases, candCases] = await Promise.all([runs.results(projectId, baselineId), runs.results(projectId, candidateId)]);
      const comparable = (run: RunView, cases: typeof baseCases) => ({
        run_id: run.id,
        agent_version: run.agent_version,
        suite_id: run.suite_id,
        suite_version: run.suite_version,
        cases: (cases ?? []).filter((c) => c.status === 'passed' || c.status === 'failed').map((c) => ({ case_name: c.case_name, scores: c.scores, avg_score: c.avg_score, status: c.status })),
      });
      return compareRuns(comparable(baseline, baseCases), comparable(candidate, candCases), { threshold, alpha });
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;

