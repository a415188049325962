import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { caseSessionId } from '../core/agents/agent-body.js';
import {
  conversationRecordOf,
  conversationVerdict,
  endScoreInput,
  nextUserStep,
  simulatedStep,
  turnResultOf,
  turnViewOf,
  type ConversationScoring,
  type UserMove,
} from '../core/conversations/conversation-loop.js';
import { endScorers, turnScoring } from '../core/evals/conversation-scoring.js';
import { conversationMessages } from '../core/conversations/view.js';
import type { ScoreDetail, ScorerRef } from '../core/model/eval-case.js';
import type { RunCase } from '../core/model/eval-run.js';
import { runScorers } from '../core/scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../core/scoring/scorer.js';
import { isJudgeScorer } from '../core/judges/scorers.js';
import type { RunForWorker, StoredTurn } from '../core/store/runs.js';
import type { AgentCall, EvalActivities, TurnDone, UserTurnStep } from './activity-types.js';
import type { ActivityDeps } from './activities.js';
import { caseTraceId } from './case-trace.js';
import { latencyOf } from './judge-activity.js';
import { simulateUserActivity, type SimulatorActivityDeps } from './simulator-activity.js';
import type { createTrialSteps } from './trial-steps.js';

/**
 * The activities of a conversation trial (workflows/conversation-trial.ts decides; these do the
 * I/O). The store is the conversation's memory: each step reads the turns recorded so far, so a
 * turn recorded is never played again after a restart, and the agent's history is what the API shows.
 * The rules are the local loop's (core/conversations/conversation-loop.ts: nextUserStep,
 * simulatedStep, turnResultOf, turnViewOf, conversationVerdict), so a managed and a local run of
 * the same turns record, show and judge them the same.
 */

/** A step of the loop as this activity answers it (the simulated user is asked here, not in the workflow). */
const userTurnOf = (step: UserMove): UserTurnStep => (step.tag === 'end' ? { tag: 'end', ended: step.ended } : { tag: 'say', message: step.message });

/** How a case's turns and trial are judged: its minimum, else the run's, and the run's aggregation. */
const scoringOf = (run: RunForWorker, runCase: RunCase): ConversationScoring => ({
  minScore: runCase.min_score ?? run.min_score,
  aggregation: run.aggregation,
});

/** How often a conversation step tells the engine it is alive (its heartbeat time-out is 10 s: activity-options.ts). */
const HEARTBEAT_MS = 2000;

/** Runs a step while beating: a worker that dies mid-step is noticed in seconds, and a cancel reaches the step. */
async function beating<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/** Recorded turns that were answered (a failed turn ends the conversation; it is not history). */
const answered = (turns: StoredTurn[]) => turns.filter((t) => t.error === null);

export function createConversationSteps(deps: ActivityDeps & { simulator?: SimulatorActivityDeps }, steps: ReturnType<typeof createTrialSteps>) {
  const { runs } = deps;
  const reads = (registry: ScorerRegistry) => (name: string) => registry.get(name)?.readsConversation === true;

  /** Scores `refs` on an answer, LLM judges judged in place (a turn's judges are few; its agent call is not repeated for them). */
  async function scoreWith(
    run: RunForWorker,
    key: { runId: string; caseIndex: number; trial: number },
    registry: ScorerRegistry,
    refs: ScorerRef[],
    input: Omit<ScoreInput, 'config'>,
  ) {
    const signal = Context.current().cancellationSignal;
    const judges = refs.filter((ref) => isJudgeScorer(registry.get(ref.name)));
    const rules = refs.filter((ref) => !judges.includes(ref));
    const caseRun = { ...key, startedAt: 0, calls: [] };
    const [ran, judged] = await Promise.all([
      runScorers(registry, rules, input, signal),
      Promise.all(judges.map(async (ref) => [ref.name, await steps.judgeInPlace(run, caseRun, ref, input, signal)] as const)),
    ]);
    const found: Record<string, ScoreDetail> = { ...ran, ...Object.fromEntries(judged) };
    return Object.fromEntries(refs.filter((ref) => Object.hasOwn(found, ref.name)).map((ref) => [ref.name, found[ref.name]]));
  }

  const notConversation = (runCase: RunCase) => ApplicationFailure.nonRetryable(`case ${runCase.case_index} is not a conversation`, 'CaseChanged');

  const conversationSteps: Pick<EvalActivities, 'conversationUserTurn' | 'callTurnAgent' | 'finishTurn' | 'finishConversation'> = {
    async conversationUserTurn({ runId, caseIndex, trial, turn }) {
      const { run, runCase } = await steps.runAndCase(runId, caseIndex);
      const turns = await runs.turnsOf(runId, caseIndex, trial);
      const recorded = turns.find((t) => t.turn === turn);
      if (recorded) return { tag: 'say', message: recorded.user };
      if (!runCase.turns && !runCase.simulation) throw notConversation(runCase);
      const done = answered(turns);
      const step = nextUserStep(runCase, turn, done);
      if (step.tag !== 'simulate') return userTurnOf(step);
      if (!deps.simulator) throw ApplicationFailure.nonRetryable('this worker has no simulated user (no judge providers given to it)', 'SimulatorUnavailable');
      const outcome = await simulateUserActivity(
        deps.simulator,
        run,
        runCase.name,
        runCase.simulation!,
        { runId, caseIndex, trial, turn, messages: conversationMessages(done.map(turnViewOf)) },
        Context.current().cancellationSignal,
      );
      return outcome.tag === 'stopped' ? outcome : userTurnOf(simulatedStep(outcome.turn));
    },

    async callTurnAgent({ runId, caseIndex, trial, turn, call, message, grant }) {
      const { run, runCase } = await steps.runAndCase(runId, caseIndex);
      const turns = await runs.turnsOf(runId, caseIndex, trial);
      const recorded = turns.find((t) => t.turn === turn);
      // Recorded by an earlier attempt (a worker that died after recording it): the agent is not called again.
      if (recorded) return { tag: 'recorded', calls: turns.filter((t) => t.turn <= turn).reduce((n, t) => n + t.calls.length, 0), error: recorded.error };
      const input = runCase.turns ? runCase.turns[turn - 1]?.input : message;
      const history = [...conversationMessages(answered(turns).map(turnViewOf)), { role: 'user', content: message }];
      const made = await steps.callCaseAgent(run, runCase, { runId, caseIndex, trial, call, grant }, { turn, messages: history, input });
      return { tag: !grant && made.reply?.approval ? 'asks-approval' : 'answered', call: made };
    },

    async finishTurn(done: TurnDone) {
      const { runId, caseIndex, trial, turn, calls } = done;
      const { run, runCase } = await steps.runAndCase(runId, caseIndex);
      const registry = await steps.scorersOf(run, runCase);
      const reply = calls.at(-1)?.reply;
      const { refs, expected } = turnScoring(runCase, turn, reads(registry));
      const key = { runId, caseIndex, trial };
      let details: Record<string, ScoreDetail> = {};
      if (reply && !done.error && refs.length) {
        const input = runCase.turns?.[turn - 1]?.input ?? done.message;
        const trace = await steps.traces.traceFor(run, runCase, { ...key, startedAt: calls[0].startedAt, calls }, false);
        details = await scoreWith(run, key, registry, refs, {
          input,
          output: reply.output,
          expected,
          toolCalls: reply.tool_calls,
          usage: reply.usage,
          latencyMs: latencyOf(calls),
          trace,
          runId,
        });
      }
      const answer = reply && { output: reply.output, toolCalls: reply.tool_calls, usage: reply.usage ?? null, latencyMs: latencyOf(calls) };
      const result = {
        ...turnResultOf({ turn, message: done.message, answer, error: done.error, details, refs }, scoringOf(run, runCase), caseTraceId(key)),
        // What only this path has: a person's decision on the turn, and the time of a call that failed.
        approval: done.approval ?? null,
        latency_ms: calls.length ? latencyOf(calls) : null,
      };
      await runs.recordTurn(runId, caseIndex, trial, result, {
        started_ms: calls[0]?.startedAt ?? Date.now(),
        ended_ms: calls.at(-1)?.endedAt ?? Date.now(),
        calls,
      });
    },

    async finishConversation({ runId, caseIndex, trial, startedAt, ended, error, cancelled }) {
      const { run, runCase, recorded } = await steps.runAndCase(runId, caseIndex, trial);
      if (recorded) return recorded.status;
      const registry = await steps.scorersOf(run, runCase);
      const turns = await runs.turnsOf(runId, caseIndex, trial);
      const calls = turns.flatMap((t) => (t.calls as AgentCall[]).map((c) => ({ ...c, user: t.user })));
      const key = { runId, caseIndex, trial };
      const done = answered(turns);
      const refs = ended && !error && !cancelled && done.length ? endScorers(runCase, reads(registry)) : [];
      let details: Record<string, ScoreDetail> = {};
      if (refs.length && ended) {
        const input = endScoreInput(runCase, done, { sessionId: caseSessionId(runId, caseIndex, trial), ended });
        details = await scoreWith(run, key, registry, refs, { ...input, runId });
      }
      const failure = cancelled ? 'cancelled while running' : (error ?? (ended ? null : 'the conversation did not end'));
      const verdict = conversationVerdict({ runCase, turns, ended, details, endRefs: refs, error: failure }, scoringOf(run, runCase));
      const status = cancelled ? 'cancelled' : verdict.passed ? 'passed' : 'failed';
      const endedAt = Date.now();
      await steps.recordTrial({
        ...key,
        startedAt,
        endedAt,
        calls,
        details,
        avgScore: verdict.avgScore,
        passed: verdict.passed,
        status,
        ...(failure ? { error: failure } : {}),
        conversation: conversationRecordOf(ended, turns),
      });
      return status;
    },
  };
  return {
    conversationUserTurn: (input) => beating(() => conversationSteps.conversationUserTurn(input)),
    callTurnAgent: (input) => beating(() => conversationSteps.callTurnAgent(input)),
    finishTurn: (input) => beating(() => conversationSteps.finishTurn(input)),
    finishConversation: (input) => beating(() => conversationSteps.finishConversation(input)),
  } satisfies typeof conversationSteps;
}
