import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Collector } from '../collector/index.js';
import { errorMessage, isInfrastructureFailure, ValidationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { RunCase, TrialRecord } from '../core/model/eval-run.js';
import type { RunForWorker, RunStore } from '../core/store/postgres/run-store.js';
import { aggregateScores, casePasses, runScorers } from '../core/scoring/run-scorers.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import type { ScoreDetail } from '../core/model/eval-case.js';
import { isJudgeScorer, JudgeUnavailableError } from '../core/judges/scorers.js';
import { LLM_CALL_RETRY, withRetries } from '../core/judges/retry.js';
import { ProviderError } from '../core/providers/types.js';
import { projectRegistry } from '../core/scoring/http-scorer.js';
import type { CustomScorerRecord } from '../core/model/custom-scorer.js';
import type { JudgeStore, StoredJudgeCall } from '../core/store/postgres/judge-store.js';
import type { AgentCall, CaseRecord, CaseRun, EvalActivities } from './activity-types.js';
import type { PriceJudgeCall } from '../core/judges/run-judge.js';
import { judgeRef, latencyOf, scoreInputFor } from './judge-activity.js';
import { judgeSpans } from './judge-trace.js';
import { TRIAL_NOT_RECORDED } from './contract.js';
import { AgentCallError, callAgent } from '../core/agents/agent-call.js';
import type { EgressFetch } from '../core/egress/fetch.js';
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
  /** LLM judges' calls and each run's judge spend (docs/judges.md); without it judges run unrecorded and without a budget. */
  judgeCalls?: JudgeStore;
  /** The price of a judge call: the cost part's price table plugs in here; until then calls have no cost. */
  priceJudgeCall?: PriceJudgeCall;
  /** Projects' HTTP custom scorers (docs/scorers.md). */
  customScorers?: { store: { allForCall(projectId: string): Promise<CustomScorerRecord[]> }; timeoutMs: number };
  /** How agents and custom scorers are called: through the service's egress policy (core/egress). */
  fetch: EgressFetch;
}

/** A trial scored and not stored because the metadata store is unavailable. */
class TrialNotStored extends Error {
  constructor(
    readonly record: CaseRecord,
    cause: unknown,
  ) {
    super(`recording the trial failed: ${errorMessage(cause)}`, { cause });
  }
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
  async function runAndCase(runId: string, caseIndex: number, trial?: number) {
    const giveUpAt = Date.now() + STORE_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const [run, runCase, recorded] = await Promise.all([
          runs.forWorker(runId),
          runs.getCase(runId, caseIndex),
          trial === undefined ? null : runs.recordedTrial(runId, caseIndex, trial),
        ]);
        if (!run || !runCase) throw ApplicationFailure.nonRetryable(`run ${runId} case ${caseIndex} no longer exists`, 'RunGone');
        return { run, runCase, recorded };
      } catch (err) {
        if (!isInfrastructureFailure(err) || Date.now() > giveUpAt) throw err;
        deps.logger.warn({ run_id: runId, attempt, err: errorMessage(err) }, 'metadata store unavailable; waiting');
        await Context.current().sleep(Math.min(5_000, 200 * 2 ** attempt));
      }
    }
  }

  /** The scorers of a run's project: the process's, plus its HTTP custom scorers when the case names one. */
  async function scorersOf(run: RunForWorker, runCase: RunCase): Promise<ScorerRegistry> {
    const custom = deps.customScorers;
    if (!custom || runCase.scorers.every((ref) => deps.scorers.get(ref.name))) return deps.scorers;
    return projectRegistry(deps.scorers, custom.store, run.project_id, { timeoutMs: custom.timeoutMs, fetch: deps.fetch });
  }

  /**
   * A judge scoreCase found without a verdict from the LLM call activity (a workflow that did not
   * call it): judged here, with the same budget and records, and the LLM call policy in process.
   */
  async function judgeInPlace(run: RunForWorker, runCase: RunCase, caseRun: CaseRun, name: string, signal: AbortSignal): Promise<ScoreDetail> {
    const ref = runCase.scorers.find((r) => r.name === name)!;
    try {
      return await withRetries(() => judgeRef(deps, run, runCase, caseRun, ref, signal), LLM_CALL_RETRY, signal);
    } catch (err) {
      if (signal.aborted || (isInfrastructureFailure(err) && !(err instanceof ProviderError))) throw err;
      return { score: 0, reason: `scorer error: ${errorMessage(err)}`, evidence: [] };
    }
  }

  /** Scores the trial's last answer with every scorer of its case (judges' verdicts given in `judged`), then records it. */
  async function scoreAndRecord(run: RunForWorker, runCase: RunCase, caseRun: CaseRun, judged: Record<string, ScoreDetail> = {}): Promise<CaseRecord> {
    const input = scoreInputFor(runCase, caseRun);
    if (!input) throw ApplicationFailure.nonRetryable('no agent answer to score', 'NothingToScore');
    const signal = Context.current().cancellationSignal;
    const registry = await scorersOf(run, runCase);
    const given = (name: string) => Object.hasOwn(judged, name);
    const unjudged = runCase.scorers.filter((ref) => !given(ref.name) && isJudgeScorer(registry.get(ref.name))).map((ref) => ref.name);
    const others = runCase.scorers.filter((ref) => !given(ref.name) && !unjudged.includes(ref.name));
    const [ran, inPlace] = await Promise.all([
      runScorers(registry, others, input, signal),
      Promise.all(unjudged.map(async (name) => [name, await judgeInPlace(run, runCase, caseRun, name, signal)] as const)),
    ]);
    const found: Record<string, ScoreDetail> = { ...ran, ...Object.fromEntries(inPlace), ...judged };
    // In the case's order of scorers, as the rules-only path gives them.
    const details = Object.fromEntries(runCase.scorers.filter((ref) => Object.hasOwn(found, ref.name)).map((ref) => [ref.name, found[ref.name]]));
    const passed = casePasses(details, runCase.scorers, runCase.min_score ?? run.min_score);
    const avgScore = aggregateScores(details, runCase.scorers, run.aggregation);
    const record: CaseRecord = { ...caseRun, endedAt: Date.now(), details, avgScore, passed, status: passed ? 'passed' : 'failed' };
    try {
      await recordTrial(record);
    } catch (err) {
      if (!isInfrastructureFailure(err)) throw err;
      throw new TrialNotStored(record, err);
    }
    return record;
  }

  /** Stores a trial's result (first write wins: a trial is recorded once). */
  async function recordTrial(record: CaseRecord) {
    const last = record.calls.at(-1);
    const trial: TrialRecord = {
      status: record.status,
      details: record.details,
      avg_score: record.avgScore,
      passed: record.passed,
      duration_ms: Math.max(0, record.endedAt - record.startedAt),
      latency_ms: last ? latencyOf(record.calls) : null,
      output: last?.reply?.output ?? null,
      tool_calls: last?.reply?.tool_calls ?? null,
      usage: last?.reply?.usage ?? null,
      approval: record.approval ?? null,
      error: record.error ?? null,
      // The run writes the trace next (in a batch); it unlinks it if that fails.
      trace_id: caseTraceId(record),
    };
    await runs.recordTrial(record.runId, record.caseIndex, record.trial, trial, { started_ms: record.startedAt, ended_ms: record.endedAt, calls: record.calls });
  }

  return {
    async executeAgent(input) {
      const { runId, caseIndex, trial, call, grant } = input;
      const { run, runCase, recorded } = await runAndCase(runId, caseIndex, trial);
      if (recorded) {
        // Recorded by an earlier attempt whose result the engine did not keep (a worker that died
        // after recording, or a workflow task the engine refused because a signal came in while
        // it ran): the agent is not called again.
        const last = recorded.calls.at(-1) as AgentCall | undefined;
        return { call: last ?? { startedAt: input.startedAt, endedAt: input.startedAt }, outcome: recorded.status };
      }
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
        ...(grant ? { approval: { approved: grant.approved, comment: grant.comment ?? null } } : {}),
      };
      let made: AgentCall;
      try {
        const signal = Context.current().cancellationSignal;
        const result = await callAgent(agent, body, { timeoutMs: run.config.timeout_ms, traceparent: traceparentFor(key, call), signal, fetch: deps.fetch });
        made = { startedAt: result.startedAt, endedAt: result.endedAt, reply: result.reply };
      } catch (err) {
        if (err instanceof AgentCallError) {
          throw err.retryable ? ApplicationFailure.retryable(err.message, 'AgentCallFailed') : ApplicationFailure.nonRetryable(err.message, 'AgentReplyInvalid');
        }
        throw err;
      }
      const waitsForApproval = call === 0 && made.reply?.approval;
      if (waitsForApproval || !runCase.scorers.every((ref) => deps.scorers.get(ref.name)?.kind === 'rule')) {
        // The workflow calls each LLM judge as its own activity (SPEC: LLM call), then scoreCase.
        const judges = runCase.scorers.filter((ref) => deps.scorers.get(ref.name)?.kind === 'judge').map((ref) => ref.name);
        return judges.length && !waitsForApproval ? { call: made, judges } : { call: made };
      }
      try {
        const record = await scoreAndRecord(run, runCase, { ...key, startedAt: input.startedAt, calls: [...input.calls, made], approval: input.approval });
        return { call: made, outcome: record.status };
      } catch (err) {
        // The agent answered: that is not lost. scoreCase scores and records it with its own retries.
        deps.logger.warn({ run_id: runId, case_index: caseIndex, err: errorMessage(err) }, 'scoring in place failed; leaving it to scoreCase');
        return { call: made };
      }
    },

    async callJudge(input) {
      const { scorer, ...caseRun } = input;
      const { run, runCase } = await runAndCase(caseRun.runId, caseRun.caseIndex);
      const ref = runCase.scorers.find((r) => r.name === scorer);
      if (!ref) throw ApplicationFailure.nonRetryable(`'${scorer}' is not a scorer of case ${caseRun.caseIndex}`, 'JudgeUnavailable');
      try {
        return await judgeRef(deps, run, runCase, caseRun, ref, Context.current().cancellationSignal);
      } catch (err) {
        if (err instanceof ProviderError) {
          // The provider's Retry-After, when it sent one, sets the wait before the next attempt.
          throw ApplicationFailure.create({ message: err.message, type: err.retryable ? 'LlmCallFailed' : 'LlmRequestRefused', nonRetryable: !err.retryable, nextRetryDelay: err.retryAfterMs });
        }
        if (err instanceof JudgeUnavailableError) throw ApplicationFailure.nonRetryable(err.message, 'JudgeUnavailable');
        throw err;
      }
    },

    async scoreCase({ judged, ...caseRun }) {
      const { run, runCase } = await runAndCase(caseRun.runId, caseRun.caseIndex);
      try {
        return (await scoreAndRecord(run, runCase, caseRun, judged)).status;
      } catch (err) {
        if (!(err instanceof TrialNotStored)) throw err;
        // Scored, not stored: the workflow stores it, retrying as long as the store is down.
        throw ApplicationFailure.create({ message: err.message, type: TRIAL_NOT_RECORDED, nonRetryable: true, details: [err.record] });
      }
    },

    async emitCaseTraces({ runId, trials }) {
      const [run, stored, judgeCalls] = await Promise.all([runs.forWorker(runId), runs.trialsForTrace(runId, trials), deps.judgeCalls?.callsForTrials(runId, trials) ?? []]);
      const callsOf = new Map<string, StoredJudgeCall[]>();
      for (const c of judgeCalls) callsOf.set(`${c.case_index}:${c.trial}`, [...(callsOf.get(`${c.case_index}:${c.trial}`) ?? []), c]);
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
      /** The case's trace body, with a generation span per call its judges made. */
      const bodyOf = (trace: CaseTraceInput, withAgentSpans = true) => {
        const body = caseTraceBody(trace, withAgentSpans);
        const calls = callsOf.get(`${trace.key.caseIndex}:${trace.key.trial}`);
        if (calls) (body.spans as unknown[]).push(...judgeSpans(trace.key, calls, trace.details));
        return body;
      };
      const writeTrace = async (trace: CaseTraceInput) => {
        try {
          await deps.collector.ingestTrace(run.project_id, bodyOf(trace));
        } catch (err) {
          // Spans the agent sent that the ingest schema refuses must not cost the case its trace.
          if (!(err instanceof ValidationError)) throw err;
          deps.logger.warn({ run_id: runId, case_index: trace.key.caseIndex, issues: err.issues.slice(0, 5) }, 'agent spans refused; case trace written without them');
          await deps.collector.ingestTrace(run.project_id, bodyOf(trace, false));
        }
      };
      // Every trace at once (the write path groups them into one insert), and all scores in one insert.
      await Promise.all([...traces.map(writeTrace), deps.analytics.writeScores(run.project_id, traces.flatMap(caseScores))]);
    },

    async unlinkCaseTraces({ runId, trials }) {
      await runs.unlinkTraces(runId, trials);
    },

    async recordCaseResult(record) {
      await recordTrial(record);
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
