import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { exited, spawnServiceProcess } from '../helpers/processes.js';
import { makeDataDir } from '../helpers/server.js';
import type { AgentRequest } from '../helpers/test-agent.js';
import { eventually } from '../helpers/eventually.js';
import { expectJson as json, useServiceWithAgent } from '../helpers/test-service-hooks.js';

/**
 * The SPEC's time bounds (a pause lasts 24 h at most, an approval waits 7 days at most) with
 * short configured bounds; runs longer than one workflow history; one case cancelled; a worker
 * that cannot reach the engine.
 */

const { svc: service, agent } = useServiceWithAgent(behaviour, 'bounded', {
  EVAL_RETRY_TIME_SCALE: '0.001',
  EVAL_PAUSE_MAX_MS: '2000',
  EVAL_APPROVAL_MAX_MS: '1500',
  EVAL_HISTORY_MAX_EVENTS: '120',
});

function behaviour(req: AgentRequest) {
  const input = req.body.input as { delay_ms?: number; approval?: string };
  if (input.approval && !req.body.approval) return { json: { output: 'waiting', approval: { tool: input.approval } } };
  const answer = { json: { output: 'ok' } };
  return input.delay_ms ? new Promise<typeof answer>((r) => setTimeout(() => r(answer), input.delay_ms)) : answer;
}

interface RunBody {
  id: string;
  status: string;
  summary: { total_cases: number; passed: number; failed: number; cancelled: number };
}

const run = (id: string) => service.api(`/api/runs/${id}`).then((r) => json<RunBody>(r, 200));
const items = (n: number, input: unknown) => Array.from({ length: n }, (_, i) => ({ name: `case-${i}`, input, expected: { outputContains: ['ok'] } }));
const startRun = (dataset: unknown[], config: Record<string, unknown> = {}) =>
  service
    .api('/api/runs', { method: 'POST', json: { agentId: 'bounded', dataset: { items: dataset }, scorers: ['contains'], config } })
    .then((r) => json<RunBody>(r, 202));

describe('time bounds', () => {
  it('resumes a paused run by itself when the pause bound elapses', async () => {
    const r = await startRun(items(4, { delay_ms: 200 }));
    await json(await service.api(`/api/runs/${r.id}/control`, { method: 'POST', json: { action: 'pause' } }), 202);
    await eventually(async () => expect((await run(r.id)).status).toBe('paused'));
    const pausedAt = Date.now();
    const done = await eventually(async () => {
      const current = await run(r.id);
      expect(current.status).toBe('completed');
      return current;
    });
    expect(Date.now() - pausedAt).toBeGreaterThan(1500);
    expect(done.summary).toMatchObject({ total_cases: 4, passed: 4 });
  });

  it('fails a case whose approval does not come within the approval bound; the run goes on', async () => {
    const r = await startRun([{ name: 'waits', input: { approval: 'wire_money' }, expected: { outputContains: ['ok'] } }, ...items(1, {})], { parallel: true });
    await eventually(async () => expect((await run(r.id)).status).toBe('completed'));
    const results = (await json<{ results: Array<{ case_name: string; status: string; error?: string }> }>(await service.api(`/api/runs/${r.id}/results`), 200))
      .results;
    const waits = results.find((x) => x.case_name === 'waits')!;
    expect(waits.status).toBe('failed');
    expect(waits.error).toMatch(/approval for tool 'wire_money' was not given within 1500 ms/);
    expect(results.find((x) => x.case_name === 'case-0')?.status).toBe('passed');
  });
});

describe('long runs and single cases', () => {
  it('continues as new when the history grows, and still runs every case once', async () => {
    const r = await startRun(items(40, {}), { parallel: true, concurrency: 4 });
    const done = await eventually(async () => {
      const current = await run(r.id);
      expect(current.status).toBe('completed');
      return current;
    }, 90_000);
    expect(done.summary).toMatchObject({ total_cases: 40, passed: 40 });
    expect(agent.requests.filter((q) => q.body.run_id === r.id)).toHaveLength(40);
    // The run's workflow id has more than one execution: it continued as new.
    const connection = await Connection.connect({ address: service.temporalAddress! });
    try {
      const client = new Client({ connection });
      // Visibility records are written after the executions close: give them a moment.
      await eventually(async () => {
        const runs: string[] = [];
        for await (const execution of client.workflow.list({ query: `WorkflowId = "eval-run-${r.id}"` })) runs.push(execution.status.name);
        expect(runs.length).toBeGreaterThan(1);
        expect(runs).toContain('CONTINUED_AS_NEW');
      });
    } finally {
      await connection.close();
    }
  });

  it('cancels one case: it is recorded cancelled, the others run', async () => {
    const r = await startRun(items(5, { delay_ms: 250 }));
    await json(await service.api(`/api/runs/${r.id}/cases/3/cancel`, { method: 'POST', json: {} }), 202);
    const done = await eventually(async () => {
      const current = await run(r.id);
      expect(current.status).toBe('completed');
      return current;
    });
    expect(done.summary).toMatchObject({ total_cases: 5, passed: 4, cancelled: 1 });
    const results = (await json<{ results: Array<{ case_name: string; status: string }> }>(await service.api(`/api/runs/${r.id}/results`), 200)).results;
    expect(results.find((x) => x.case_name === 'case-3')?.status).toBe('cancelled');
    expect(agent.callsFor('case-3', r.id)).toHaveLength(0);
    expect((await service.api(`/api/runs/${r.id}/cases/9/cancel`, { method: 'POST', json: {} })).status).toBe(404);
  });
});

describe('a run whose workflow is gone', () => {
  it('can still be cancelled by the control endpoint (SPEC: a run stuck in running), and refuses pause with 409', async () => {
    const connection = await Connection.connect({ address: service.temporalAddress! });
    try {
      const client = new Client({ connection });
      for (const action of ['cancel', 'pause'] as const) {
        const r = await startRun(items(3, { delay_ms: 2000 }));
        await eventually(async () => expect((await run(r.id)).status).toBe('running'));
        await client.workflow.getHandle(`eval-run-${r.id}`).terminate('operator terminated it');
        const res = await service.api(`/api/runs/${r.id}/control`, { method: 'POST', json: { action } });
        if (action === 'cancel') {
          expect(await json(res, 202)).toMatchObject({ status: 'cancelled' });
          const after = await run(r.id);
          expect(after.status).toBe('cancelled');
          expect(after.summary.cancelled + after.summary.passed).toBe(3);
        } else {
          expect(res.status).toBe(409);
          expect((await run(r.id)).status).toBe('failed');
        }
      }
    } finally {
      await connection.close();
    }
  });
});

describe('worker reconnects', () => {
  it('exits with code 1 after MAX_RECONNECT_ATTEMPTS when the workflow engine is unreachable', async () => {
    const started = Date.now();
    const p = await spawnServiceProcess(makeDataDir('agent-eval-worker-exit-'), {
      AGENT_EVAL_ROLES: 'worker',
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      MAX_RECONNECT_ATTEMPTS: '3',
      RECONNECT_DELAY_MS: '200',
    });
    const { code } = await exited(p.child, 60_000);
    expect(code).toBe(1);
    // Backoff 200 ms, then 400 ms between the three attempts.
    expect(Date.now() - started).toBeGreaterThan(600);
    expect(p.output()).toMatch(/workflow engine unreachable; reconnecting/);
    expect(p.output()).toMatch(/after every reconnect attempt/);
  });
});
