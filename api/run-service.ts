import { BadRequestError, NotFoundError, RunStateConflictError, ValidationError, type FieldIssue } from '../core/errors.js';
import { compareRuns, type CaseSideDetail, type RunComparison } from '../core/evals/compare.js';
import { comparableConversation } from '../core/evals/compare-turns.js';
import { caseCost, runCost, trialTraceIds } from '../core/cost/run-cost.js';
import { isUuid } from '../core/model/agent.js';
import { jsonProblems } from '../core/model/pg-json.js';
import { casesOfDataset, casesOfSuite } from '../core/model/run-cases.js';
import {
  FINAL_RUN_STATUSES,
  type CaseResultView,
  type ControlAction,
  type CreateEvalRun,
  type LocalResult,
  type NewRun,
  type RunExecution,
  type RunView,
} from '../core/model/eval-run.js';
import type { ApprovalDecision, PendingApproval } from '../workflows/contract.js';
import { withDeadline } from './deadline.js';
import type { ApiDeps } from './deps.js';
import { localExecution } from './local-execution.js';
import { managedExecution, requireAgent } from './managed-execution.js';
import { checkCaseScorers } from './project-scorers.js';
import type { CompleteLocalRun, DatasetRunBody, RunExecutionStrategy } from './run-execution.js';

/**
 * The one run service behind both API families and both executions: creation (from a stored
 * suite or an inline dataset), reads with their cost, control, approvals, a client's uploads and
 * comparison. Routes parse and answer; this decides what every run shares (found or 404, final
 * or not) and hands what depends on who executes the run to its strategy (api/run-execution.ts).
 */

/** A run's cost is extra: an analytical store slower than this leaves it null rather than holding the run back. */
const COST_READ_TIMEOUT_MS = 5_000;

/** A JSON value PostgreSQL cannot store is a 422 naming the field, never a 500. */
export function assertStorable(body: unknown): void {
  const issues: FieldIssue[] = jsonProblems(body);
  if (issues.length) throw new ValidationError(issues);
}

/** Who executes a run that `POST /api/runs` creates with this body. */
export const executionOf = (body: DatasetRunBody): RunExecution => ('execution' in body ? body.execution : 'managed');

export function createRunService(deps: ApiDeps) {
  const runs = deps.metadata.runs;
  const strategies: Record<RunExecution, RunExecutionStrategy> = { managed: managedExecution(deps), local: localExecution(deps) };
  const strategyOf = (run: Pick<RunView, 'execution'>) => strategies[run.execution];

  /** Stores the run through its strategy and answers it as stored. */
  async function start(strategy: RunExecutionStrategy, run: NewRun): Promise<RunView> {
    // Replay reads the recorded run's turns when a simulated case runs: it must be one of the project's.
    const replayFrom = run.config.replay_from;
    if (replayFrom && !(isUuid(replayFrom) && (await runs.get(run.projectId, replayFrom))))
      throw new NotFoundError(`Replay run ${replayFrom} not found`, 'RUN_NOT_FOUND');
    const runId = await strategy.start(run);
    const view = await runs.get(run.projectId, runId);
    if (!view) throw new Error(`run ${runId} vanished after creation`);
    return view;
  }

  async function existing(projectId: string, runId: string): Promise<RunView> {
    const run = isUuid(runId) ? await runs.get(projectId, runId) : null;
    if (!run) throw new NotFoundError('Eval run not found', 'RUN_NOT_FOUND');
    return run;
  }

  /** A case of a run that is not final, for a decision on it. */
  async function openCase(projectId: string, runId: string, caseIndex: number, refusal: string): Promise<RunView> {
    const run = await existing(projectId, runId);
    if (caseIndex >= run.summary.total_cases) throw new NotFoundError(`Case ${caseIndex} not found in run ${runId}`, 'CASE_NOT_FOUND');
    if (FINAL_RUN_STATUSES.has(run.status)) throw new RunStateConflictError(`Run ${runId} is ${run.status}; ${refusal}`);
    return run;
  }

  /**
   * The cost of the traces of these results' trials, per trace (docs/costs.md "Runs"): read from
   * the analytical store, so null (and logged) when it does not answer; the run itself comes from
   * PostgreSQL and is shown regardless.
   */
  async function costsOf(projectId: string, results: CaseResultView[]) {
    const read = await withDeadline(() => deps.analytics.costs.traceCosts(projectId, trialTraceIds(results)), COST_READ_TIMEOUT_MS);
    if (read.ok) return read.value;
    deps.logger.warn({ err: read.error, reason: read.reason }, 'run costs unavailable');
    return null;
  }

  return {
    /** POST /api/evals/runs: the latest (or a given) version of a stored suite, managed. */
    async createFromSuite(projectId: string, body: CreateEvalRun): Promise<RunView> {
      const suite = await deps.metadata.suites.getByName(projectId, body.suite_name, body.suite_version);
      if (!suite)
        throw new NotFoundError(
          body.suite_version ? `Suite not found: ${body.suite_name} version ${body.suite_version}` : `Suite not found: ${body.suite_name}`,
          'SUITE_NOT_FOUND',
        );
      const def = suite.definition;
      // Checked when the suite was written; checked again in case this server knows fewer scorers.
      await checkCaseScorers(
        deps,
        projectId,
        { field: 'suite.defaultScorers', refs: def.defaultScorers },
        def.cases.map((c, i) => ({ ...c, field: `suite.cases[${i}]` })),
      );
      const agentRef = body.agent_id ?? def.agent_id;
      if (!agentRef) throw new BadRequestError('agent_id is required (the suite names no agent)', 'AGENT_REQUIRED');
      const agent = await requireAgent(deps, projectId, agentRef);
      return start(strategies.managed, {
        projectId,
        suite: { id: suite.id, version: suite.version, name: suite.name },
        agent: { id: agent.id, name: agent.name },
        agentVersion: body.agent_version,
        config: body.config,
        aggregation: def.aggregation,
        minScore: def.defaultMinScore,
        cases: casesOfSuite(def),
      });
    },

    /** POST /api/runs: an inline dataset judged by the run's scorers (or an item's own), executed as the body says. */
    async createFromDataset(projectId: string, body: DatasetRunBody): Promise<RunView> {
      const strategy = strategies[executionOf(body)];
      const { agent, suite } = await strategy.admit(projectId, body);
      const { minScore, aggregation, ...config } = body.config;
      return start(strategy, {
        projectId,
        name: body.name,
        suite,
        agent,
        agentVersion: body.agentVersion,
        config,
        aggregation,
        minScore,
        cases: casesOfDataset(body.dataset.items, body.scorers),
      });
    },

    /** The run, with its cost over the traces of its recorded trials. */
    async get(projectId: string, runId: string): Promise<RunView> {
      const run = await existing(projectId, runId);
      const results = (await runs.results(projectId, runId)) ?? [];
      const costs = await costsOf(projectId, results);
      return { ...run, cost: costs && runCost(results, costs) };
    },

    async results(projectId: string, runId: string, failedOnly: boolean) {
      await existing(projectId, runId);
      const all = (await runs.results(projectId, runId)) ?? [];
      const results = failedOnly ? all.filter((r) => r.status === 'failed') : all;
      const [costs, cases] = await Promise.all([
        costsOf(projectId, results),
        runs.casesOf(
          runId,
          results.map((r) => r.case_index),
        ),
      ]);
      const caseOf = new Map(cases.map((c) => [c.case_index, c]));
      // What the case asked and expected beside what the agent answered (a conversation case has no input: its turns are).
      return results.map((r) => ({
        ...r,
        input: caseOf.get(r.case_index)?.input ?? null,
        expected: caseOf.get(r.case_index)?.expected ?? null,
        cost: costs && caseCost(r, costs),
      }));
    },

    /** Status with live progress while the run goes on (its strategy's), the stored count once final. */
    async status(projectId: string, runId: string) {
      const run = await existing(projectId, runId);
      const progress = FINAL_RUN_STATUSES.has(run.status) ? run.progress : await strategyOf(run).progress(run);
      return {
        run_id: run.id,
        id: run.id,
        status: run.status,
        progress,
        summary: run.summary,
        created_at: run.created_at,
        started_at: run.started_at,
        completed_at: run.completed_at,
        error: run.error,
      };
    },

    /** pause / resume / cancel; refused (409) where the run's status (or its execution) does not allow it. */
    async control(projectId: string, runId: string, action: ControlAction) {
      const run = await existing(projectId, runId);
      if (FINAL_RUN_STATUSES.has(run.status)) {
        throw new RunStateConflictError(
          `Run ${runId} is ${run.status} and cannot be ${action === 'resume' ? 'resumed' : action === 'pause' ? 'paused' : 'cancelled'}`,
        );
      }
      return strategyOf(run).control(run, action);
    },

    /** Case trials waiting for a person's approval: none once the run is final; 503 when the engine does not answer. */
    async approvals(projectId: string, runId: string): Promise<{ run_id: string; approvals: PendingApproval[] }> {
      const run = await existing(projectId, runId);
      if (FINAL_RUN_STATUSES.has(run.status)) return { run_id: run.id, approvals: [] };
      return { run_id: run.id, approvals: await strategyOf(run).approvals(run) };
    },

    async cancelCase(projectId: string, runId: string, caseIndex: number) {
      const run = await openCase(projectId, runId, caseIndex, 'its cases can no longer be cancelled');
      await strategyOf(run).cancelCase(run, caseIndex);
      return { run_id: runId, case_index: caseIndex, action: 'cancel', accepted: true };
    },

    async approve(projectId: string, runId: string, decision: ApprovalDecision) {
      const run = await openCase(projectId, runId, decision.case_index, 'there is nothing to approve');
      await strategyOf(run).approve(run, decision);
      return { run_id: runId, case_index: decision.case_index, trial: decision.trial ?? 0, approved: decision.approved, accepted: true };
    },

    /** POST /api/runs/{id}/results: a client's results of a run it executes. */
    async addResults(projectId: string, runId: string, results: LocalResult[]) {
      const run = await existing(projectId, runId);
      return strategyOf(run).addResults(projectId, run, results);
    },

    /** POST /api/runs/{id}/complete: how a run its client executes ended. */
    async complete(projectId: string, runId: string, body: CompleteLocalRun): Promise<RunView> {
      const run = await existing(projectId, runId);
      return strategyOf(run).complete(projectId, run, body);
    },

    /** Both comparison routes: per case and scorer, with the significance of the change. */
    async compare(projectId: string, baselineId: string, candidateId: string, threshold: number, alpha?: number): Promise<RunComparison> {
      const [baseline, candidate] = await Promise.all([
        isUuid(baselineId) ? runs.get(projectId, baselineId) : null,
        isUuid(candidateId) ? runs.get(projectId, candidateId) : null,
      ]);
      if (!baseline) throw new NotFoundError(`Baseline run ${baselineId} not found`, 'RUN_NOT_FOUND');
      if (!candidate) throw new NotFoundError(`Candidate run ${candidateId} not found`, 'RUN_NOT_FOUND');
      const [baseCases, candCases] = await Promise.all([runs.results(projectId, baselineId), runs.results(projectId, candidateId)]);
      const scored = (cases: typeof baseCases) => (cases ?? []).filter((c) => c.status === 'passed' || c.status === 'failed');
      const [baseCosts, candCosts] = await Promise.all([costsOf(projectId, scored(baseCases)), costsOf(projectId, scored(candCases))]);
      const comparable = (run: RunView, cases: typeof baseCases, costs: typeof baseCosts) => ({
        run_id: run.id,
        agent_version: run.agent_version,
        suite_id: run.suite_id,
        suite_version: run.suite_version,
        cases: scored(cases).map((c) => ({
          case_name: c.case_name,
          scores: c.scores,
          avg_score: c.avg_score,
          status: c.status,
          ...comparableConversation(c),
          case_index: c.case_index,
          trace_id: c.trace_id,
          duration_ms: c.duration_ms,
          cost_usd: costs ? caseCost(c, costs).total_usd : null,
        })),
      });
      const comparison = compareRuns(comparable(baseline, baseCases, baseCosts), comparable(candidate, candCases, candCosts), { threshold, alpha });
      // A changed case shows both sides: its input and expected (read for the changed cases only), output, error, scorer details.
      const changed = comparison.cases.filter((c) => c.change !== 'unchanged');
      if (changed.length === 0) return comparison;
      const indexes = (side: 'baseline_case' | 'candidate_case') => changed.map((c) => c[side].case_index).filter((i): i is number => i !== null);
      const [baseInputs, candInputs] = await Promise.all([
        runs.casesOf(baselineId, indexes('baseline_case')),
        runs.casesOf(candidateId, indexes('candidate_case')),
      ]);
      const detailOf = (cases: typeof baseCases, inputs: typeof baseInputs) => {
        const results = new Map(scored(cases).map((c) => [c.case_index, c]));
        const asked = new Map(inputs.map((c) => [c.case_index, c]));
        return (index: number | null): CaseSideDetail | undefined => {
          const r = index === null ? undefined : results.get(index);
          if (!r) return undefined;
          const input = asked.get(r.case_index);
          return { input: input?.input ?? null, expected: input?.expected ?? null, output: r.output, error: r.error ?? null, details: r.details };
        };
      };
      const baseDetail = detailOf(baseCases, baseInputs);
      const candDetail = detailOf(candCases, candInputs);
      for (const c of changed) {
        const b = baseDetail(c.baseline_case.case_index);
        const n = candDetail(c.candidate_case.case_index);
        if (b && n) Object.assign(c, { baseline_detail: b, candidate_detail: n });
      }
      return comparison;
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
