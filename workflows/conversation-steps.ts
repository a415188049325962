import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { conversationEnd } from '../core/conversations/stop.js';
import { caseSessionId } from '../core/agents/agent-body.js';
import { conversationShortfall, endScorers, turnScoring } from '../core/evals/conversation-scoring.js';
import type { ConversationTurnView } from '../core/model/conversation.js';
import { conversationMessages, conversationViewOf, turnText } from '../core/conversations/view.js';
import type { ScoreDetail, ScorerRef } from '../core/model/eval-case.js';
import type { RunCase, TurnResult } from '../core/model/eval-run.js';
import { aggregateScores, casePasses, runScorers } from '../core/scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../core/scoring/scorer.js';
import { isJudgeScorer } from '../core/judges/scorers.js';
import type { RunForWorker, StoredTurn } from '../core/store/runs.js';
import { outputText } from '../core/scoring/rules/support.js';
import type { AgentCall, EvalActivities, TurnDone } from './activity-types.js';
import type { ActivityDeps } from './activities.js';
import { caseTraceId } from './case-trace.js';
import { latencyOf } from './judge-activity.js';
import { simulateUserActivity, type SimulatorActivityDeps } from './simulator-activity.js';
import type { createTrialSteps } from './trial-steps.js';

/**
 * The activities of a conversation trial (workflows/conversation-trial.ts decides; these do the
 * I/O). The store is the conversation's memory: each step reads the turns recorded so far, so a
 * turn recorded is never played again after a restart, and the agent's history is what the API shows.
 */

/** A recorded turn as conversation-level scorers see it. */
function turnView(t: StoredTurn): ConversationTurnView {
  return {
    turn: t.turn,
    user: t.user,
    assistant: outputText(t.output),
    output: t.output,
    toolCalls: t.tool_calls ?? [],
    ...(t.usage ? { usage: t.usage } : {}),
    latencyMs: t.latency_ms ?? 0,
    ...(t.trace_id ? { traceId: t.trace_id } : {}),
    scores: t.details,
  };
}

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
      if (runCase.turns)
        return turn > runCase.turns.length ? { tag: 'end', ended: 'script_done' } : { tag: 'say', message: turnText(runCase.turns[turn - 1].input) };
      const simulation = runCase.simulation;
      if (!simulation) throw notConversation(runCase);
      const done = answered(turns);
      const ended = conversationEnd(simulation, done.length, done.at(-1)?.output);
      if (ended) return { tag: 'end', ended };
      if (!deps.simulator) throw ApplicationFailure.nonRetryable('this worker has no simulated user (no judge providers given to it)', 'SimulatorUnavailable');
      const outcome = await simulateUserActivity(
        deps.simulator,
        run,
        runCase.name,
        simulation,
        { runId, caseIndex, trial, turn, messages: conversationMessages(done.map(turnView)) },
        Context.current().cancellationSignal,
      );
      if (outcome.tag === 'stopped') return outcome;
      return outcome.turn.stop ? { tag: 'end', ended: outcome.turn.stop } : { tag: 'say', message: outcome.turn.message };
    },

    async callTurnAgent({ runId, caseIndex, trial, turn, call, message, grant }) {
      const { run, runCase } = await steps.runAndCase(runId, caseIndex);
      const turns = await runs.turnsOf(runId, caseIndex, trial);
      const recorded = turns.find((t) => t.turn === turn);
      // Recorded by an earlier attempt (a worker that died after recording it): the agent is not called again.
      if (recorded) return { tag: 'recorded', calls: turns.filter((t) => t.turn <= turn).reduce((n, t) => n + t.calls.length, 0), error: recorded.error };
      const input = runCase.turns ? runCase.turns[turn - 1]?.input : message;
      const history = [...conversationMessages(answered(turns).map(turnView)), { role: 'user', content: message }];
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
      const passed = !done.error && Boolean(reply) && casePasses(details, refs, runCase.min_score ?? run.min_score);
      const result: TurnResult = {
        turn,
        user: done.message,
        output: reply?.output ?? null,
        tool_calls: reply?.tool_calls ?? null,
        usage: reply?.usage ?? null,
        latency_ms: calls.length ? latencyOf(calls) : null,
        details,
        avg_score: refs.length ? aggregateScores(details, refs, run.aggregation) : null,
        passed,
        approval: done.approval ?? null,
        error: done.error ?? (reply ? null : 'the agent did not answer'),
        trace_id: caseTraceId(key),
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
      const last = answered(turns).at(-1);
      const refs = ended && !error && !cancelled && last ? endScorers(runCase, reads(registry)) : [];
      let details: Record<string, ScoreDetail> = {};
      if (refs.length && last) {
        const views = answered(turns).map(turnView);
        const sim = runCase.simulation;
        const conversation = conversationViewOf(views, {
          sessionId: caseSessionId(runId, caseIndex, trial),
          ended: ended!,
          ...(sim ? { persona: sim.persona, goal: sim.goal, facts: sim.facts, maxTurns: sim.max_turns } : {}),
        });
        details = await scoreWith(run, key, registry, refs, {
          input: turns[0].user,
          output: last.output,
          expected: runCase.expected,
          toolCalls: turns.flatMap((t) => t.tool_calls ?? []),
          usage: last.usage ?? undefined,
          latencyMs: latencyOf(calls),
          conversation,
          runId,
        });
      }
      // Every score of the trial counts in its average: the case-level ones and each scored turn's.
      const all: Record<string, ScoreDetail> = { ...details };
      for (const t of turns) for (const [name, d] of Object.entries(t.details)) all[`turn ${t.turn}: ${name}`] = d;
      const minScore = runCase.min_score ?? run.min_score;
      const shortfall = conversationShortfall(runCase, turns, minScore);
      const failure = cancelled ? 'cancelled while running' : (error ?? (ended ? null : 'the conversation did not end'));
      const passed = !failure && !shortfall && casePasses(details, refs, minScore);
      const status = cancelled ? 'cancelled' : passed ? 'passed' : 'failed';
      const endedAt = Date.now();
      await steps.recordTrial({
        ...key,
        startedAt,
        endedAt,
        calls,
        details,
        avgScore: aggregateScores(all, [...refs, ...runCase.scorers], run.aggregation),
        passed,
        status,
        ...(failure ? { error: failure } : {}),
        conversation: { ended, turns_done: answered(turns).length },
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
