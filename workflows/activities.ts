import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Collector } from '../collector/index.js';
import { errorMessage, isInfrastructureFailure, ValidationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { TrialRecord } from '../core/model/eval-run.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { RunStore } from '../core/store/postgres/run-store.js';
import { aggregateScores, casePasses, runScorers } from '../core/scoring/run-scorers.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import type { AgentCall, EvalActivities } from './activity-types.js';
import { AgentCallError, callAgent } from './agent-call.js';
import { caseScores, caseTraceBody, caseTraceId, traceparentFor, type CaseTraceInput } from './case-trace.js';

/** The agent as the worker calls it (header values included). */
export interface AgentForCall {
  id: string;
  name: string;
  endpoint: string;
  headers: Record<string, string>;
}

export interface ActivityDeps {
  runs: RunStore;
  agents: { resolveForCall(projectId: string, idOrName: string): Promise<AgentForCall | null> };
  collector: Pick<Collector, 'ingestTrace'>;
  analytics: Pick<AnalyticsStore, 'writeScores'>;
  scorers: ScorerRegistry;
  logger: Logger;
}

/** How long an activity waits for the metadata store to come back before failing its attempt. */
const STORE_WAIT_MS = 120_000;

/** All I/O of a run (STYLE 3: created with their dependencies). */
export function createActivities(deps: ActivityDeps): EvalActivities {
  const { runs } = deps;

  /**
   * The run and case as stored. A metadata store that is down is waited out here (up to
   * STORE_WAIT_MS) instead of spending the agent call's few retries on an outage.
   */
  async function runAndCase(runId: string, caseIndex: number) {
    const giveUpAt = Date.now() + STORE_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const [run, runCase] = await Promise.all([runs.forWorker(runId), runs.getCase(runId, caseIndex)]);
        if (!run || !runCase) throw ApplicationFailure.nonRetryable(`run ${runId} case ${caseIndex} no longer exists`, 'RunGone');
        return { run, runCase };
      } catch (err) {
        if (!isInfrastructureFailure(err) || Date.now() > giveUpAt) throw err;
        deps.logger.warn({ run_id: runId, attempt, err: errorMessage(err) }, 'metadata store unavailable; waiting');
        await Context.current().sleep(Math.min(5_000, 200 * 2 ** attempt));
      }
    }
  }

  return {
    async executeAgent({ runId, caseIndex, trial, call, approval }) {
      const { run, runCase } = await runAndCase(runId, caseIndex);
      const agent = await deps.agents.resolveForCall(run.project_id, run.agent_id);
      if (!agent) throw ApplicationFailure.nonRetryable(`agent ${run.agent_id} no longer exists`, 'AgentGone');
      const key = { runId, caseIndex, trial };
      const body = {
        input: runCase.input,
        case: { name: runCase.name, expected: runCase.expected },
        run_id: runId,
        agent_version: run.agent_version,
        trace_id: caseTraceId(key),
        trial,
        ...(approval ? { approval: { approved: approval.approved, comment: approval.comment ?? null } } : {}),
      };
      try {
        const signal = Context.current().cancellationSignal;
        const result = await callAgent(agent, body, { timeoutMs: run.config.timeout_ms, traceparent: traceparentFor(key, call), signal });
        return { startedAt: result.startedAt, endedAt: result.endedAt, reply: result.reply };
      } catch (err) {
        if (err instanceof AgentCallError) {
          throw err.retryable ? ApplicationFailure.retryable(err.message, 'AgentCallFailed') : ApplicationFailure.nonRetryable(err.message, 'AgentReplyInvalid');
        }
        throw err;
      }
    },

    async scoreCase({ runId, caseIndex, reply, latencyMs }) {
      const { run, runCase } = await runAndCase(runId, caseIndex);
      const input = { input: runCase.input, output: reply.output, expected: runCase.expected, toolCalls: reply.tool_calls, usage: reply.usage, latencyMs };
      const details = await runScorers(deps.scorers, runCase.scorers, input, Context.current().cancellationSignal);
      return {
        details,
        avgScore: aggregateScores(details, runCase.scorers, run.aggregation),
        passed: casePasses(details, runCase.scorers, runCase.min_score ?? run.min_score),
      };
    },

    async emitCaseTraces({ runId, trials }) {
      const [run, stored] = await Promise.all([runs.forWorker(runId), runs.trialsForTrace(runId, trials)]);
      if (!run) throw ApplicationFailure.nonRetryable(`run ${runId} no longer exists`, 'RunGone');
      const traces: CaseTraceInput[] = stored.map((t) => ({
        key: { runId, caseIndex: t.case_index, trial: t.trial },
        caseName: t.case_name,
        agent: { id: run.agent_id, name: run.agent_name, version: run.agent_version },
        input: t.input,
        startedAt: t.started_ms,
        endedAt: t.ended_ms,
        calls: t.calls as AgentCall[],
        details: t.details,
        avgScore: t.avg_score,
        status: t.status,
        error: t.error ?? undefined,
      }));
      const writeTrace = async (trace: CaseTraceInput) => {
        try {
          await deps.collector.ingestTrace(run.project_id, caseTraceBody(trace));
        } catch (err) {
          // Spans the agent sent that the ingest schema refuses must not cost the case its trace.
          if (!(err instanceof ValidationError)) throw err;
          deps.logger.warn({ run_id: runId, case_index: trace.key.caseIndex, issues: err.issues.slice(0, 5) }, 'agent spans refused; case trace written without them');
          await deps.collector.ingestTrace(run.project_id, caseTraceBody(trace, false));
        }
      };
      // Every trace at once (the write path groups them into one insert), and all scores in one insert.
      await Promise.all([...traces.map(writeTrace), deps.analytics.writeScores(run.project_id, traces.flatMap(caseScores))]);
    },

    async unlinkCaseTraces({ runId, trials }) {
      await runs.unlinkTraces(runId, trials);
    },

    async recordCaseResult(record) {
      const last = record.calls.at(-1);
      const trial: TrialRecord = {
        status: record.status,
        details: record.details,
        avg_score: record.avgScore,
        passed: record.passed,
        duration_ms: Math.max(0, record.endedAt - record.startedAt),
        latency_ms: last ? record.calls.reduce((sum, c) => sum + (c.endedAt - c.startedAt), 0) : null,
        output: last?.reply?.output ?? null,
        tool_calls: last?.reply?.tool_calls ?? null,
        usage: last?.reply?.usage ?? null,
        approval: record.approval ?? null,
        error: record.error ?? null,
        // The run writes the trace next (in a batch); it unlinks it if that fails.
        trace_id: caseTraceId(record),
      };
      await runs.recordTrial(record.runId, record.caseIndex, record.trial, trial, { started_ms: record.startedAt, ended_ms: record.endedAt, calls: record.calls });
    },

    async markRun(runId, status) {
      await runs.setStatus(runId, status);
    },

    async cancelPendingCases(runId, caseIndex) {
      await runs.cancelPending(runId, caseIndex);
    },

    async finishRun(runId, status, error) {
      try {
        await runs.finish(runId, status, error);
      } catch (err) {
        deps.logger.warn({ run_id: runId, err: errorMessage(err) }, 'finishing run failed; retrying');
        throw err;
      }
    },
  };
}
