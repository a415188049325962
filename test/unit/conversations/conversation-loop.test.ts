import { describe, expect, it } from 'vitest';
import {
  conversationVerdict,
  nextUserStep,
  runConversation,
  simulatedStep,
  turnResultOf,
  type ConversationRunner,
  type TurnCall,
} from '../../../core/conversations/conversation-loop.js';
import type { ConversationView, SimulatedUserTurn } from '../../../core/model/conversation.js';
import type { RunCase } from '../../../core/model/eval-run.js';
import type { ScoreInput } from '../../../core/scoring/scorer.js';
import { defineScorer, scorerRegistry } from '../../../sdk/scorers.js';
import { recall } from '../../helpers/sdk-memory-agents.js';
import { runCaseOf } from '../../helpers/run-case.js';

/** The one conversation loop of local runs (core/conversations/conversation-loop.ts), with agents that remember. */

const seen: ScoreInput[] = [];
const wholeConversation = defineScorer({
  name: 'wholeConversation',
  conversation: true,
  evaluate: (input) => {
    seen.push(input);
    return { score: input.conversation ? 1 : 0, reason: `${input.conversation?.turns.length ?? 0} turns, ${input.conversation?.ended}` };
  },
});
const registry = scorerRegistry([wholeConversation]);

const scripted = (turns: RunCase['turns'], extra: Partial<RunCase> = {}): RunCase =>
  runCaseOf('remember the name', ['contains', 'wholeConversation'], { turns, ...extra });

type Turn = NonNullable<RunCase['turns']>[number];
const turn = (input: Turn['input'], outputContains?: string[]): Turn => ({ input, expected: outputContains ? { outputContains } : {} });

/** An agent answering from the last `window` messages of the history (all of them by default). */
function agent(window = Infinity, calls: TurnCall[] = []) {
  return (call: TurnCall) => {
    calls.push(call);
    const messages = window === Infinity ? call.messages : call.messages.slice(-window);
    return Promise.resolve({ output: recall(messages, call.message), toolCalls: [], usage: { input_tokens: 10, output_tokens: 2 }, latencyMs: 5 });
  };
}

const runner = (runCase: RunCase, extra: Partial<ConversationRunner> = {}): ConversationRunner => ({
  runCase,
  scoring: { minScore: 0.7, aggregation: 'mean' },
  registry,
  sessionId: 'f'.repeat(32),
  traceId: null,
  callAgent: agent(),
  ...extra,
});

const NAME_SCRIPT = [turn('Hi, my name is Ana.'), turn('I live in Lyon.', ['noted']), turn('What is the weather like?'), turn('What is my name?', ['Ana'])];

describe('a scripted conversation, turn by turn', () => {
  it('calls the agent once per turn with the history, scores the turns that expect something, then the whole conversation', async () => {
    seen.length = 0;
    const calls: TurnCall[] = [];
    const onTurn: number[] = [];
    const ran = await runConversation(runner(scripted(NAME_SCRIPT), { callAgent: agent(Infinity, calls), onTurn: (t) => void onTurn.push(t.turn) }));
    expect(calls.map((c) => [c.turn, c.messages.length, c.sessionId])).toEqual([
      [1, 1, 'f'.repeat(32)],
      [2, 3, 'f'.repeat(32)],
      [3, 5, 'f'.repeat(32)],
      [4, 7, 'f'.repeat(32)],
    ]);
    expect(calls[3].messages.slice(0, 3)).toEqual([
      { role: 'user', content: 'Hi, my name is Ana.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'I live in Lyon.' },
    ]);
    expect(onTurn).toEqual([1, 2, 3, 4]);
    expect(ran.ended).toBe('script_done');
    expect(ran.error).toBeNull();
    // Turns without an expectation are not scored; those with one are, by the case's answer scorers (not the conversation-level one).
    expect(ran.turns.map((t) => [t.turn, Object.keys(t.details), t.avg_score, t.passed])).toEqual([
      [1, [], null, true],
      [2, ['contains'], 1, true],
      [3, [], null, true],
      [4, ['contains'], 1, true],
    ]);
    expect(ran.turns[3]).toMatchObject({ user: 'What is my name?', output: 'Your name is Ana.', latency_ms: 5, error: null });
    // The case has no `expected`: only the conversation-level scorer runs at the end, once, on the whole conversation.
    expect(ran.endRefs.map((r) => r.name)).toEqual(['wholeConversation']);
    expect(ran.details.wholeConversation).toMatchObject({ score: 1, reason: '4 turns, script_done' });
    expect(seen).toHaveLength(1);
    const view = seen[0].conversation as ConversationView;
    expect(view.messages).toHaveLength(8);
    expect(view.turns.map((t) => t.assistant)).toEqual(['Noted.', 'Noted.', 'Noted.', 'Your name is Ana.']);
    expect(seen[0]).toMatchObject({ input: 'Hi, my name is Ana.', output: 'Your name is Ana.', latencyMs: 20 });
    expect(ran.verdict).toMatchObject({ passed: true, shortfall: null });
    expect(ran.conversation).toEqual({ ended: 'script_done', turns_done: 4 });
  });

  it('fails at the planted turn when the agent forgets the name after two turns', async () => {
    const ran = await runConversation(runner(scripted(NAME_SCRIPT), { callAgent: agent(3) }));
    expect(ran.ended).toBe('script_done');
    expect(ran.turns.map((t) => t.passed)).toEqual([true, true, true, false]);
    expect(ran.turns[3].output).toBe('I do not know your name.');
    expect(ran.verdict.passed).toBe(false);
    expect(ran.verdict.shortfall).toMatch(/^turn 4: scorer 'contains' scored 0, below its minimum 0.7/);
    // Every score counts in the average: the end's and each scored turn's.
    expect(ran.verdict.avgScore).toBeCloseTo((1 + 1 + 0) / 3);
  });

  it("runs a turn's own scorers instead of the case's, and the case's answer scorers on the last answer when the case expects something", async () => {
    const runCase = scripted(
      [turn('my name is Ana'), { input: 'What is my name?', expected: { outputContains: ['Ana'] }, scorers: [{ name: 'exactMatch', config: {} }] }],
      {
        expected: { outputContains: ['name'] },
      },
    );
    const ran = await runConversation(runner(runCase));
    expect(Object.keys(ran.turns[1].details)).toEqual(['exactMatch']);
    expect(ran.turns[1].passed).toBe(false);
    expect(ran.endRefs.map((r) => r.name)).toEqual(['wholeConversation', 'contains']);
    expect(ran.details.contains.score).toBe(1);
  });

  it('stops at a turn the agent failed: the turn records the error, the conversation did not end, nothing is scored at the end', async () => {
    const failing = (call: TurnCall) => (call.turn === 2 ? Promise.reject(new Error('agent did not answer within 50 ms')) : agent()(call));
    const ran = await runConversation(runner(scripted(NAME_SCRIPT), { callAgent: failing }));
    expect(ran.turns).toHaveLength(2);
    expect(ran.turns[1]).toMatchObject({ turn: 2, output: null, passed: false, error: 'agent did not answer within 50 ms', details: {} });
    expect(ran).toMatchObject({ ended: null, error: 'agent did not answer within 50 ms', details: {}, endRefs: [] });
    expect(ran.conversation).toEqual({ ended: null, turns_done: 1 });
    expect(ran.verdict).toMatchObject({ passed: false, shortfall: 'agent did not answer within 50 ms' });
  });

  it('stops between turns once cancelled', async () => {
    const stop = new AbortController();
    const ran = await runConversation(runner(scripted(NAME_SCRIPT), { signal: stop.signal, onTurn: (t) => (t.turn === 2 ? stop.abort() : undefined) }));
    expect(ran.turns).toHaveLength(2);
    expect(ran).toMatchObject({ ended: null, error: 'cancelled while running' });
  });
});

describe('a simulated user', () => {
  const simulated = (simulation: Partial<NonNullable<RunCase['simulation']>> = {}): RunCase =>
    scripted(undefined, {
      name: 'refund',
      turns: undefined,
      simulation: { persona: 'Dana', goal: 'a refund for order 4417', facts: ['order 4417'], max_turns: 5, ...simulation },
      scorers: [{ name: 'wholeConversation', config: {} }],
    });

  /** Asks for the refund, gives the order number when asked, says goal_met once the refund is issued. */
  const user = (calls: Array<{ turn: number; messages: number }>) => (u: { turn: number; messages: Array<{ role: string; content: string }> }) => {
    calls.push({ turn: u.turn, messages: u.messages.length });
    const last = u.messages.at(-1)?.content ?? '';
    const said: SimulatedUserTurn = /refund issued/i.test(last)
      ? { message: 'Thanks!', stop: 'goal_met' }
      : /order number/i.test(last)
        ? { message: 'It is order 4417.', stop: null }
        : { message: 'I want a refund.', stop: null };
    return Promise.resolve(said);
  };

  it('plays until the user meets its goal; its closing words are not sent to the agent', async () => {
    const userCalls: Array<{ turn: number; messages: number }> = [];
    const agentCalls: TurnCall[] = [];
    const ran = await runConversation(runner(simulated(), { simulateUser: user(userCalls), callAgent: agent(Infinity, agentCalls) }));
    expect(agentCalls.map((c) => c.message)).toEqual(['I want a refund.', 'It is order 4417.']);
    expect(userCalls).toEqual([
      { turn: 1, messages: 0 },
      { turn: 2, messages: 2 },
      { turn: 3, messages: 4 },
    ]);
    expect(ran).toMatchObject({ ended: 'goal_met', error: null });
    expect(ran.turns.map((t) => [t.user, t.output, t.avg_score])).toEqual([
      ['I want a refund.', 'Could you give me your order number?', null],
      ['It is order 4417.', 'Refund issued for order 4417.', null],
    ]);
    const view = ran.view!;
    expect(view).toMatchObject({ ended: 'goal_met', persona: 'Dana', goal: 'a refund for order 4417', facts: ['order 4417'], maxTurns: 5 });
    expect(ran.verdict.passed).toBe(true);
  });

  it('ends on the stop condition and at max_turns, asking the user nothing more', async () => {
    const userCalls: Array<{ turn: number; messages: number }> = [];
    const stopped = await runConversation(runner(simulated({ stop: { outputContains: ['REFUND ISSUED'] } }), { simulateUser: user(userCalls) }));
    expect(stopped.ended).toBe('stop_condition');
    expect(userCalls).toHaveLength(2);
    const looping = () => Promise.resolve({ output: 'Could you say that again?', toolCalls: [], usage: null, latencyMs: 1 });
    const capped = await runConversation(runner(simulated({ max_turns: 3 }), { simulateUser: user([]), callAgent: looping }));
    expect(capped).toMatchObject({ ended: 'max_turns', conversation: { turns_done: 3 } });
  });

  it('fails the trial, saying why, when there is no simulated user or it fails', async () => {
    const none = await runConversation(runner(simulated(), { noSimulatedUser: 'no LLM provider is configured' }));
    expect(none).toMatchObject({ turns: [], ended: null, error: 'no LLM provider is configured', verdict: { passed: false } });
    const broken = await runConversation(runner(simulated(), { simulateUser: () => Promise.reject(new Error('HTTP 529 overloaded')) }));
    expect(broken.error).toBe('simulated user: HTTP 529 overloaded');
  });
});

describe('the steps both run paths take', () => {
  it('says the next user step from the script or the simulation', () => {
    const c = scripted([turn({ q: 'structured' }), turn('second')]);
    expect(nextUserStep(c, 1, [])).toEqual({ tag: 'say', input: { q: 'structured' }, message: '{"q":"structured"}' });
    expect(nextUserStep(c, 3, [{ output: 'x' }, { output: 'y' }])).toEqual({ tag: 'end', ended: 'script_done' });
    const sim = { simulation: { persona: 'p', goal: 'g', facts: [], max_turns: 2 } };
    expect(nextUserStep(sim, 1, [])).toEqual({ tag: 'simulate' });
    expect(nextUserStep(sim, 3, [{ output: 'a' }, { output: 'b' }])).toEqual({ tag: 'end', ended: 'max_turns' });
    expect(simulatedStep({ message: 'bye', stop: 'gave_up' })).toEqual({ tag: 'end', ended: 'gave_up' });
    expect(() => nextUserStep({}, 1, [])).toThrow('not a conversation');
  });

  it('judges a turn and a trial from their scores', () => {
    const refs = [{ name: 'contains', config: {}, minScore: 0.5 }];
    const low = turnResultOf(
      {
        turn: 2,
        message: 'q',
        answer: { output: 'a', toolCalls: [], usage: null, latencyMs: 3 },
        details: { contains: { score: 0.6, reason: '', evidence: [] } },
        refs,
      },
      { minScore: 0.9, aggregation: 'mean' },
      null,
    );
    expect(low).toMatchObject({ passed: true, avg_score: 0.6, error: null, tool_calls: [] });
    const unanswered = turnResultOf({ turn: 1, message: 'q', details: {}, refs: [] }, { minScore: 0.7, aggregation: 'mean' }, 'a'.repeat(32));
    expect(unanswered).toMatchObject({ passed: false, avg_score: null, error: 'the agent did not answer', trace_id: 'a'.repeat(32) });
    const verdict = conversationVerdict(
      { runCase: scripted(NAME_SCRIPT), turns: [low], ended: null, details: {}, endRefs: [], error: null },
      { minScore: 0.7, aggregation: 'mean' },
    );
    expect(verdict).toMatchObject({ passed: false, shortfall: 'the conversation did not end' });
  });
});
