import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../core/os/processes.js';
import { exited, pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * A run survives the death of the whole server: the service process (with its worker, its
 * embedded PostgreSQL and its Temporal dev server) is SIGKILLed mid-run and started again on
 * the same data dir; the run completes with every case recorded exactly once.
 */

let current: ServiceProcess | undefined;
let agent: TestAgent | undefined;

afterAll(async () => {
  await stopProcess(current);
  await agent?.close();
});

interface RunBody {
  status: string;
  summary: { total_cases: number; passed: number; failed: number };
  progress: { completed: number; total: number };
}

describe('evaluation runs survive kill -9', () => {
  it('completes a run after the server is SIGKILLed mid-run and started again, each case recorded once', async () => {
    agent = await startTestAgent(
      (req) => new Promise((resolve) => setTimeout(() => resolve({ json: { output: `answer to ${String(req.body.input)}` } }), 150)),
    );
    const env = { EVAL_RETRY_TIME_SCALE: '0.001' };
    const dataDir = makeDataDir('agent-eval-eval-durability-');
    current = await spawnServiceProcess(dataDir, env);
    const api = (p: string, init: RequestInit & { json?: unknown } = {}) => apiFetch(current!.apiUrl!, current!.projectId, p, init);

    expect((await api('/api/agents', { method: 'POST', json: { name: 'slow', endpoint: agent.url } })).status).toBe(201);
    const cases = 16;
    const items = Array.from({ length: cases }, (_, i) => ({ name: `case-${i}`, input: `q${i}`, expected: { outputContains: [`q${i}`] } }));
    const created = await api('/api/runs', { method: 'POST', json: { agentId: 'slow', dataset: { items }, scorers: ['contains'] } });
    expect(created.status).toBe(202);
    const runId = ((await created.json()) as { id: string }).id;

    await pollUntil('a few cases done', async () => {
      const run = (await (await api(`/api/runs/${runId}`)).json()) as RunBody;
      return run.progress.completed >= 4 ? run : undefined;
    });
    const temporalPid = Number(fs.readFileSync(path.join(dataDir, 'temporal', 'temporal.pid'), 'utf8'));
    current.child.kill('SIGKILL');
    await exited(current.child);
    const callsBeforeKill = agent.requests.length;
    expect(callsBeforeKill).toBeLessThan(cases);
    // The dev server was a child of the killed process: it is orphaned, still holding the database.
    expect(isAlive(temporalPid)).toBe(true);

    current = await spawnServiceProcess(dataDir, env);
    // The new process stopped the orphan and runs a dev server of its own on the same database.
    expect(isAlive(temporalPid)).toBe(false);
    const done = await pollUntil(
      'the run to complete after the restart',
      async () => {
        const run = (await (await api(`/api/runs/${runId}`)).json()) as RunBody;
        return run.status === 'completed' ? run : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(done.summary).toMatchObject({ total_cases: cases, passed: cases, failed: 0 });
    expect(done.progress).toEqual({ completed: cases, total: cases, cancelled: 0 });

    const results = ((await (await api(`/api/runs/${runId}/results`)).json()) as { results: Array<{ case_name: string; trials: unknown[] }> }).results;
    expect(results.map((r) => r.case_name).sort()).toEqual(items.map((i) => i.name).sort());
    expect(results.every((r) => r.trials.length === 1)).toBe(true);

    // Every case reached the agent; only a call in flight at the kill can have been made twice
    // (at-least-once), and its retry carried the same trace id for the agent to recognise it.
    for (const item of items) {
      const calls = agent.callsFor(item.name, runId);
      expect(calls.length, item.name).toBeGreaterThanOrEqual(1);
      expect(calls.length, item.name).toBeLessThanOrEqual(2);
      expect(new Set(calls.map((c) => c.body.trace_id)).size).toBe(1);
    }
    expect(agent.requests.length).toBeLessThanOrEqual(cases + 1);
  });
});
