import { afterAll, describe, expect, it } from 'vitest';
import type { TraceDetail, TraceList } from '../../core/model/trace.js';
import { exited, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir, sampleTrace } from '../helpers/server.js';

// The server runs as its own OS process so it can be killed with SIGKILL.
let current: ServiceProcess | undefined;

afterAll(async () => {
  await stopProcess(current);
});

describe('acknowledged writes survive kill -9', () => {
  it('keeps every trace that got a 201 when the server is SIGKILLed right after', async () => {
    const dataDir = makeDataDir('agent-eval-durability-');
    current = await spawnServiceProcess(dataDir);
    const apiUrl = current.apiUrl!;
    const projectId = current.projectId;

    const acked: string[] = [];
    const sends = Array.from({ length: 40 }, (_, i) => `dur-${i}`).map(async (id) => {
      const res = await apiFetch(apiUrl, projectId, '/api/traces/ingest', { method: 'POST', json: sampleTrace(id, { spanCount: 4 }) });
      if (res.status === 201) acked.push(id);
    });
    await Promise.all(sends);
    expect(acked).toHaveLength(40);

    current.child.kill('SIGKILL');
    await exited(current.child);

    current = await spawnServiceProcess(dataDir);
    expect(current.projectId).toBe(projectId);
    for (const id of acked) {
      const res = await apiFetch(current.apiUrl!, projectId, `/api/traces/${id}`);
      expect(res.status, id).toBe(200);
      const trace = (await res.json()) as TraceDetail;
      expect(trace.spans).toHaveLength(4);
      expect(trace).toMatchObject({ span_count: 4, llm_call_count: 2, tool_call_count: 1 });
    }
    const list = (await (await apiFetch(current.apiUrl!, projectId, '/api/traces?limit=100')).json()) as TraceList;
    expect(list.total).toBe(40);
  });

  it('shuts down cleanly on SIGTERM, stopping its PostgreSQL', async () => {
    expect(current).toBeDefined();
    current!.child.kill('SIGTERM');
    expect(await exited(current!.child, 60_000)).toEqual({ code: 0, signal: null });
    expect(current!.output()).toMatch(/shutting down/);
  });
});
