import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { conversationEnd } from '../../core/conversations/stop.js';
import type { UserTurnOutcome } from '../../core/conversations/simulator.js';
import { judgeCallPricer } from '../../core/cost/judge-pricing.js';
import { loadPriceTable } from '../../core/cost/price-table.js';
import { SimulationSchema, type ConversationEnd, type SimulatedUserTurn, type Simulation } from '../../core/model/conversation.js';
import type { RunConfig } from '../../core/model/eval-run.js';
import { answeredTurn } from '../helpers/turn-result.js';
import type { LlmMessage } from '../../core/model/messages.js';
import { createProviders } from '../../core/providers/index.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { caseTraceId } from '../../workflows/case-trace.js';
import { judgeSpans } from '../../workflows/judge-trace.js';
import { simulateUserActivity, type SimulatorActivityDeps } from '../../workflows/simulator-activity.js';
import { recordedUserTurns } from '../../core/conversations/replay.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider, type FakeProviderKind } from '../helpers/fake-providers.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { texts } from '../fixtures/corpus/texts.js';

/**
 * The simulated user against a local server speaking OpenAI's wire protocol (scripted answers:
 * deterministic), through the official SDK, with its calls recorded in the real judge store
 * (embedded PostgreSQL) and its spans read back through the API. Each test drives a conversation
 * the way the run workflow does: the user's turn, the agent's answer, then conversationEnd.
 */

let openai: FakeProvider;
let api: TestApi;
let metadata: MetadataStore;
let deps: SimulatorActivityDeps;

const refundSimulation = SimulationSchema.parse({
  persona: 'Dana, a customer who writes short messages.',
  goal: 'Get a refund for order 4417, which arrived broken.',
  facts: ['The order number is 4417.'],
  max_turns: 4,
  first_message: 'Hi, my order arrived broken.',
  model: 'gpt-5.4',
  seed: 42,
});

async function newRun(config: Partial<RunConfig> = {}): Promise<string> {
  return metadata.runs.create({
    projectId: api.defaultProjectId,
    agent: { id: null, name: 'support-bot' },
    execution: 'local',
    agentVersion: 'v1',
    config: { parallel: false, timeout_ms: 300_000, repetitions: 1, ...config },
    aggregation: 'mean',
    minScore: 0.7,
    cases: [{ name: 'refund', input: 'simulated', expected: {}, scorers: [{ name: 'contains', config: {} }], min_score: null, weight: 1 }],
  });
}

/** A support bot with memory: it asks for the order number until the conversation holds it, then refunds. */
function supportBot(messages: LlmMessage[]): string {
  const said = messages.filter((m) => m.role === 'user').map((m) => m.content);
  return said.some((m) => m.includes('4417')) ? 'Refund issued for order 4417.' : 'Sorry to hear that. What is your order number?';
}

interface Conversation {
  ended: ConversationEnd;
  messages: LlmMessage[];
  turns: Array<UserTurnOutcome & { tag: 'turn' }>;
}

/** A conversation as the workflow runs it: a user turn, the agent's answer, conversationEnd. */
async function converse(runId: string, simulation: Simulation, agent = supportBot): Promise<Conversation> {
  const run = (await metadata.runs.forWorker(runId))!;
  const messages: LlmMessage[] = [];
  const turns: Conversation['turns'] = [];
  for (let turn = 1; ; turn++) {
    const outcome = await simulateUserActivity(deps, run, 'refund', simulation, { runId, caseIndex: 0, trial: 0, turn, messages: [...messages] });
    if (outcome.tag === 'stopped') throw new Error(outcome.reason);
    turns.push(outcome);
    const user: SimulatedUserTurn = outcome.turn;
    let end = conversationEnd(simulation, turn - 1, messages.at(-1)?.content, user);
    if (end) return { ended: end, messages, turns };
    messages.push({ role: 'user', content: user.message });
    messages.push({ role: 'assistant', content: agent(messages) });
    // The turn recorded as the workflow records it (what replay reads first).
    await metadata.runs.recordTurn(runId, 0, 0, answeredTurn(turn, user.message, messages.at(-1)!.content), {
      started_ms: Date.now(),
      ended_ms: Date.now(),
      calls: [],
    });
    end = conversationEnd(simulation, turn, messages.at(-1)?.content, user);
    if (end) return { ended: end, messages, turns };
  }
}

const sentBody = (i: number) =>
  openai.requests[i].body as { messages: Array<{ role: string; content: string }>; temperature?: number; seed?: number; model: string };

beforeAll(async () => {
  openai = await startFakeProvider('openai');
  api = await startTestApi();
  metadata = openServiceMetadata(api.dataDir);
  const config = loadConfig({ ...fakeProviderEnv({ openai }) });
  deps = {
    judges: { providers: createProviders(config.llm), maxAnswerAttempts: 3, maxOutputTokens: 512 },
    judgeCalls: metadata.judges,
    priceJudgeCall: judgeCallPricer(loadPriceTable()),
    recordedTurns: recordedUserTurns({ runs: metadata.runs, judgeCalls: metadata.judges }),
  };
});

afterAll(async () => {
  await metadata?.close();
  await api?.stop();
  await openai?.close();
});

describe('a simulated user', () => {
  it('reaches its goal: the first message as written, then in character through the provider, ending with goal_met', async () => {
    openai.requests.length = 0;
    const runId = await newRun();
    openai.queue(
      { verdict: { message: 'It is order 4417.', status: 'continue' }, usage: { input: 300, output: 20 } },
      { verdict: { message: 'Great, thanks!', status: 'goal_met' }, usage: { input: 400, output: 10 } },
    );
    const c = await converse(runId, refundSimulation);
    expect(c.ended).toBe('goal_met');
    expect(c.turns.map((t) => [t.source, t.turn])).toEqual([
      ['first_message', { message: 'Hi, my order arrived broken.', stop: null }],
      ['simulator', { message: 'It is order 4417.', stop: null }],
      ['simulator', { message: 'Great, thanks!', stop: 'goal_met' }],
    ]);
    expect(c.messages.at(-1)).toEqual({ role: 'assistant', content: 'Refund issued for order 4417.' });
    // Two calls (turn 1 was written): greedy, seeded, the case's model, persona and goal, the transcript.
    expect(openai.requests).toHaveLength(2);
    const second = sentBody(1);
    expect(second).toMatchObject({ model: 'gpt-5.4', temperature: 0, seed: 42 });
    expect(second.messages[0].content).toContain('Dana, a customer who writes short messages.');
    expect(second.messages[1].content).toContain('<assistant>\nRefund issued for order 4417.\n</assistant>');
    // Spend counts in the run's judge budget, priced by the price table.
    const usage = await metadata.judges.runUsage(runId);
    expect(usage).toMatchObject({ calls: 2, input_tokens: 700, output_tokens: 30, tokens: 730 });
    expect(usage.cost_usd).toBeGreaterThan(0);
  });

  it('gives up when the agent goes in circles', async () => {
    const runId = await newRun();
    openai.queue(
      { verdict: { message: 'I told you, I do not have it at hand.', status: 'continue' } },
      { verdict: { message: 'Forget it. [GAVE_UP]', status: 'continue' } },
    );
    const c = await converse(runId, { ...refundSimulation, facts: [] }, () => 'What is your order number?');
    expect(c.ended).toBe('gave_up');
    expect(c.turns.at(-1)?.turn).toEqual({ message: 'Forget it.', stop: 'gave_up' });
  });

  it('stops at max_turns, and where the stop condition matches the agent', async () => {
    const runId = await newRun();
    openai.setDefault({ verdict: { message: 'Still waiting…', status: 'continue' } });
    try {
      const capped = await converse(runId, { ...refundSimulation, max_turns: 3 }, () => 'Please hold.');
      expect(capped.ended).toBe('max_turns');
      expect(capped.messages.filter((m) => m.role === 'user')).toHaveLength(3);
      const stopped = await converse(runId, { ...refundSimulation, stop: { outputContains: ['REFUND ISSUED'] } }, (m) =>
        m.length > 2 ? 'Refund issued.' : 'Checking.',
      );
      expect(stopped.ended).toBe('stop_condition');
    } finally {
      openai.setDefault({ verdict: { message: 'ok', status: 'continue' } });
    }
  });

  it('writes turn 1 itself without first_message, and keeps Hebrew and emoji byte for byte', async () => {
    openai.requests.length = 0;
    const runId = await newRun();
    const hebrew = `${texts.policyRefundsHebrew.slice(0, 200)} 🙏🏽`;
    openai.queue({ verdict: { message: hebrew, status: 'continue' } });
    const run = (await metadata.runs.forWorker(runId))!;
    const outcome = await simulateUserActivity(
      deps,
      run,
      'refund',
      { ...refundSimulation, first_message: undefined },
      { runId, caseIndex: 0, trial: 0, turn: 1, messages: [] },
    );
    expect(outcome).toEqual({ tag: 'turn', turn: { message: hebrew, stop: null }, source: 'simulator' });
    expect(sentBody(0).messages[1].content).toBe('The conversation has not started. Write your first message to the assistant (turn 1).');
  });

  it('asks again after a malformed answer, naming the problem, then fails the turn with a clear, non-retryable error', async () => {
    openai.requests.length = 0;
    const runId = await newRun();
    const run = (await metadata.runs.forWorker(runId))!;
    const input = {
      runId,
      caseIndex: 0,
      trial: 0,
      turn: 2,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
      ],
    };
    openai.queue({ verdict: { message: 'hm', status: 'thinking' } }, { verdict: { message: 'Order 4417.', status: 'continue' } });
    expect(await simulateUserActivity(deps, run, 'refund', refundSimulation, input)).toMatchObject({ turn: { message: 'Order 4417.' } });
    expect(sentBody(1).messages[1].content).toContain('Your previous answer could not be used: status must be continue, goal_met or gave_up (got "thinking")');

    openai.queue({ text: 'As an AI I cannot pretend to be a user.' }, { verdict: { message: '', status: 'continue' } }, { verdict: { foo: 1 } });
    const err = await simulateUserActivity(deps, run, 'refund', refundSimulation, input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'SimulatedUserUnusable', nonRetryable: true });
    expect((err as Error).message).toBe(
      "the simulated user's answer for turn 2 was unusable after 3 attempts: status Invalid input: expected string, received undefined",
    );
    // Every call is recorded, the unusable ones with their problem.
    const calls = await metadata.judges.callsForTrials(runId, [{ caseIndex: 0, trial: 0 }]);
    expect(calls.map((c) => [c.scorer, c.attempt, c.status])).toEqual([
      ['@simulated_user:2', 1, 'unusable'],
      ['@simulated_user:2', 2, 'ok'],
      ['@simulated_user:2', 1, 'unusable'],
      ['@simulated_user:2', 2, 'unusable'],
      ['@simulated_user:2', 3, 'unusable'],
    ]);
  });

  it('leaves a failed call to the engine to retry, after the provider’s Retry-After', async () => {
    const runId = await newRun();
    const run = (await metadata.runs.forWorker(runId))!;
    openai.queue({ status: 429, message: 'slow down', headers: { 'retry-after': '2' } });
    const err = await simulateUserActivity(deps, run, 'refund', refundSimulation, { runId, caseIndex: 0, trial: 0, turn: 2, messages: [] }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ type: 'LlmCallFailed', nonRetryable: false });
    expect((err as ApplicationFailure).nextRetryDelay).toBe(2000);
    expect((await metadata.judges.callsForTrials(runId, [{ caseIndex: 0, trial: 0 }])).map((c) => c.status)).toEqual(['error']);
  });

  it('asks a model that takes only its default temperature again without one, keeping the seed', async () => {
    openai.requests.length = 0;
    const run = (await metadata.runs.forWorker(await newRun()))!;
    openai.setDefault((req) =>
      req.body.temperature === undefined
        ? { verdict: { message: 'Order 4417.', status: 'continue' } }
        : { status: 400, message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported." },
    );
    try {
      const outcome = await simulateUserActivity(deps, run, 'refund', refundSimulation, { runId: run.id, caseIndex: 0, trial: 0, turn: 2, messages: [] });
      expect(outcome).toMatchObject({ tag: 'turn', turn: { message: 'Order 4417.' } });
    } finally {
      openai.setDefault({ verdict: { message: 'ok', status: 'continue' } });
    }
    expect(openai.requests.map((r) => [r.body.temperature, r.body.seed])).toEqual([
      [0, 42],
      [undefined, 42],
    ]);
  });

  it("stops without a call once the run's judge budget is spent", async () => {
    openai.requests.length = 0;
    const runId = await newRun({ judge_budget: { max_tokens: 100 } });
    const run = (await metadata.runs.forWorker(runId))!;
    openai.queue({ verdict: { message: 'Order 4417.', status: 'continue' }, usage: { input: 120, output: 30 } });
    const input = { runId, caseIndex: 0, trial: 0, turn: 2, messages: [] };
    expect(await simulateUserActivity(deps, run, 'refund', refundSimulation, input)).toMatchObject({ tag: 'turn' });
    expect(await simulateUserActivity(deps, run, 'refund', refundSimulation, { ...input, turn: 3 })).toEqual({
      tag: 'stopped',
      reason: "judge budget reached: this run's judges used 150 tokens of judge_budget.max_tokens 100; the simulated user was not called",
    });
    expect(openai.requests).toHaveLength(1);
  });

  it('shows its calls in the case trace as generation spans of component type simulated_user, with model, tokens, cost and messages', async () => {
    const runId = await newRun();
    openai.queue(
      { verdict: { message: 'It is order 4417.', status: 'continue' }, usage: { input: 300, output: 20 } },
      { verdict: { message: 'Thanks!', status: 'goal_met' } },
    );
    await converse(runId, refundSimulation);
    const key = { runId, caseIndex: 0, trial: 0 };
    const calls = await metadata.judges.callsForTrials(runId, [key]);
    const traceId = caseTraceId(key);
    await json(
      await api.api('/api/traces/ingest', {
        method: 'POST',
        json: {
          trace_id: traceId,
          name: 'eval: refund',
          status: 'ok',
          duration_ms: 1000,
          start_time: new Date().toISOString(),
          spans: judgeSpans(key, calls, {}),
        },
      }),
      201,
    );
    const spans = await eventually(async () => {
      const body = await json<{ spans: Array<Record<string, unknown>> }>(await api.api(`/api/traces/${traceId}`), 200);
      expect(body.spans).toHaveLength(2);
      return body.spans;
    });
    const turn2 = spans.find((s) => s.name === 'simulated user: turn 2')!;
    expect(turn2).toMatchObject({ type: 'generation', component_type: 'simulated_user', model: 'gpt-5.4', input_tokens: 300, output_tokens: 20, status: 'ok' });
    expect(turn2.cost).toEqual(expect.objectContaining({ total: expect.any(Number) as unknown }));
    expect((turn2.attributes as Record<string, string>)['agent_eval.simulated_user_turn']).toBe('2');
    expect(String(turn2.input)).toContain('Dana, a customer who writes short messages.');
    expect(String(turn2.output)).toContain('It is order 4417.');
    // The API filters them apart from the agent's own model calls.
    const listed = await json<{ traces?: unknown[]; data?: unknown[] }>(await api.api('/api/traces?component_type=simulated_user'), 200);
    expect(JSON.stringify(listed)).toContain(traceId);
  });
});

describe('deterministic replay', () => {
  const stopOnRefund = { ...refundSimulation, stop: { outputContains: ['refund issued'] } };
  /** A bot that refunds only once the order number was given twice (a new version that needs a turn more). */
  const slowBot = (messages: LlmMessage[]) =>
    messages.filter((m) => m.role === 'user' && m.content.includes('4417')).length >= 2
      ? 'Refund issued for order 4417.'
      : 'Could you confirm the order number?';

  it('gives a new agent version the user turns an earlier run recorded, without calling the provider', async () => {
    const recorded = await newRun();
    openai.queue({ verdict: { message: 'It is order 4417.', status: 'continue' } }, { verdict: { message: 'Great, thanks!', status: 'goal_met' } });
    const first = await converse(recorded, refundSimulation);
    openai.requests.length = 0;
    const replay = await newRun({ replay_from: recorded });
    const again = await converse(replay, refundSimulation, (m) => (m.length > 2 ? 'Refund issued for order 4417 (v2).' : 'Order number, please?'));
    expect(openai.requests).toHaveLength(0);
    expect(again.turns.map((t) => t.source)).toEqual(['first_message', 'replay', 'replay']);
    expect(again.turns.map((t) => t.turn)).toEqual(first.turns.map((t) => t.turn));
    expect(again.ended).toBe('goal_met');
    expect(again.messages.at(-1)?.content).toBe('Refund issued for order 4417 (v2).');
    // Nothing was spent on the replayed turns.
    expect(await metadata.judges.runUsage(replay)).toMatchObject({ calls: 0, tokens: 0 });
  });

  it('lets the simulator take over once the recording runs out, and follows a chain of replays', async () => {
    const recorded = await newRun();
    openai.queue({ verdict: { message: 'It is order 4417.', status: 'continue' } });
    expect((await converse(recorded, stopOnRefund)).ended).toBe('stop_condition');

    openai.requests.length = 0;
    const longer = await newRun({ replay_from: recorded });
    openai.queue({ verdict: { message: 'Yes, 4417.', status: 'continue' } });
    const c = await converse(longer, stopOnRefund, slowBot);
    expect(c.turns.map((t) => t.source)).toEqual(['first_message', 'replay', 'simulator']);
    expect(c.ended).toBe('stop_condition');
    expect(openai.requests).toHaveLength(1);
    // The simulator saw the conversation as it stood, replayed turn included.
    expect(sentBody(0).messages[1].content).toContain('<user>\nIt is order 4417.\n</user>\n<assistant>\nCould you confirm the order number?\n</assistant>');

    openai.requests.length = 0;
    const chained = await newRun({ replay_from: longer });
    const d = await converse(chained, stopOnRefund, slowBot);
    expect(openai.requests).toHaveLength(0);
    expect(d.turns.map((t) => [t.source, t.turn.message])).toEqual([
      ['first_message', 'Hi, my order arrived broken.'],
      ['replay', 'It is order 4417.'],
      ['replay', 'Yes, 4417.'],
    ]);
  });

  it('finds the recorded case by name, and has nothing to replay for an unknown case', async () => {
    const read = recordedUserTurns({ runs: metadata.runs, judgeCalls: metadata.judges });
    const recorded = await newRun();
    openai.queue({ verdict: { message: 'It is order 4417.', status: 'continue' } }, { verdict: { message: 'Thanks', status: 'goal_met' } });
    await converse(recorded, refundSimulation);
    // The turns as sent (the stored turns), then the one that ended it (the simulated user's call).
    expect(await read(api.defaultProjectId, recorded, { caseName: 'refund', caseIndex: 7 })).toEqual([
      { message: 'Hi, my order arrived broken.', stop: null },
      { message: 'It is order 4417.', stop: null },
      { message: 'Thanks', stop: 'goal_met' },
    ]);
    expect(await read(api.defaultProjectId, recorded, { caseName: 'other', caseIndex: 3 })).toBeNull();
    // Another project's run is not found.
    expect(await read('another-project', recorded, { caseName: 'refund', caseIndex: 0 })).toBeNull();
  });
});

describe.each([
  ['anthropic', {}],
  ['openai', {}],
  ['openai', { JUDGE_OPENAI_STRUCTURED_OUTPUT: 'tool' }],
  ['vertex-gemini', {}],
  ['vertex-anthropic', {}],
] as Array<[FakeProviderKind, Record<string, string>]>)('through the %s provider %j', (kind, env) => {
  it('sends persona and transcript at temperature 0 (with the seed where the provider takes one) and reads the answer', async () => {
    const fake = await startFakeProvider(kind);
    try {
      const config = loadConfig({ ...fakeProviderEnv({ [kind]: fake }), JUDGE_PROVIDER: kind, ...env });
      const own: SimulatorActivityDeps = { judges: { providers: createProviders(config.llm), maxAnswerAttempts: 2, maxOutputTokens: 256 } };
      const run = (await metadata.runs.forWorker(await newRun()))!;
      fake.queue({ verdict: { message: 'Order 4417, arrived Monday.', status: 'continue' } });
      const messages: LlmMessage[] = [
        { role: 'user', content: 'Hi, my order arrived broken.' },
        { role: 'assistant', content: 'Sorry! What is the order number?' },
      ];
      const outcome = await simulateUserActivity(own, run, 'refund', refundSimulation, { runId: run.id, caseIndex: 0, trial: 0, turn: 2, messages });
      expect(outcome).toEqual({ tag: 'turn', turn: { message: 'Order 4417, arrived Monday.', stop: null }, source: 'simulator' });
      const body = JSON.stringify(fake.requests[0].body);
      expect(body).toContain('Dana, a customer who writes short messages.');
      expect(body).toContain('What is the order number?');
      const b = fake.requests[0].body as Record<string, Record<string, unknown> | undefined>;
      const sampling = kind === 'vertex-gemini' ? b.generationConfig! : (b as Record<string, unknown>);
      expect(sampling.temperature).toBe(0);
      expect(sampling.seed).toBe(kind === 'openai' || kind === 'vertex-gemini' ? 42 : undefined);
      expect(body).toMatch(/"enum":\["continue","goal_met","gave_up"\]/);
    } finally {
      await fake.close();
    }
  });
});
