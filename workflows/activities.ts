import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Collector } from '../collector/index.js';
import { errorMessage, isInfrastructureFailure, ValidationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import type { RunStore } from '../core/store/runs.js';
import type { ScorerRegistry } from '../core/scoring/scorer.js';
import { JudgeUnavailableError } from '../core/judges/scorers.js';
import { ProviderError } from '../core/providers/types.js';
import type { CustomScorerRecord } from '../core/model/custom-scorer.js';
import type { JudgeStore, StoredJudgeCall } from '../core/store/judges.js';
import type { AgentCall, CaseRun, EvalActivities } from './activity-types.js';
import type { RunCase } from '../core/model/eval-run.js';
import type { PriceJudgeCall } from '../core/judges/run-judge.js';
import { judgeRef } from './judge-activity.js';
import { anyReadsTrace } from '../core/scoring/reads-trace.js';
import { judgeSpans } from './judge-trace.js';
import { TRIAL_NOT_RECORDED } from './contract.js';
import type { EgressFetch } from '../core/egress/fetch.js';
import { caseScores, caseTraceBody, type CaseTraceInput } from './case-trace.js';
import { createTrialSteps } from './trial-steps.js';
import { createConversationSteps } from './conversation-steps.js';
import type { SimulatorActivityDeps } from './simulator-activity.js';

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
  /** Scores written with the case traces; the case's trace read back for its scorers (trial-trace.ts). */
  analytics: Pick<AnalyticsStore, 'writeScores' | 'getTrace'>;
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
  /** The simulated user's providers (the judges'); without them a simulated case's trial fails saying so. */
  simulator?: SimulatorActivityDeps;
}

/** All I/O of a run (STYLE 3: created with their dependencies). */
export function createActivities(deps: ActivityDeps): EvalActivities {
  const { runs } = deps;
  const steps = createTrialSteps(deps);
  const conversation = createConversationSteps(deps, steps);
  /** The call a trial recorded by an earlier attempt last made (its result the engine did not keep). */
  const lastCall = (recorded: { calls: unknown[] }, startedAt: number) => (recorded.calls.at(-1) as AgentCall | undefined) ?? { startedAt, endedAt: startedAt };
  /**
   * A case whose scorers are all rules that do not read the trace is scored where its agent
   * answered (quick and local: one workflow hop less). Trajectory scorers wait for the trace to
   * settle, which is scoreTrial's to do (its time-out and retries are scoring's, not the agent call's).
   */
  const rulesOnly = (runCase: RunCase) =>
    runCase.scorers.every((ref) => deps.scorers.get(ref.name)?.kind === 'rule') && !anyReadsTrace(deps.scorers, runCase.scorers);
  /** The trial as scored in place: its calls so far and the one just made. */
  const answered = (input: CaseRun, made: AgentCall): CaseRun => ({
    runId: input.runId,
    caseIndex: input.caseIndex,
    trial: input.trial,
    startedAt: input.startedAt,
    calls: [...input.calls, made],
    approval: input.approval,
  });

  return {
    ...conversation,

    async callCaseAgent(input) {
      const { runId, caseIndex, trial, call } = input;
      const { run, runCase, recorded } = await steps.runAndCase(runId, caseIndex, trial);
      // Recorded by an earlier attempt (a worker that died after recording, or a workflow task the
      // engine refused because a signal came in while it ran): the agent is not called again.
      if (recorded) return { tag: 'recorded', call: lastCall(recorded, input.startedAt), status: recorded.status };
      // A conversation goes turn by turn (workflows/conversation-trial.ts).
      if (runCase.turns || runCase.simulation) return { tag: 'conversation' };
      const made = await steps.callCaseAgent(run, runCase, input);
      if (call === 0 && made.reply?.approval) return { tag: 'asks-approval', call: made };
      if (!rulesOnly(runCase)) return { tag: 'to-score', call: made, judges: steps.judgesOf(runCase) };
      // Rules only: scored right here (quick and local: one workflow hop less per case).
      try {
        const record = await steps.score(run, runCase, answered(input, made));
        return { call: made, ...(await steps.store(record)) };
      } catch (err) {
        // The agent answered: that is not lost. scoreTrial scores and records it with its own retries.
        deps.logger.warn({ run_id: runId, case_index: caseIndex, err: errorMessage(err) }, 'scoring in place failed; leaving it to scoreTrial');
        return { tag: 'to-score', call: made, judges: [] };
      }
    },

    async scoreTrial({ judged = {}, ...caseRun }) {
      const { run, runCase } = await steps.runAndCase(caseRun.runId, caseRun.caseIndex);
      const unjudged = steps.judgesOf(runCase).filter((name) => !Object.hasOwn(judged, name));
      if (unjudged.length) return { tag: 'to-judge', judges: unjudged };
      return steps.store(await steps.score(run, runCase, caseRun, judged));
    },

    async executeAgent(input) {
      const { runId, caseIndex, trial, call } = input;
      const { run, runCase, recorded } = await steps.runAndCase(runId, caseIndex, trial);
      if (recorded) return { call: lastCall(recorded, input.startedAt), outcome: recorded.status };
      const made = await steps.callCaseAgent(run, runCase, input);
      const waitsForApproval = call === 0 && made.reply?.approval;
      if (waitsForApproval || !rulesOnly(runCase)) {
        // The workflow calls each LLM judge as its own activity (SPEC: LLM call), then scoreCase.
        const judges = runCase.scorers.filter((ref) => deps.scorers.get(ref.name)?.kind === 'judge').map((ref) => ref.name);
        return judges.length && !waitsForApproval ? { call: made, judges } : { call: made };
      }
      try {
        const record = await steps.score(run, runCase, answered(input, made));
        await steps.recordTrial(record);
        return { call: made, outcome: record.status };
      } catch (err) {
        // The agent answered: that is not lost. scoreCase scores and records it with its own retries.
        deps.logger.warn({ run_id: runId, case_index: caseIndex, err: errorMessage(err) }, 'scoring in place failed; leaving it to scoreCase');
        return { call: made };
      }
    },

    async scoreCase({ judged, ...caseRun }) {
      const { run, runCase } = await steps.runAndCase(caseRun.runId, caseRun.caseIndex);
      const record = await steps.score(run, runCase, caseRun, judged, true);
      try {
        await steps.recordTrial(record);
      } catch (err) {
        if (!isInfrastructureFailure(err)) throw err;
        // Scored, not stored: the workflow stores it, retrying as long as the store is down.
        throw ApplicationFailure.create({
          message: `recording the trial failed: ${errorMessage(err)}`,
          type: TRIAL_NOT_RECORDED,
          nonRetryable: true,
          details: [record],
        });
      }
      return record.status;
    },

    async callJudge(input) {
      const { scorer, ...caseRun } = input;
      const { run, runCase } = await steps.runAndCase(caseRun.runId, caseRun.caseIndex);
      const ref = runCase.scorers.find((r) => r.name === scorer);
      if (!ref) throw ApplicationFailure.nonRetryable(`'${scorer}' is not a scorer of case ${caseRun.caseIndex}`, 'JudgeUnavailable');
      try {
        const input = await steps.scoreInput(run, runCase, caseRun, deps.scorers, [ref]);
        return await judgeRef(deps, run, caseRun, ref, input, Context.current().cancellationSignal);
      } catch (err) {
        if (err instanceof ProviderError) {
          // The provider's Retry-After, when it sent one, sets the wait before the next attempt.
          throw ApplicationFailure.create({
            message: err.message,
            type: err.retryable ? 'LlmCallFailed' : 'LlmRequestRefused',
            nonRetryable: !err.retryable,
            nextRetryDelay: err.retryAfterMs,
          });
        }
        if (err instanceof JudgeUnavailableError) throw ApplicationFailure.nonRetryable(err.message, 'JudgeUnavailable');
        throw err;
      }
    },

    async emitCaseTraces({ runId, trials }) {
      const [run, stored, judgeCalls] = await Promise.all([
        runs.forWorker(runId),
        runs.trialsForTrace(runId, trials),
        deps.judgeCalls?.callsForTrials(runId, trials) ?? [],
      ]);
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
          deps.logger.warn(
            { run_id: runId, case_index: trace.key.caseIndex, issues: err.issues.slice(0, 5) },
            'agent spans refused; case trace written without them',
          );
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
      await steps.recordTrial(record);
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
