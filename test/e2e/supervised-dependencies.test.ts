import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../core/os/processes.js';
import { pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir, sampleTrace } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * The service's own child processes are supervised (issue 27): the embedded PostgreSQL and the
 * Temporal dev server are each killed with SIGKILL under a running service, with a run in
 * flight; each comes back by itself (logged), health says degraded while it is down, and the run
 * completes with every case recorded once.
 */

let service: ServiceProcess | undefined;
let agent: TestAgent | undefined;
let dataDir: string;

beforeAll(async () => {
  // Each case answers after 300 ms: a run of 12 sequential cases is in flight for seconds.
  agent = await startTestAgent((req) => new Promise((resolve) => setTimeout(() => resolve({ json: { output: `answer to ${String(req.body.input)}` } }), 300)));
  dataDir = makeDataDir('agent-eval-supervised-');
  // Default activity retries (1 s to 30 s, 5 attempts): a store or engine back within seconds loses no case.
  service = await spawnServiceProcess(dataDir);
  expect((await api('/api/agents', { method: 'POST', json: { name: 'slow', endpoint: agent.url } })).status).toBe(201);
});

afterAll(async () => {
  await stopProcess(service);
  await agent?.close();
});

const api = (p: string, init: RequestInit & { json?: unknown } = {}) => apiFetch(service!.apiUrl!, service!.projectId, p, init);

interface Health {
  status: string;
  services: Record<string, string>;
  reasons?: Record<string, string>;
}
const health = async (): Promise<Health> => (await (await api('/api/health')).json()) as Health;

interface RunBody {
  status: string;
  summary: { total_cases: number; passed: number; failed: number };
  progress: { completed: number; total: number };
}

async function startRun(cases: number): Promise<string> {
  const items = Array.from({ length: cases }, (_, i) => ({ name: `case-${i}`, input: `q${i}`, expected: { outputContains: [`q${i}`] } }));
  const created = await api('/api/runs', { method: 'POST', json: { agentId: 'slow', dataset: { items }, scorers: ['contains'] } });
  expect(created.status, await created.clone().text()).toBe(202);
  return ((await created.json()) as { id: string }).id;
}

async function runCompletes(runId: string, cases: number): Promise<void> {
  const done = await pollUntil(
    'the run to complete',
    async () => {
      const run = (await (await api(`/api/runs/${runId}`)).json()) as RunBody;
      return run.status === 'completed' ? run : undefined;
    },
    { timeoutMs: 100_000, describe: () => service!.output().slice(-3000) },
  );
  expect(done.summary).toMatchObject({ total_cases: cases, passed: cases, failed: 0 });
  const results = ((await (await api(`/api/runs/${runId}/results`)).json()) as { results: Array<{ case_name: string }> }).results;
  expect(results.map((r) => r.case_name).sort()).toEqual(Array.from({ length: cases }, (_, i) => `case-${i}`).sort());
}

async function someCasesDone(runId: string): Promise<void> {
  await pollUntil('a few cases done', async () => {
    const run = (await (await api(`/api/runs/${runId}`)).json()) as RunBody;
    return run.progress.completed >= 2 ? run : undefined;
  });
}

describe('supervised dependencies', () => {
  it('restarts the Temporal dev server after kill -9; health degraded meanwhile; the run in flight completes', async () => {
    expect((await health()).status).toBe('healthy');
    const cases = 12;
    const runId = await startRun(cases);
    await someCasesDone(runId);
    const pidFile = path.join(dataDir, 'temporal', 'temporal.pid');
    const before = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(before, 'SIGKILL');
    const down = await pollUntil(
      'health to see the engine down',
      async () => {
        const h = await health();
        return h.services.workflow_engine !== 'ok' ? h : undefined;
      },
      { intervalMs: 50, timeoutMs: 10_000 },
    );
    expect(down.status).toBe('degraded');
    expect(down.reasons?.workflow_engine).toBeTruthy();
    await pollUntil(
      'a new dev server',
      () => {
        const pid = Number(fs.readFileSync(pidFile, 'utf8'));
        return Promise.resolve(pid !== before && isAlive(pid) ? pid : undefined);
      },
      { timeoutMs: 30_000 },
    );
    await pollUntil('health healthy again', async () => ((await health()).status === 'healthy' ? true : undefined), { timeoutMs: 30_000 });
    expect(service!.output()).toContain('Temporal dev server exited unexpectedly; restarting it');
    expect(service!.output()).toContain('Temporal dev server restarted');
    await runCompletes(runId, cases);
  });

  it('restarts the embedded PostgreSQL after kill -9; health degraded meanwhile; ingest and the run in flight go on', async () => {
    const cases = 12;
    const runId = await startRun(cases);
    await someCasesDone(runId);
    const pidFile = path.join(dataDir, 'postgres', 'data', 'postmaster.pid');
    const before = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    process.kill(before, 'SIGKILL');
    const down = await pollUntil(
      'health to see PostgreSQL down',
      async () => {
        const h = await health();
        return h.services.metadata_store !== 'ok' ? h : undefined;
      },
      { intervalMs: 50, timeoutMs: 10_000 },
    );
    expect(down.status).toBe('degraded');
    expect(down.reasons?.metadata_store).toBeTruthy();
    await pollUntil('health healthy again', async () => ((await health()).status === 'healthy' ? true : undefined), {
      timeoutMs: 60_000,
      describe: () => service!.output().slice(-3000),
    });
    const after = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    expect(after).not.toBe(before);
    expect(service!.output()).toContain('embedded PostgreSQL exited unexpectedly; restarting it');
    expect(service!.output()).toContain('embedded PostgreSQL restarted');
    const traceId = crypto.randomBytes(16).toString('hex');
    const ingest = await api('/api/traces/ingest', { method: 'POST', json: sampleTrace(traceId, { spanCount: 2 }) });
    expect(ingest.status, await ingest.text()).toBeLessThan(300);
    await runCompletes(runId, cases);
  });
});
