import { afterAll, describe, expect, it } from 'vitest';
import type { CaseResultView, RunView } from '../../core/model/eval-run.js';
import { callsPerTurn, conversationAgent } from '../helpers/conversation-agents.js';
import { exited, pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * A conversation survives the death of the whole server (docs/evals.md, "Conversations", "After a
 * crash"): the service process (its worker, embedded PostgreSQL and Temporal dev server) is
 * SIGKILLed mid-conversation and started again on the same data dir; every conversation resumes at
 * the turn it was on, and no turn recorded before the kill reaches the agent again.
 */

let current: ServiceProcess | undefined;
let agent: TestAgent | undefined;

afterAll(async () => {
  await stopProcess(current);
  await agent?.close();
});

describe('conversations survive kill -9', () => {
  it('resumes each conversation at its turn after the server is SIGKILLed, recorded turns called once', async () => {
    // `slow`: 300 ms per answer, so the kill lands mid-conversation.
    agent = await startTestAgent(conversationAgent);
    const env = { EVAL_RETRY_TIME_SCALE: '0.001' };
    const dataDir = makeDataDir('agent-eval-conversation-durability-');
    current = await spawnServiceProcess(dataDir, env);
    const api = (p: string, init: RequestInit & { json?: unknown } = {}) => apiFetch(current!.apiUrl!, current!.projectId, p, init);
    expect((await api('/api/agents', { method: 'POST', json: { name: 'chat', endpoint: agent.url } })).status).toBe(201);

    const turns = [
      { input: 'Hello, my name is Ana.' },
      ...Array.from({ length: 8 }, (_, i) => ({ input: `Small talk ${i + 1}.` })),
      { input: 'What is my name?', expected: { outputContains: ['Ana'] } },
    ];
    const names = ['memory slow a', 'memory slow b', 'memory slow c'];
    const created = await api('/api/runs', {
      method: 'POST',
      json: { agentId: 'chat', dataset: { items: names.map((name) => ({ name, turns })) }, scorers: ['contains'], config: { parallel: true } },
    });
    expect(created.status).toBe(202);
    const runId = ((await created.json()) as RunView).id;

    const results = async () => ((await (await api(`/api/runs/${runId}/results`)).json()) as { results: CaseResultView[] }).results;
    // Some turns of every conversation recorded, none finished.
    const before = await pollUntil('a few turns recorded in each conversation', async () => {
      const r = await results();
      return r.every((c) => (c.running?.[0]?.turns.length ?? 0) >= 3) ? r : undefined;
    });
    current.child.kill('SIGKILL');
    await exited(current.child);
    const recordedBefore = Object.fromEntries(before.map((c) => [c.case_name, c.running![0].turns.map((t) => t.turn)]));

    current = await spawnServiceProcess(dataDir, env);
    const done = await pollUntil(
      'the run to complete after the restart',
      async () => {
        const run = (await (await api(`/api/runs/${runId}`)).json()) as RunView;
        return run.status === 'completed' ? run : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(done.summary).toMatchObject({ total_cases: 3, passed: 3, failed: 0 });

    for (const c of await results()) {
      const trial = c.trials[0];
      expect(trial.conversation, c.case_name).toEqual({ ended: 'script_done', turns_done: 10 });
      expect(trial.turns!.map((t) => t.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(trial.turns![9].output).toBe('Your name is Ana.');
      const calls = callsPerTurn(agent.requests, runId, c.case_name);
      // A turn recorded before the kill was never asked again; only the turn in flight at the
      // kill may have reached the agent twice (at-least-once), every other turn exactly once.
      for (const turn of recordedBefore[c.case_name]) expect(calls[turn], `${c.case_name} turn ${turn}`).toBe(1);
      const twice = Object.entries(calls).filter(([, n]) => n > 1);
      expect(twice.length, c.case_name).toBeLessThanOrEqual(1);
      expect(Object.values(calls).every((n) => n <= 2)).toBe(true);
      expect(Object.keys(calls).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }
  }, 300_000);
});
