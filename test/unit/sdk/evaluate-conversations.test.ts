import { describe, expect, it } from 'vitest';
import { defineScorer, defineSuite, evaluate, reply, type AgentContext, type TurnProgress } from '../../../sdk/index.js';
import { forgetfulAgent, memoryAgent, NAME_AFTER_SMALL_TALK, RETAINS_THE_NAME } from '../../helpers/sdk-memory-agents.js';

/**
 * The SDK's evaluate() with a local multi-turn agent function, without a service (`upload:
 * false`): scripted conversations and simulated users, turn by turn, scored per turn and as a
 * whole (the loop itself: test/unit/conversations/conversation-loop.test.ts).
 */

const suite = defineSuite({
  name: 'memory',
  scorers: ['contains'],
  cases: [
    { name: 'plain question', input: 'my name is Bo. What is my name?', expected: { outputContains: ['Bo'] } },
    { ...NAME_AFTER_SMALL_TALK, scorers: ['contains', RETAINS_THE_NAME, 'turnScores'] },
  ],
});

describe('evaluate() runs a conversation case turn by turn', () => {
  it('passes with an agent that remembers; each turn gets the history, the session and its number', async () => {
    const calls: Array<Pick<AgentContext, 'turn' | 'sessionId' | 'messages'> & { input: unknown; case: string }> = [];
    const turns: TurnProgress[] = [];
    const result = await evaluate(suite, {
      upload: false,
      concurrency: 1,
      agent: (input, ctx) => {
        calls.push({ input, case: ctx.case.name, turn: ctx.turn, sessionId: ctx.sessionId, messages: ctx.messages });
        return memoryAgent(input, ctx);
      },
      onTurn: (t) => turns.push(t),
    });
    expect(result.passed).toBe(true);
    // A single-turn case is a conversation of one turn: the input as its one message.
    expect(calls[0]).toMatchObject({ case: 'plain question', turn: 1, messages: [{ role: 'user', content: 'my name is Bo. What is my name?' }] });
    const conversation = calls.filter((c) => c.case === 'name after small talk');
    expect(conversation.map((c) => [c.turn, c.input, c.messages.length])).toEqual([
      [1, 'Hi, my name is Ana.', 1],
      [2, 'I live in Lyon.', 3],
      [3, 'Nice weather today.', 5],
      [4, 'What is my name?', 7],
    ]);
    expect(new Set(conversation.map((c) => c.sessionId)).size).toBe(1);
    expect(conversation[0].sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(conversation[0].sessionId).not.toBe(calls[0].sessionId);

    expect(turns.map((t) => [t.caseName, t.turn, t.of, t.kind, t.result.passed, t.result.avg_score])).toEqual([
      ['name after small talk', 1, 4, 'scripted', true, null],
      ['name after small talk', 2, 4, 'scripted', true, 1],
      ['name after small talk', 3, 4, 'scripted', true, null],
      ['name after small talk', 4, 4, 'scripted', true, 1],
    ]);
    const outcome = result.outcomes.find((o) => o.caseName === 'name after small talk')!;
    expect(outcome).toMatchObject({ passed: true, output: 'Your name is Ana.', conversation: { ended: 'script_done', turns_done: 4 } });
    // The conversation's scores: the conversation-level scorers', on the whole conversation.
    expect(Object.keys(outcome.details).sort()).toEqual(['knowledgeRetention', 'turnScores']);
    expect(outcome.details.knowledgeRetention.score).toBe(1);
    expect(outcome.turns!.map((t) => t.details.contains?.score ?? null)).toEqual([null, 1, null, 1]);
    // The case results, as the service computes them, carry the turns.
    const view = result.cases.find((c) => c.case_name === 'name after small talk')!;
    expect(view.status).toBe('passed');
    expect(view.trials[0].turns).toHaveLength(4);
    expect(view.trials[0].conversation).toEqual({ ended: 'script_done', turns_done: 4 });
  });

  it('fails where planted with an agent that forgets after two turns', async () => {
    const result = await evaluate(suite, { upload: false, agent: forgetfulAgent(2) });
    expect(result.passed).toBe(false);
    const [plain, conversation] = result.cases;
    expect(plain.status).toBe('passed');
    expect(conversation.status).toBe('failed');
    expect(conversation.error).toMatch(/knowledgeRetention|turn 4: scorer 'contains' scored 0/);
    const outcome = result.outcomes.find((o) => o.caseName === 'name after small talk')!;
    expect(outcome.turns!.map((t) => t.passed)).toEqual([true, true, true, false]);
    expect(outcome.turns![3].output).toBe('I do not know your name.');
    expect(outcome.details.knowledgeRetention.score).toBe(0);
    expect(outcome.conversation).toEqual({ ended: 'script_done', turns_done: 4 });
  });

  it("records each turn's tool calls and usage from reply(), and stops at a turn the agent failed", async () => {
    const result = await evaluate(
      defineSuite({ name: 'tools', scorers: ['contains'], cases: [{ name: 'three turns', turns: [{ input: 'a' }, { input: 'b' }, { input: 'c' }] }] }),
      {
        upload: false,
        throwOnCaseErrors: false,
        timeoutMs: 200,
        agent: async (input, ctx) => {
          if (ctx.turn === 3) await new Promise((resolve) => setTimeout(resolve, 1000));
          return reply(`answer ${String(input)}`, { toolCalls: [{ name: 'lookup', input: { turn: ctx.turn } }], usage: { input_tokens: 7, output_tokens: 3 } });
        },
      },
    );
    const [outcome] = result.outcomes;
    expect(outcome.turns!.map((t) => [t.turn, t.tool_calls, t.usage, t.error])).toEqual([
      [1, [{ name: 'lookup', input: { turn: 1 } }], { input_tokens: 7, output_tokens: 3 }, null],
      [2, [{ name: 'lookup', input: { turn: 2 } }], { input_tokens: 7, output_tokens: 3 }, null],
      [3, null, null, 'agent did not answer within 200 ms'],
    ]);
    expect(outcome).toMatchObject({ passed: false, error: 'agent did not answer within 200 ms', conversation: { ended: null, turns_done: 2 } });
    expect(outcome.usage).toEqual({ input_tokens: 14, output_tokens: 6 });
    expect(outcome.toolCalls).toHaveLength(2);
    expect(result.cases[0]).toMatchObject({ status: 'failed', error: 'agent did not answer within 200 ms' });
  });

  it('runs conversation-level custom scorers on the whole conversation, and refuses them on a single-turn case', async () => {
    const turnsSeen = defineScorer({
      name: 'turnsSeen',
      conversation: true,
      evaluate: ({ conversation }) => ({ score: 1, reason: `${conversation!.turns.length} turns` }),
    });
    const result = await evaluate(
      defineSuite({ name: 'custom', scorers: ['contains', turnsSeen], cases: [{ name: 'c', turns: [{ input: 'x' }, { input: 'y' }] }] }),
      { upload: false, agent: () => 'ok' },
    );
    expect(result.outcomes[0].details).toEqual({ turnsSeen: { score: 1, reason: '2 turns', evidence: [] } });
    expect(() => defineSuite({ name: 'misplaced', scorers: [turnsSeen], cases: [{ name: 'single', input: 'x' }] })).toThrow(
      /^Invalid suite file: defaultScorers\[0\]: 'turnsSeen' scores a whole conversation and cannot score a single-turn case/,
    );
  });
});

describe('evaluate() with a simulated user', () => {
  const refund = defineSuite({
    name: 'refund',
    scorers: ['turnsToGoal'],
    cases: [
      {
        name: 'broken order',
        simulation: { persona: 'Dana', goal: 'a refund', facts: ['order 4417'], max_turns: 5, first_message: 'My order arrived broken.' },
      },
    ],
  });

  it("plays the user with the caller's function; first_message is turn 1 as written", async () => {
    const asked: Array<{ turn: number; messages: number }> = [];
    const turns: TurnProgress[] = [];
    const result = await evaluate(refund, {
      upload: false,
      agent: memoryAgent,
      simulatedUser: ({ turn, messages }) => {
        asked.push({ turn, messages: messages.length });
        const last = messages.at(-1)?.content ?? '';
        return /refund issued/i.test(last) ? { message: 'Thanks!', stop: 'goal_met' } : { message: 'It is order 4417.' };
      },
      onTurn: (t) => turns.push(t),
    });
    expect(asked).toEqual([
      { turn: 2, messages: 2 },
      { turn: 3, messages: 4 },
    ]);
    expect(turns.map((t) => [t.turn, t.of, t.kind, t.result.user])).toEqual([
      [1, 5, 'simulated', 'My order arrived broken.'],
      [2, 5, 'simulated', 'It is order 4417.'],
    ]);
    const [outcome] = result.outcomes;
    expect(outcome).toMatchObject({ passed: true, conversation: { ended: 'goal_met', turns_done: 2 } });
    expect(outcome.details.turnsToGoal.score).toBeGreaterThan(0.5);
  });

  it('fails the trial when the function answers nonsense', async () => {
    const result = await evaluate(refund, { upload: false, throwOnCaseErrors: false, agent: memoryAgent, simulatedUser: () => ({ text: 'hi' }) as never });
    expect(result.outcomes[0].error).toMatch(/^simulated user: simulatedUser returned \{"text":"hi"\} for turn 2: give \{message, stop\?/);
  });

  it('is refused before anything runs when no LLM provider is configured and no function is given', async () => {
    let called = false;
    await expect(
      evaluate(refund, {
        upload: false,
        providerEnv: {},
        agent: () => {
          called = true;
          return 'x';
        },
      }),
    ).rejects.toThrow(
      /^Evaluation run failed: case 'broken order' has a simulated user: a simulated user needs an LLM provider and none is configured: set ANTHROPIC_API_KEY/,
    );
    expect(called).toBe(false);
  });
});
