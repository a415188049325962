import { agentCallBody, caseSessionId } from '../core/agents/agent-body.js';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { errorMessage, isInfrastructureFailure } from '../core/errors.js';
import { anyReadsTrace } from '../core/scoring/reads-trace.js';
import type { RunCase, TrialRecord } from '../core/model/eval-run.js';
import type { RunForWorker } from '../core/store/runs.js';
import { aggregateScores, casePasses, runScorers } from '../core/scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../core/scoring/scorer.js';
import type { ScoreDetail, ScorerRef } from '../core/model/eval-case.js';
import { isJudgeScorer } from '../core/judges/scorers.js';
import { LLM_CALL_RETRY, withRetries } from '../core/judges/retry.js';
import { ProviderError } from '../core/providers/types.js';
import { projectRegistry } from '../core/scoring/http-scorer.js';
import { AgentCallError, callAgent } from '../core/agents/agent-call.js';
import type { AgentCall, CaseRecord, CaseRun, TrialEnd } from './activity-types.js';
import type { ActivityDeps } from './activities.js';
import type { ApprovalDecision } from './contract.js';
import type { LlmMessage } from '../core/model/messages.js';
import { judgeRef, latencyOf, scoreInputFor } from './judge-activity.js';
import { caseTraceId, traceparentFor } from './case-trace.js';
import { untilStoreAnswers } from './store-wait.js';
import { createTrialTraces } from './trial-trace.js';

type ScoreInputOf = Omit<ScoreInput, 'config'> | undefined;

/**
 * The I/O steps of one case trial, shared by the activities of both trial paths (activities.ts):
 * reading the run and case, calling the agent, scoring an answer, storing a result. None of them
 * decides what the trial does next: the workflow does (case-trial.ts).
 */
export function createTrialSteps(deps: ActivityDeps) {
  const { runs } = deps;
  const traces = createTrialTraces({ traces: deps.analytics, logger: deps.logger });

  /**
   * The run and case as stored. A metadata store that is down is waited out here (up to
   * STORE_WAIT_MS) instead of spending the agent call's few retries on an outage.
   */
  async function runAndCase(runId: string, caseIndex: number, trial?: number) {
    const [run, runCase, recorded] = await untilStoreAnswers(
      () => Promise.all([runs.forWorker(runId), runs.getCase(runId, caseIndex), trial === undefined ? null : runs.recordedTrial(runId, caseIndex, trial)]),
      { logger: deps.logger, store: 'metadata store', fields: { run_id: runId } },
    );
    if (!run || !runCase) throw ApplicationFailure.nonRetryable(`run ${runId} case ${caseIndex} no longer exists`, 'RunGone');
    return { run, runCase, recorded };
  }

  /** The scorers of a run's project: the process's, plus its HTTP custom scorers when the case names one. */
  async function scorersOf(run: RunForWorker, runCase: RunCase): Promise<ScorerRegistry> {
    const custom = deps.customScorers;
    if (!custom || runCase.scorers.every((ref) => deps.scorers.get(ref.name))) return deps.scorers;
    return projectRegistry(deps.scorers, custom.store, run.project_id, { timeoutMs: custom.timeoutMs, fetch: deps.fetch });
  }

  /**
   * The agent called once for the trial (`call` 1 after an approval, with the person's `grant`);
   * a conversation's turn gives its `turn`, the history so far in `messages` and the turn's `input`.
   */
  async function callCaseAgent(
    run: RunForWorker,
    runCase: RunCase,
    input: Pick<CaseRun, 'runId' | 'caseIndex' | 'trial'> & { call: number; grant?: ApprovalDecision },
    conversation?: { turn: number; messages: LlmMessage[]; input: unknown },
  ): Promise<AgentCall> {
    const { runId, caseIndex, trial, call, grant } = input;
    const agent = await deps.agents.resolveForCall(run.project_id, run.agent_id);
    if (!agent) throw ApplicationFailure.nonRetryable(`agent ${run.agent_id} no longer exists`, 'AgentGone');
    const key = { runId, caseIndex, trial };
    const single = agentCallBody({
      input: conversation ? conversation.input : runCase.input,
      caseName: runCase.name,
      expected: runCase.expected,
      runId,
      agentVersion: run.agent_version,
      traceId: caseTraceId(key),
      trial,
      sessionId: caseSessionId(runId, caseIndex, trial),
      ...(grant ? { approval: { approved: grant.approved, comment: grant.comment ?? null } } : {}),
    });
    const body = conversation ? { ...single, turn: conversation.turn, messages: conversation.messages } : single;
    try {
      const signal = Context.current().cancellationSignal;
      const result = await callAgent(agent, body, { timeoutMs: run.config.timeout_ms, traceparent: traceparentFor(key, call), signal, fetch: deps.fetch });
      return { startedAt: result.startedAt, endedAt: result.endedAt, reply: result.reply, ...(conversation ? { turn: conversation.turn } : {}) };
    } catch (err) {
      if (err instanceof AgentCallError) {
        throw err.retryable ? ApplicationFailure.retryable(err.message, 'AgentCallFailed') : ApplicationFailure.nonRetryable(err.message, 'AgentReplyInvalid');
      }
      throw err;
    }
  }

  /** The case's LLM judges: the scorers it names that are judges of this process. */
  const judgesOf = (runCase: RunCase) => runCase.scorers.filter((ref) => isJudgeScorer(deps.scorers.get(ref.name))).map((ref) => ref.name);

  /**
   * What the case's scorers see of the trial: its last answer and its trace, read from the store
   * (after it settled) when one of `refs` reads the trace, else the agent's own spans only.
   */
  async function scoreInput(run: RunForWorker, runCase: RunCase, caseRun: CaseRun, registry: ScorerRegistry, refs: readonly ScorerRef[]) {
    if (!caseRun.calls.at(-1)?.reply) return undefined;
    return scoreInputFor(runCase, caseRun, await traces.traceFor(run, runCase, caseRun, anyReadsTrace(registry, refs)));
  }

  /**
   * A judge with no verdict from the LLM call activity, judged in place with the same budget and
   * records and the LLM call policy in process (scoreCase of trials started before the patch).
   */
  async function judgeInPlace(run: RunForWorker, caseRun: CaseRun, ref: ScorerRef, input: ScoreInputOf, signal: AbortSignal): Promise<ScoreDetail> {
    try {
      return await withRetries(() => judgeRef(deps, run, caseRun, ref, input, signal), LLM_CALL_RETRY, signal);
    } catch (err) {
      if (signal.aborted || (isInfrastructureFailure(err) && !(err instanceof ProviderError))) throw err;
      return { score: 0, reason: `scorer error: ${errorMessage(err)}`, evidence: [] };
    }
  }

  /**
   * The trial's last answer scored with every scorer of its case, the judges' verdicts given in
   * `judged`; a judge without one is judged in place when `inPlace` is set, else refused.
   */
  async function score(run: RunForWorker, runCase: RunCase, caseRun: CaseRun, judged: Record<string, ScoreDetail> = {}, inPlace = false): Promise<CaseRecord> {
    const signal = Context.current().cancellationSignal;
    const registry = await scorersOf(run, runCase);
    const given = (name: string) => Object.hasOwn(judged, name);
    const unjudged = runCase.scorers.filter((ref) => !given(ref.name) && isJudgeScorer(registry.get(ref.name)));
    if (unjudged.length && !inPlace)
      throw ApplicationFailure.nonRetryable(`no verdict of ${unjudged.map((ref) => ref.name).join(', ')}`, 'JudgeVerdictMissing');
    const others = runCase.scorers.filter((ref) => !given(ref.name) && !unjudged.includes(ref));
    const input = await scoreInput(run, runCase, caseRun, registry, [...others, ...unjudged]);
    if (!input) throw ApplicationFailure.nonRetryable('no agent answer to score', 'NothingToScore');
    const [ran, judgedHere] = await Promise.all([
      runScorers(registry, others, input, signal),
      Promise.all(unjudged.map(async (ref) => [ref.name, await judgeInPlace(run, caseRun, ref, input, signal)] as const)),
    ]);
    const found: Record<string, ScoreDetail> = { ...ran, ...Object.fromEntries(judgedHere), ...judged };
    // In the case's order of scorers, as the rules-only path gives them.
    const details = Object.fromEntries(runCase.scorers.filter((ref) => Object.hasOwn(found, ref.name)).map((ref) => [ref.name, found[ref.name]]));
    const passed = casePasses(details, runCase.scorers, runCase.min_score ?? run.min_score);
    const avgScore = aggregateScores(details, runCase.scorers, run.aggregation);
    return { ...caseRun, endedAt: Date.now(), details, avgScore, passed, status: passed ? 'passed' : 'failed' };
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
      ...(record.conversation ? { conversation: record.conversation } : {}),
    };
    await runs.recordTrial(record.runId, record.caseIndex, record.trial, trial, {
      started_ms: record.startedAt,
      ended_ms: record.endedAt,
      calls: record.calls,
    });
  }

  /** A scored trial stored, or handed back `not-recorded` when the metadata store is down (the workflow stores it). */
  async function store(record: CaseRecord): Promise<TrialEnd> {
    try {
      await recordTrial(record);
      return { tag: 'recorded', status: record.status };
    } catch (err) {
      if (!isInfrastructureFailure(err)) throw err;
      deps.logger.warn({ run_id: record.runId, case_index: record.caseIndex, err: errorMessage(err) }, 'recording the trial failed; the workflow records it');
      return { tag: 'not-recorded', record };
    }
  }

  return { runAndCase, scorersOf, judgeInPlace, traces, callCaseAgent, judgesOf, scoreInput, score, recordTrial, store };
}
