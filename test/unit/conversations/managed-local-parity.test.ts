import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { caseSessionId } from '../../../core/agents/agent-body.js';
import { runConversation, type TurnAnswer, type ConversationTrial } from '../../../core/conversations/conversation-loop.js';
import type { ConversationEnd, ConversationView } from '../../../core/model/conversation.js';
import type { LlmMessage } from '../../../core/model/messages.js';
import type { RunCase, TurnResult } from '../../../core/model/eval-run.js';
import type { RunForWorker, StoredTurn } from '../../../core/store/runs.js';
import type { ActivityDeps } from '../../../workflows/activities.js';
import type { AgentCall, CaseRecord } from '../../../workflows/activity-types.js';
import { caseTraceId } from '../../../workflows/case-trace.js';
import { createConversationSteps } from '../../../workflows/conversation-steps.js';
import type { createTrialSteps } from '../../../workflows/trial-steps.js';
import { defineScorer, scorerRegistry } from '../../../sdk/scorers.js';
import { texts } from '../../fixtures/corpus/texts.js';
import { runCaseOf } from '../../helpers/run-case.js';

/**
 * One set of turn rules for both run paths (docs/evals.md, "Conversations"): the same conversation
 * played by the run engine's activities (workflows/conversation-steps.ts, as the workflow calls
 * them, on an in-memory run store) and by the local loop (core/conversations/conversation-loop.ts,
 * as the SDK's evaluate() runs it) sends the agent the same history, records the same turns, shows
 * a conversation scorer the same view and reaches the same verdict. The answers include an object
 * (JSON) answer and a multi-paragraph markdown answer with a code fence from the corpus.
 */

const KEY = { runId: '7d0c1b5e-1f4e-4a55-9a43-0c0a4e5b2d11', caseIndex: 0, trial: 0 };
const SESSION = caseSessionId(KEY.runId, KEY.caseIndex, KEY.trial);
const TRACE = caseTraceId(KEY);

/** What the conversation scorer saw, per path. */
const seen: ConversationView[] = [];
const wholeConversation = defineScorer({
  name: 'wholeConversation',
  conversation: true,
  evaluate: (input) => {
    seen.push(input.conversation!);
    const said = input.conversation!.turns.map((t) => t.assistant).join('\n');
    return { score: said.includes('"order":4417') && said.includes('```') ? 1 : 0.5, reason: `${input.conversation!.turns.length} turns` };
  },
});
const registry = scorerRegistry([wholeConversation]);

/** An order lookup as an object, the corpus's support answer (markdown, blank lines, a code fence), then the name from the history. */
const MARKDOWN = `${texts.supportAnswer.trimEnd()}\n\n\`\`\`json\n{"order": 4417}\n\`\`\``;
function answerOf(turn: number, messages: LlmMessage[], forgets: boolean): TurnAnswer {
  const seenHistory = forgets ? messages.slice(-3) : messages;
  const output =
    turn === 1
      ? { order: 4417, status: 'delivered', items: [{ sku: 'KTL-1.7', name: 'Glass kettle 1.7 l' }], note: null }
      : turn === 2
        ? MARKDOWN
        : seenHistory.some((m) => m.role === 'user' && m.content.includes('Ana'))
          ? 'Your name is Ana.'
          : 'I do not know your name.';
  return {
    output,
    toolCalls: turn === 1 ? [{ name: 'lookup_order', input: { order_id: 4417 } }] : [],
    usage: { input_tokens: 40 * turn, output_tokens: 9 },
    latencyMs: 25 * turn,
  };
}

const runCase: RunCase = runCaseOf('order then name', ['contains', 'wholeConversation'], {
  expected: { outputContains: ['Ana'] },
  turns: [
    { input: 'Hi, I am Ana. Where is order 4417?', expected: {} },
    { input: { question: 'How do I get a refund?', channel: 'chat' }, expected: { outputContains: ['refund'] } },
    { input: 'Thanks!', expected: {} },
    { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
  ],
});
const run: RunForWorker = {
  id: KEY.runId,
  project_id: 'default',
  agent_id: 'support',
  agent_name: 'support',
  agent_version: 'v1',
  status: 'running',
  config: { parallel: false, timeout_ms: 60_000, repetitions: 1 },
  aggregation: 'mean',
  min_score: 0.7,
};

interface Played {
  turns: TurnResult[];
  histories: LlmMessage[][];
  view: ConversationView;
  verdict: { passed: boolean; avgScore: number; conversation: ConversationTrial['conversation'] };
}

/** The run engine's activities, called as workflows/conversation-trial.ts calls them, on an in-memory store. */
async function managed(forgets: boolean): Promise<Played> {
  const stored: StoredTurn[] = [];
  const histories: LlmMessage[][] = [];
  let record: CaseRecord | undefined;
  const runs = {
    turnsOf: () => Promise.resolve(stored.map((t) => ({ ...t }))),
    recordTurn: (_r: string, _c: number, _t: number, result: TurnResult, data: { started_ms: number; ended_ms: number; calls: unknown[] }) => {
      stored.push({ ...result, ...data });
      return Promise.resolve();
    },
  };
  const steps = {
    runAndCase: () => Promise.resolve({ run, runCase, recorded: null }),
    scorersOf: () => Promise.resolve(registry),
    traces: { traceFor: () => Promise.resolve(undefined) },
    callCaseAgent: (_run: RunForWorker, _case: RunCase, _key: unknown, conversation: { turn: number; messages: LlmMessage[] }): Promise<AgentCall> => {
      histories.push(conversation.messages);
      const a = answerOf(conversation.turn, conversation.messages, forgets);
      return Promise.resolve({
        startedAt: 1000,
        endedAt: 1000 + a.latencyMs,
        reply: { output: a.output, tool_calls: a.toolCalls, usage: a.usage ?? undefined },
      });
    },
    recordTrial: (r: CaseRecord) => {
      record = r;
      return Promise.resolve();
    },
  };
  const acts = createConversationSteps({ runs } as unknown as ActivityDeps, steps as unknown as ReturnType<typeof createTrialSteps>);
  const env = new MockActivityEnvironment();
  /** An activity run in an activity's context (its heartbeats and cancellation signal). */
  const inContext = <T>(fn: () => Promise<T>): Promise<T> => env.run(fn);
  let ended: ConversationEnd | null = null;
  for (let turn = 1; ; turn++) {
    const said = await inContext(() => acts.conversationUserTurn({ ...KEY, turn }));
    if (said.tag !== 'say') {
      ended = said.tag === 'end' ? said.ended : null;
      break;
    }
    const made = await inContext(() => acts.callTurnAgent({ ...KEY, turn, call: turn - 1, message: said.message }));
    if (made.tag === 'recorded') throw new Error('nothing was recorded before');
    await inContext(() => acts.finishTurn({ ...KEY, turn, message: said.message, calls: [made.call] }));
  }
  await inContext(() => acts.finishConversation({ ...KEY, startedAt: 1000, ended, error: undefined, cancelled: false }));
  return {
    turns: stored.map(({ started_ms: _s, ended_ms: _e, calls: _c, ...t }) => t),
    histories,
    view: seen.at(-1)!,
    verdict: { passed: record!.passed, avgScore: record!.avgScore, conversation: record!.conversation! },
  };
}

/** The local loop, as the SDK's evaluate() runs it. */
async function local(forgets: boolean): Promise<Played> {
  const histories: LlmMessage[][] = [];
  const trial = await runConversation({
    runCase,
    scoring: { minScore: run.min_score, aggregation: run.aggregation },
    registry,
    sessionId: SESSION,
    traceId: TRACE,
    callAgent: (call) => {
      histories.push(call.messages);
      return Promise.resolve(answerOf(call.turn, call.messages, forgets));
    },
  });
  return {
    turns: trial.turns,
    histories,
    view: seen.at(-1)!,
    verdict: { passed: trial.verdict.passed, avgScore: trial.verdict.avgScore, conversation: trial.conversation },
  };
}

/** Both paths with one agent: the same agent history, recorded turns, conversation view and verdict; the managed path's. */
async function playedAlike(forgets: boolean): Promise<Played> {
  const m = await managed(forgets);
  const l = await local(forgets);
  expect(m.histories).toEqual(l.histories);
  expect(m.turns).toEqual(l.turns);
  expect(m.view).toEqual(l.view);
  expect(m.verdict).toEqual(l.verdict);
  return m;
}

describe('managed and local runs play a conversation by the same rules', () => {
  it('send the same history, record the same turns and show the conversation scorer the same view', async () => {
    const m = await playedAlike(false);
    expect(m.verdict).toEqual({ passed: true, avgScore: 1, conversation: { ended: 'script_done', turns_done: 4 } });

    // An object answer is its compact JSON text in the history and the view, and stays an object in `output`.
    const first = m.view.turns[0];
    expect(first.assistant).toBe('{"order":4417,"status":"delivered","items":[{"sku":"KTL-1.7","name":"Glass kettle 1.7 l"}],"note":null}');
    expect(first.output).toEqual(answerOf(1, [], false).output);
    expect(m.histories[1][1]).toEqual({ role: 'assistant', content: first.assistant, tool_calls: [{ name: 'lookup_order', arguments: '{"order_id":4417}' }] });
    // An object user turn is sent as its JSON text; the markdown answer byte for byte, blank lines and fence kept.
    expect(m.view.turns[1].user).toBe('{"question":"How do I get a refund?","channel":"chat"}');
    expect(m.view.turns[1].assistant).toBe(MARKDOWN);
    expect(m.histories[2][3]).toEqual({ role: 'assistant', content: MARKDOWN });
    expect(m.view).toMatchObject({ sessionId: SESSION, ended: 'script_done' });
    expect(m.view.turns.map((t) => t.traceId)).toEqual([TRACE, TRACE, TRACE, TRACE]);
  });

  it('fail the same turn with the same verdict when the agent forgets', async () => {
    const m = await playedAlike(true);
    expect(m.verdict.passed).toBe(false);
    expect(m.turns.map((t) => t.passed)).toEqual([true, true, true, false]);
    expect(m.turns[3].output).toBe('I do not know your name.');
  });
});
