import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { loopingRefundBot, messagesOf, ORDER_FACT, refundBot, REFUND_ISSUED, ruleBasedUser } from '../helpers/refund-conversation.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';

/**
 * Simulated users in real runs: the service (Temporal dev server, embedded PostgreSQL, chDB), an
 * agent with memory over HTTP, and the simulated user played by a local server speaking OpenAI's
 * wire protocol, answering by rules from what it is shown (deterministic). Conversations pass and
 * fail where planted; replay gives a new agent version the recorded user turns without a single
 * call to the provider.
 */

interface Turn {
  turn: number;
  user: string;
  output: unknown;
}
interface CaseResult {
  case_name: string;
  status: string;
  passed: boolean;
  trace_id: string | null;
  trials: Array<{ turns?: Turn[]; conversation?: { ended: string | null; turns_done: number } | null }>;
}
interface TraceSpan {
  name: string;
  type: string;
  component_type: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
}

let openai: FakeProvider;
let service: TestService;
let agent: TestAgent;

const persona = 'Dana, a customer who writes short messages.';
const goal = 'Get a refund for order 4417, which arrived broken.';
const ITEMS = [
  {
    name: 'knows the order number',
    simulation: { persona, goal, facts: [ORDER_FACT], max_turns: 5, first_message: 'Hi, my order arrived broken.', model: 'gpt-5.4', seed: 7 },
    expected: { outputContains: ['refund issued'] },
  },
  {
    name: 'does not know it',
    simulation: { persona, goal, facts: [], max_turns: 5, first_message: 'Hi, my order arrived broken.' },
    expected: { outputContains: ['refund issued'] },
  },
];

async function run(agentVersion: string, config: Record<string, unknown> = {}): Promise<string> {
  const created = await json<{ id: string }>(
    await service.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'support-bot', agentVersion, dataset: { items: ITEMS }, scorers: ['contains'], config },
    }),
    202,
  );
  await eventually(async () => expect((await json<{ status: string }>(await service.api(`/api/runs/${created.id}`), 200)).status).toBe('completed'), 120_000);
  return created.id;
}

async function results(runId: string): Promise<Record<string, CaseResult>> {
  const body = await json<{ results: CaseResult[] }>(await service.api(`/api/runs/${runId}/results`), 200);
  return Object.fromEntries(body.results.map((r) => [r.case_name, r]));
}

const usersOf = (r: CaseResult) => (r.trials[0].turns ?? []).map((t) => t.user);

beforeAll(async () => {
  openai = await startFakeProvider('openai');
  openai.setDefault(ruleBasedUser);
  // The agent's behaviour by version: v1 remembers the conversation, v2 loops.
  agent = await startTestAgent((req) => (req.body.agent_version === 'v2-loops' ? loopingRefundBot(req) : refundBot()(req)));
  service = await startTestService({ ...fakeProviderEnv({ openai }), EVAL_RETRY_TIME_SCALE: '0.001' });
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'support-bot', endpoint: agent.url } }), 201);
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
  await openai?.close();
});

describe('a run with simulated users', () => {
  let recorded: string;

  it('passes the conversation that reaches its goal and fails the one where the user gives up', async () => {
    openai.requests.length = 0;
    recorded = await run('v1');
    const r = await results(recorded);
    const ok = r['knows the order number'];
    expect(ok).toMatchObject({ status: 'passed', passed: true });
    expect(ok.trials[0].conversation).toEqual({ ended: 'goal_met', turns_done: 2 });
    expect(usersOf(ok)).toEqual(['Hi, my order arrived broken.', 'It is order 4417.']);
    expect(ok.trials[0].turns?.at(-1)?.output).toBe(REFUND_ISSUED);
    const gaveUp = r['does not know it'];
    expect(gaveUp).toMatchObject({ status: 'failed', passed: false });
    expect(gaveUp.trials[0].conversation).toEqual({ ended: 'gave_up', turns_done: 2 });
    // The agent got the conversation so far with every turn; the simulated user was greedy and seeded.
    const calls = agent.callsFor('knows the order number', recorded);
    expect(calls.map((c) => messagesOf(c).map((m) => m.role))).toEqual([['user'], ['user', 'assistant', 'user']]);
    const seeded = openai.requests.map((q) => q.body).filter((b) => JSON.stringify(b).includes(ORDER_FACT));
    expect(seeded.every((b) => b.temperature === 0 && b.seed === 7 && b.model === 'gpt-5.4')).toBe(true);
    // Two turns written per case (turn 1 was the case's first_message), the last one ending it.
    expect(openai.requests).toHaveLength(4);
  });

  it("shows the simulated user's calls in the case trace as simulated_user generation spans", async () => {
    const ok = (await results(recorded))['knows the order number'];
    const spans = await eventually(async () => {
      const body = await json<{ spans: TraceSpan[] }>(await service.api(`/api/traces/${ok.trace_id}`), 200);
      const simulated = body.spans.filter((s) => s.component_type === 'simulated_user');
      expect(simulated).toHaveLength(2);
      return simulated;
    });
    expect(spans.map((s) => s.name).sort()).toEqual(['simulated user: turn 2', 'simulated user: turn 3']);
    expect(spans.every((s) => s.type === 'generation' && s.model === 'gpt-5.4' && s.input_tokens === 250 && s.output_tokens === 15)).toBe(true);
  });

  it('replays the recorded user turns against a new agent version without calling the provider', async () => {
    openai.requests.length = 0;
    const replay = await run('v2-loops', { replay_from: recorded });
    expect(openai.requests).toHaveLength(0);
    const r = await results(replay);
    const ok = r['knows the order number'];
    // The same user turns, and the recorded goal_met ends it at the same turn; the looping agent fails the case.
    expect(usersOf(ok)).toEqual(['Hi, my order arrived broken.', 'It is order 4417.']);
    expect(ok.trials[0].conversation).toEqual({ ended: 'goal_met', turns_done: 2 });
    expect(ok).toMatchObject({ status: 'failed', passed: false });
    expect(agent.callsFor('knows the order number', replay).map((c) => messagesOf(c).at(-1)?.content)).toEqual([
      'Hi, my order arrived broken.',
      'It is order 4417.',
    ]);
  });

  it('refuses a replay_from that is not a run of the project', async () => {
    const res = await service.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'support-bot', dataset: { items: ITEMS }, scorers: ['contains'], config: { replay_from: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'RUN_NOT_FOUND', message: 'Replay run 00000000-0000-4000-8000-000000000000 not found' });
  });
});
