import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentEvalClient, defineSuite, evaluate, shutdown, type TraceDetail } from '../../sdk/index.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { ruleBasedUser, ORDER_FACT } from '../helpers/refund-conversation.js';
import { forgetfulAgent, memoryAgent, NAME_AFTER_SMALL_TALK, RETAINS_THE_NAME } from '../helpers/sdk-memory-agents.js';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * Conversations in local runs against a real service (issue 30): the SDK's evaluate() runs a
 * multi-turn agent function that remembers (or forgets) what the user said, turn by turn, and
 * uploads each trial with its turns; GET /api/runs/{id} and /results show them as for a managed
 * run. A simulated user is played in the client through its own provider configuration (a local
 * server speaking Anthropic's wire protocol, answering by rules). The upload's checks.
 */

let service: TestService;
let client: AgentEvalClient;
let anthropic: FakeProvider;

beforeAll(async () => {
  [service, anthropic] = await Promise.all([startTestService(), startFakeProvider('anthropic')]);
  client = new AgentEvalClient({ url: service.apiUrl, apiKey: service.apiKey });
  anthropic.setDefault(ruleBasedUser);
});

afterAll(async () => {
  await shutdown();
  await anthropic?.close();
  await service?.stop();
});

/** The trace once all `names` are in it (spans arrive by OTLP a moment after the run completes). */
const traceWith = (traceId: string, names: string[]): Promise<TraceDetail> =>
  eventually(async () => {
    const t = await client.traces.get(traceId);
    expect(t.spans.map((s) => s.name)).toEqual(expect.arrayContaining(names));
    return t;
  }, 30_000);

const MEMORY = defineSuite({
  name: 'memory-conversations',
  scorers: ['contains'],
  cases: [
    { name: 'single', input: 'my name is Bo. What is my name?', expected: { outputContains: ['Bo'] } },
    { ...NAME_AFTER_SMALL_TALK, scorers: ['contains', RETAINS_THE_NAME] },
  ],
});

describe('evaluate() with a multi-turn agent function, uploaded', () => {
  it('passes with an agent that remembers: the run, its turns and their scores as GET /api/runs/{id} and /results show them', async () => {
    const result = await evaluate(MEMORY, { client, agent: memoryAgent, agentName: 'memory-bot', agentVersion: 'v1' });
    expect(result.passed).toBe(true);
    const run = await client.runs.get(result.runId!);
    expect(run).toMatchObject({ execution: 'local', status: 'completed', summary: { total_cases: 2, passed: 2, failed: 0 } });
    expect(result.summary).toEqual(run.summary);

    const { results } = await client.runs.results(result.runId!);
    const conversation = results.find((r) => r.case_name === 'name after small talk')!;
    expect(conversation).toMatchObject({ status: 'passed', output: 'Your name is Ana.' });
    expect(Object.keys(conversation.scores)).toEqual(['knowledgeRetention']);
    const [trial] = conversation.trials;
    expect(trial.conversation).toEqual({ ended: 'script_done', turns_done: 4 });
    expect(trial.turns!.map((t) => [t.turn, t.user, t.output, t.avg_score, t.passed])).toEqual([
      [1, 'Hi, my name is Ana.', 'Noted.', null, true],
      [2, 'I live in Lyon.', 'Noted.', 1, true],
      [3, 'Nice weather today.', 'Noted.', null, true],
      [4, 'What is my name?', 'Your name is Ana.', 1, true],
    ]);
    expect(trial.turns![3].details.contains).toMatchObject({ score: 1 });
    // What the SDK computed is what the service stored.
    const local = result.cases.find((c) => c.case_name === 'name after small talk')!;
    expect(local.trials[0].turns!.map((t) => t.passed)).toEqual(trial.turns!.map((t) => t.passed));
    expect(local.avg_score).toBe(conversation.avg_score);

    // One trace per trial: a span per turn's agent call, the trial a session of its own.
    const t = await traceWith(trial.trace_id!, [
      'eval: name after small talk',
      'turn 1: agent call',
      'turn 4: agent call',
      'turn 4: score: contains',
      'score: knowledgeRetention',
    ]);
    const root = t.spans.find((s) => s.name === 'eval: name after small talk')!;
    expect(root.attributes).toMatchObject({ 'agent_eval.turns': '4', 'agent_eval.conversation_ended': 'script_done' });
    expect(root.attributes['session.id']).toMatch(/^[0-9a-f]{32}$/);
    expect(t.spans.find((s) => s.name === 'turn 3: agent call')!.attributes).toMatchObject({ 'agent_eval.turn': '3' });
  });

  it('fails where planted with an agent that forgets after two turns, naming the turn', async () => {
    const result = await evaluate(MEMORY, { client, agent: forgetfulAgent(2), agentName: 'memory-bot', agentVersion: 'v2-forgetful' });
    expect(result.passed).toBe(false);
    const { results } = await client.runs.results(result.runId!);
    const conversation = results.find((r) => r.case_name === 'name after small talk')!;
    expect(conversation.status).toBe('failed');
    expect(conversation.error).toMatch(/knowledgeRetention|turn 4/);
    expect(conversation.trials[0].turns!.map((t) => t.passed)).toEqual([true, true, true, false]);
    expect(conversation.trials[0].turns![3]).toMatchObject({ output: 'I do not know your name.', details: { contains: { score: 0 } } });
    expect(conversation.scores.knowledgeRetention).toBe(0);
    expect((await client.runs.get(result.runId!)).summary).toMatchObject({ passed: 1, failed: 1 });
  });

  it("plays a simulated user in the client, through the client's own provider: its calls are spans of the case trace", async () => {
    const suite = defineSuite({
      name: 'refund-simulated',
      scorers: ['turnsToGoal'],
      cases: [
        {
          name: 'broken order',
          simulation: {
            persona: 'Dana, short messages.',
            goal: 'A refund for order 4417.',
            facts: [ORDER_FACT],
            max_turns: 6,
            first_message: 'My order arrived broken.',
          },
        },
      ],
    });
    const before = anthropic.requests.length;
    const result = await evaluate(suite, { client, agent: memoryAgent, providerEnv: fakeProviderEnv({ anthropic }) });
    expect(result.passed).toBe(true);
    // Turn 1 is the first message as written; the user was asked for turns 2 and 3 (it met its goal on 3).
    expect(anthropic.requests.length - before).toBe(2);
    const { results } = await client.runs.results(result.runId!);
    const [trial] = results[0].trials;
    expect(trial.conversation).toEqual({ ended: 'goal_met', turns_done: 2 });
    expect(trial.turns!.map((t) => [t.user, t.output])).toEqual([
      ['My order arrived broken.', 'Could you give me your order number?'],
      ['It is order 4417.', 'Refund issued for order 4417.'],
    ]);
    const t = await traceWith(trial.trace_id!, ['simulated user: turn 2', 'simulated user: turn 3', 'turn 2: agent call']);
    const simulated = t.spans.filter((s) => s.name.startsWith('simulated user'));
    expect(simulated.map((s) => [s.type, s.component_type, s.attributes['agent_eval.simulated_user_turn'], s.parent_span_id])).toEqual([
      ['generation', 'simulated_user', '2', t.spans.find((s) => s.name === 'eval: broken order')!.span_id],
      ['generation', 'simulated_user', '3', t.spans.find((s) => s.name === 'eval: broken order')!.span_id],
    ]);
    expect(simulated[0].input_tokens).toBe(250);
  });
});

describe("the local-run upload of a conversation's turns", () => {
  const items = [
    { name: 'one call', input: 'hi', expected: { outputContains: ['hi'] } },
    {
      name: 'two turns',
      turns: [
        { input: 'a', expected: { outputContains: ['A'] } },
        { input: 'b', scorers: ['exactMatch'] },
      ],
    },
  ];
  const turn = (n: number, extra: Record<string, unknown> = {}) => ({ turn: n, user: n === 1 ? 'a' : 'b', output: 'A', ...extra });

  it('records the turns with their trial, judged by the service; the same upload again changes nothing', async () => {
    const run = await client.runs.createLocal({ agentId: 'script', dataset: { items }, scorers: ['contains'] });
    const trial = {
      case_index: 1,
      duration_ms: 20,
      details: {},
      turns: [turn(1, { details: { contains: { score: 1 } } }), turn(2, { details: { exactMatch: { score: 0, reason: 'differs' } } })],
      conversation: { ended: 'script_done' as const },
    };
    await expect(client.runs.addResults(run.id, [trial])).resolves.toMatchObject({ accepted: 1, progress: { completed: 1, total: 2 } });
    await client.runs.addResults(run.id, [{ ...trial, turns: [turn(1, { details: { contains: { score: 0 } } }), turn(2)] }]);
    const { results } = await client.runs.results(run.id);
    expect(results[1].trials[0].turns!.map((t) => [t.turn, t.passed, t.avg_score])).toEqual([
      [1, true, 1],
      [2, false, 0],
    ]);
    expect(results[1].status).toBe('failed');
    expect(results[1].error).toMatch(/^turn 2: scorer 'exactMatch' scored 0/);
  });

  it("names each problem: turns of a single-turn case, a conversation without them, their order, their scorers, the end's shape", async () => {
    const run = await client.runs.createLocal({ agentId: 'script', dataset: { items }, scorers: ['contains'] });
    const problems = (results: unknown[]) =>
      client.runs.addResults(run.id, results as never).then(
        () => [],
        (err: Error) => err.message,
      );
    expect(await problems([{ case_index: 0, duration_ms: 1, turns: [turn(1)], conversation: { ended: 'script_done' } }])).toContain(
      'results[0].turns: case 0 is a single-turn case: upload its answer, not turns',
    );
    expect(await problems([{ case_index: 1, duration_ms: 1, details: {} }])).toContain(
      'results[0].turns: case 1 is a conversation: upload its turns and conversation.ended (null when it did not end)',
    );
    const bad = await problems([
      {
        case_index: 1,
        duration_ms: 1,
        turns: [turn(1, { error: 'timed out' }), turn(3, { details: { regex: { score: 1 } } }), turn(3)],
        conversation: { ended: 'goal_met' },
      },
    ]);
    expect(bad).toContain('results[0].turns: case 1 has at most 2 turns; 3 were uploaded');
    expect(bad).toContain('results[0].turns[0].error: only the last turn can have failed: a failed turn ends the conversation');
    expect(bad).toContain('results[0].turns[1].turn: must be 2: turns are numbered from 1, in order');
    expect(bad).toContain('results[0].turns[1].details.regex: is not a scorer of turn 3 of case 1');
    expect(bad).toContain('results[0].conversation.ended: a scripted conversation ends with script_done (or null when it did not end)');
    expect(await problems([{ case_index: 1, duration_ms: 1, turns: [turn(1)], conversation: { ended: 'script_done' } }])).toContain(
      'results[0].conversation.ended: script_done needs all 2 turns of case 1; 1 were uploaded',
    );
    await expect(client.runs.addResults(run.id, [{ case_index: 1, duration_ms: 1, turns: [{ turn: 0, user: 'a' }] }] as never)).rejects.toThrow(
      /422.*results\[0\]\.turns\[0\]\.turn/,
    );
  });

  it('refuses replay_from: a local run plays its own simulated users', async () => {
    await expect(
      client.runs.createLocal({
        agentId: 'script',
        dataset: { items },
        scorers: ['contains'],
        config: { replay_from: '3dacd577-ba1c-4aa5-a78e-46c372f098d4' },
      }),
    ).rejects.toThrow(
      'Service API error: 400 config.replay_from: replaying a recorded conversation is for runs the service executes; start the run without execution "local"',
    );
  });
});
