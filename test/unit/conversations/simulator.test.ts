import { describe, expect, it } from 'vitest';
import { simulateUserTurn, SimulatorAnswerError, SimulatorUnavailableError, type SimulatorDeps } from '../../../core/conversations/simulator.js';
import { simulatorCallName, simulatorCallSpan, simulatorTurnOf } from '../../../core/conversations/simulator-span.js';
import { userTurnsOfCalls } from '../../../core/conversations/replay.js';
import type { JudgeGeneration } from '../../../core/judges/judge.js';
import { SimulationSchema } from '../../../core/model/conversation.js';
import { NO_PROVIDERS, providerSet } from '../../../core/providers/set.js';
import type { StructuredResponse } from '../../../core/providers/types.js';
import type { StoredJudgeCall } from '../../../core/store/judges.js';
import { stubProvider } from '../judges/stub-provider.js';

/** A provider in process answering from a script (the wire protocols are the integration tests'). */
function scripted(...answers: Array<Partial<StructuredResponse>>) {
  const provider = stubProvider(answers, { name: 'openai', model: 'gpt-test', stopReason: 'stop' });
  const requests = provider.asked;
  const generations: JudgeGeneration[] = [];
  const deps: SimulatorDeps = {
    runtime: { providers: providerSet(['openai'], 'openai', () => provider), maxAnswerAttempts: 2, maxOutputTokens: 100 },
    hooks: {
      onGeneration: (g) => {
        generations.push(g);
        return Promise.resolve();
      },
    },
  };
  return { deps, requests, generations };
}

const simulation = SimulationSchema.parse({ persona: 'Dana', goal: 'A refund', max_turns: 5, first_message: 'Hello', seed: 7, model: 'gpt-x' });

describe('simulateUserTurn', () => {
  it('takes first_message as turn 1 and recorded turns on replay, without a call', async () => {
    const { deps, requests } = scripted();
    expect(await simulateUserTurn(deps, { simulation, messages: [], turn: 1 })).toEqual({
      tag: 'turn',
      turn: { message: 'Hello', stop: null },
      source: 'first_message',
    });
    const recorded = [undefined, { message: 'Order 4417', stop: null }, { message: 'Thanks', stop: 'goal_met' as const }];
    expect(await simulateUserTurn(deps, { simulation, messages: [], turn: 3, recorded })).toEqual({ tag: 'turn', turn: recorded[2], source: 'replay' });
    expect(requests).toHaveLength(0);
  });

  it('asks the model at temperature 0 with the seed, and records every call under the turn’s name', async () => {
    const { deps, requests, generations } = scripted({
      value: { message: 'Order 4417', status: 'continue' },
      raw: { message: 'Order 4417', status: 'continue' },
    });
    const outcome = await simulateUserTurn(deps, {
      simulation,
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Number?' },
      ],
      turn: 2,
    });
    expect(outcome).toEqual({ tag: 'turn', turn: { message: 'Order 4417', stop: null }, source: 'simulator' });
    expect(requests[0]).toMatchObject({ model: 'gpt-x', temperature: 0, seed: 7, tool: { name: 'next_user_message' } });
    expect(generations).toMatchObject([{ scorer: '@simulated_user:2', attempt: 1, status: 'ok', provider: 'openai' }]);
  });

  it('reads free text when the model did not call the tool, and fails clearly after unusable answers', async () => {
    const text = scripted({ raw: 'Fine, thanks. [GOAL_MET]', problem: 'the model did not call next_user_message' });
    expect(await simulateUserTurn(text.deps, { simulation, messages: [], turn: 4 })).toMatchObject({ turn: { message: 'Fine, thanks.', stop: 'goal_met' } });
    const bad = scripted({ value: { message: 'x', status: 'hmm' }, raw: {} }, { problem: 'the answer is empty' });
    const err = await simulateUserTurn(bad.deps, { simulation, messages: [], turn: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SimulatorAnswerError);
    expect((err as Error).message).toBe("the simulated user's answer for turn 4 was unusable after 2 attempts: the answer is empty");
    expect(bad.requests[1].messages[0].content).toContain('Your previous answer could not be used: status must be continue, goal_met or gave_up (got "hmm")');
    expect(bad.generations.map((g) => g.status)).toEqual(['unusable', 'unusable']);
  });

  it('stops without a call when the budget gate says so, and needs a provider', async () => {
    const { deps, requests } = scripted();
    deps.hooks = { beforeCall: () => Promise.resolve('judge budget reached') };
    expect(await simulateUserTurn(deps, { simulation, messages: [], turn: 2 })).toEqual({ tag: 'stopped', reason: 'judge budget reached' });
    expect(requests).toHaveLength(0);
    await expect(
      simulateUserTurn({ runtime: { providers: NO_PROVIDERS, maxAnswerAttempts: 1, maxOutputTokens: 1 } }, { simulation, messages: [], turn: 2 }),
    ).rejects.toThrow(SimulatorUnavailableError);
  });
});

describe('the simulated user in the case trace and in replay', () => {
  const call = (turn: number, status: StoredJudgeCall['status'], output: unknown, attempt = 1): StoredJudgeCall => ({
    id: `${turn}-${attempt}-${status}`,
    case_index: 0,
    trial: 0,
    scorer: simulatorCallName(turn),
    provider: 'openai',
    model: 'gpt-5.4',
    attempt,
    status,
    error: null,
    input: { system: 's', messages: [] },
    output,
    input_tokens: 100,
    output_tokens: 10,
    cached_input_tokens: 0,
    cost_usd: 0.001,
    price_version: '2026-11-23',
    started_ms: 1_000,
    ended_ms: 1_250,
  });

  it('names calls so no scorer can collide, and reads the turn back', () => {
    expect(simulatorCallName(3)).toBe('@simulated_user:3');
    expect(simulatorTurnOf('@simulated_user:3')).toBe(3);
    expect(simulatorTurnOf('llmJudge:politeness')).toBeUndefined();
    expect(simulatorTurnOf('@simulated_user:x')).toBeUndefined();
  });

  it('is a generation span of component type simulated_user with its turn, model, tokens and cost', () => {
    const span = simulatorCallSpan({ ...call(2, 'ok', { message: 'hi', status: 'continue' }), cost: { cost_usd: 0.001, price_version: 'v' } });
    expect(span).toMatchObject({ name: 'simulated user: turn 2', type: 'generation', model: 'gpt-5.4', input_tokens: 100, output_tokens: 10, status: 'ok' });
    expect(span.attributes).toMatchObject({
      component_type: 'simulated_user',
      'agent_eval.simulated_user_turn': 2,
      'agent_eval.simulated_user_attempt': 1,
      'agent_eval.simulated_user_status': 'ok',
      'agent_eval.cost_usd': 0.001,
      'gen_ai.request.model': 'gpt-5.4',
    });
    expect(span.attributes).not.toHaveProperty('agent_eval.judge');
  });

  it('replays the last usable answer of each turn, skipping judges and failed calls', () => {
    const calls = [
      call(2, 'unusable', { status: 'hmm' }),
      call(2, 'ok', { message: 'Order 4417', status: 'continue' }, 2),
      { ...call(2, 'ok', { score: 1 }), scorer: 'helpfulness_judge' },
      call(3, 'error', null),
      call(3, 'ok', 'Thanks! [GOAL_MET]', 2),
    ];
    expect(userTurnsOfCalls(calls)).toEqual([undefined, { message: 'Order 4417', stop: null }, { message: 'Thanks!', stop: 'goal_met' }]);
  });
});
