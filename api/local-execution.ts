import { BadRequestError, NotFoundError, RunStateConflictError, ValidationError, writeFailure, type FieldIssue } from '../core/errors.js';
import type { ScoreDetail } from '../core/model/eval-case.js';
import { FINAL_RUN_STATUSES, type LocalResult, type RunCase, type RunView, type TrialRecord } from '../core/model/eval-run.js';
import { derivedUuid } from '../core/ids/derived-ids.js';
import type { Score } from '../core/model/score.js';
import { aggregateScores, casePasses } from '../core/scoring/run-scorers.js';
import type { ApiDeps } from './deps.js';
import type { RunExecutionStrategy } from './run-execution.js';

/**
 * Local execution (docs/evals.md, "Runs executed outside the service"): a client (the SDK's
 * `evaluate()`, the CLI's `--local`) runs the agent and the scorers, uploads each case trial's
 * result, and completes the run. Its runs are stored in the same tables as managed runs, so every
 * read, list and comparison treats them alike; the service judges pass or fail from the uploaded
 * scores with the same rules (core/scoring) as for its own runs. No workflow drives them.
 */

/** The id of a score a local run's result writes: the same upload writes the same rows. */
const scoreId = (runId: string, caseIndex: number, trial: number, name: string) => derivedUuid(`local-run-score:${runId}:${caseIndex}:${trial}:${name}`);

const refuse = (message: string) => Promise.reject(new RunStateConflictError(message));

/** Problems of one uploaded result against its run and case. */
function resultIssues(run: RunView, r: LocalResult, runCase: RunCase | undefined, i: number): FieldIssue[] {
  if (!runCase) return [{ field: `results[${i}].case_index`, message: `the run has ${run.summary.total_cases} cases (0-${run.summary.total_cases - 1})` }];
  if (r.trial >= run.config.repetitions)
    return [{ field: `results[${i}].trial`, message: `the run repeats each case ${run.config.repetitions} times (0-${run.config.repetitions - 1})` }];
  const names = new Set(runCase.scorers.map((s) => s.name));
  return Object.keys(r.details)
    .filter((name) => !names.has(name))
    .map((name) => ({ field: `results[${i}].details.${name}`, message: `is not a scorer of case ${r.case_index} (its scorers: ${[...names].join(', ')})` }));
}

/** The stored trial: pass or fail judged here, from the scores, by the rules of every run. */
function trialRecord(run: RunView, runCase: RunCase, r: LocalResult): TrialRecord {
  const details: Record<string, ScoreDetail> = Object.fromEntries(
    Object.entries(r.details).map(([name, d]) => [name, { score: d.score, reason: d.reason, evidence: d.evidence }]),
  );
  const error = r.error ?? null;
  const passed = error === null && casePasses(details, runCase.scorers, runCase.min_score ?? run.min_score);
  return {
    status: passed ? 'passed' : 'failed',
    details,
    avg_score: aggregateScores(details, runCase.scorers, run.aggregation),
    passed,
    duration_ms: r.duration_ms,
    latency_ms: r.latency_ms ?? null,
    output: r.output ?? null,
    tool_calls: r.tool_calls ?? null,
    usage: r.usage ?? null,
    approval: null,
    error,
    trace_id: r.trace_id ?? null,
  };
}

/** Scores of the uploaded trials, in the trace store beside their traces (source `eval`, and `sdk` for the case's own). */
function scoresOf(runId: string, r: LocalResult, record: TrialRecord): Score[] {
  if (!r.trace_id) return [];
  const created_at = new Date().toISOString();
  const base = { trace_id: r.trace_id, span_id: r.span_id ?? null, score_type: 'numeric' as const, created_at };
  return [
    ...Object.entries(record.details).map(([name, d]) => ({
      ...base,
      id: scoreId(runId, r.case_index, r.trial, name),
      name,
      value: d.score,
      source: 'eval' as const,
      scorer_name: name,
      reason: d.reason,
      evidence: d.evidence,
    })),
    {
      ...base,
      id: scoreId(runId, r.case_index, r.trial, 'avg_score'),
      name: 'avg_score',
      value: record.avg_score,
      source: 'sdk' as const,
      scorer_name: null,
      reason: record.status === 'passed' ? 'case passed' : 'case failed',
      evidence: [],
    },
  ];
}

export function localExecution(deps: ApiDeps): RunExecutionStrategy {
  const { metadata } = deps;
  const runs = metadata.runs;

  return {
    execution: 'local',

    /**
     * Every case needs a scorer (the client's: the registry's or its own custom ones, so only
     * names are checked, on upload). A registered agent's id or name links the run to it; any
     * other label is the local agent's name. A suite's `id` and `version` must name a stored one.
     */
    async admit(projectId, body) {
      const conversation = body.dataset.items.findIndex((item) => item.turns || item.simulation);
      if (conversation >= 0)
        throw new BadRequestError(
          `dataset.items[${conversation}]: conversation cases (turns, simulation) run on the service: start the run without execution "local"`,
          'CONVERSATION_LOCAL',
        );
      const issues = body.dataset.items.flatMap((item, i) =>
        (item.scorers ?? body.scorers).length
          ? []
          : [{ field: `dataset.items[${i}].scorers`, message: 'a case needs at least one scorer: list scorers here or in scorers' }],
      );
      if (issues.length) throw new ValidationError(issues.slice(0, 100));
      const agent = await metadata.agents.resolve(projectId, body.agentId);
      const suiteRef = 'suite' in body ? body.suite : undefined;
      let suite: { id: string | null; version: number | null; name: string } | undefined;
      if (suiteRef?.id !== undefined && suiteRef.version !== undefined) {
        const stored = await metadata.suites.get(projectId, suiteRef.id, suiteRef.version);
        if (!stored) throw new ValidationError([{ field: 'suite.id', message: `the project has no suite ${suiteRef.id} version ${suiteRef.version}` }]);
        suite = { id: stored.id, version: stored.version, name: stored.name };
      } else if (suiteRef) {
        suite = { id: null, version: null, name: suiteRef.name };
      }
      return { agent: agent ? { id: agent.id, name: agent.name } : { id: null, name: body.agentId }, suite };
    },

    /** The run and its cases, `running` at once, no workflow. */
    start(run) {
      return runs.create({ ...run, execution: 'local' });
    },

    progress(run) {
      return Promise.resolve(run.progress);
    },

    /** No workflow drives the run: a cancel ends it here, and its client stops at its next upload. */
    async control(run, action) {
      if (action !== 'cancel')
        throw new RunStateConflictError(`Run ${run.id} is executed by its client and cannot be ${action === 'pause' ? 'paused' : 'resumed'}`);
      await runs.cancelPending(run.id);
      await runs.finish(run.id, 'cancelled');
      return { run_id: run.id, action, status: 'cancelled', accepted: true };
    },

    approvals() {
      return Promise.resolve([]);
    },

    cancelCase(run) {
      return refuse(`Run ${run.id} is executed by its client; cancel the whole run`);
    },

    approve(run) {
      return refuse(`Run ${run.id} is executed by its client; there is nothing to approve`);
    },

    /** Records each trial once by (case_index, trial); sending the same upload again changes nothing (the first record of a trial wins, as in every run). */
    async addResults(projectId, run, results) {
      const runId = run.id;
      if (FINAL_RUN_STATUSES.has(run.status)) throw new RunStateConflictError(`Run ${runId} is ${run.status}; results can no longer be added`);
      const cases = new Map((await runs.casesOf(runId, [...new Set(results.map((r) => r.case_index))])).map((c) => [c.case_index, c]));
      const issues = results.flatMap((r, i) => resultIssues(run, r, cases.get(r.case_index), i));
      if (issues.length) throw new ValidationError(issues.slice(0, 100));
      const records = results.map((r) => ({ r, record: trialRecord(run, cases.get(r.case_index)!, r) }));
      const scores = records.flatMap(({ r, record }) => scoresOf(runId, r, record));
      // Scores first: a result that reads back has its scores (a retried upload writes the same rows).
      if (scores.length) {
        try {
          await deps.analytics.writeScores(projectId, scores);
        } catch (err) {
          throw writeFailure('analytics', err);
        }
      }
      for (const { r, record } of records) {
        const started = r.started_at ?? Date.now() - r.duration_ms;
        await runs.recordTrial(runId, r.case_index, r.trial, record, { started_ms: started, ended_ms: started + r.duration_ms, calls: [] });
      }
      const after = await runs.get(projectId, runId);
      return { run_id: runId, accepted: results.length, progress: after?.progress ?? run.progress };
    },

    /**
     * `completed` once every trial has a result; `cancelled` records the missing trials
     * cancelled; `failed` keeps what was uploaded, with the error. Completing a run again with
     * the same status answers the run as it is.
     */
    async complete(projectId, run, body) {
      const runId = run.id;
      if (FINAL_RUN_STATUSES.has(run.status)) {
        if (run.status === body.status) return run;
        throw new RunStateConflictError(`Run ${runId} is ${run.status} and cannot be ${body.status}`);
      }
      if (body.status === 'completed' && run.progress.completed < run.progress.total) {
        const missing = run.progress.total - run.progress.completed;
        throw new RunStateConflictError(
          `Run ${runId} has ${missing} case trial${missing === 1 ? '' : 's'} without a result; upload them, or complete the run as cancelled or failed`,
        );
      }
      if (body.status === 'cancelled') await runs.cancelPending(runId);
      await runs.finish(runId, body.status, body.status === 'failed' ? (body.error ?? 'the client reported a failure') : undefined);
      const view = await runs.get(projectId, runId);
      if (!view) throw new NotFoundError('Eval run not found', 'RUN_NOT_FOUND');
      return view;
    },
  };
}
