import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { startDevServer } from '../../workflows/engine/dev-server.js';
import { eventually } from '../helpers/eventually.js';
import { makeDataDir, startTestService } from '../helpers/server.js';
import { startTestAgent } from '../helpers/test-agent.js';

/** TEMPORAL_ADDRESS: the service uses a workflow engine it does not own, in the namespace and task queue it is told. */
describe('an external workflow engine (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE)', () => {
  it('runs evaluations on that engine, in that namespace, and leaves the engine running on stop', async () => {
    const engineDir = makeDataDir('agent-eval-external-temporal-');
    const engine = await startDevServer({
      dataDir: engineDir,
      cacheDir: process.env.AGENT_EVAL_CACHE_DIR ?? `${process.env.HOME}/.cache/agent-eval`,
      namespace: 'team-evals',
      logger: createLogger('silent'),
    });
    const agent = await startTestAgent(() => ({ json: { output: 'pong' } }));
    const svc = await startTestService({ TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: 'team-evals', TEMPORAL_TASK_QUEUE: 'team-queue' });
    try {
      expect(svc.temporalAddress).toBe(engine.address);
      expect((await svc.api('/api/agents', { method: 'POST', json: { name: 'pinger', endpoint: agent.url } })).status).toBe(201);
      const created = await svc.api('/api/runs', {
        method: 'POST',
        json: { agentId: 'pinger', dataset: { items: [{ input: 'ping', expected: { outputContains: ['pong'] } }] }, scorers: ['contains'] },
      });
      const { id } = (await created.json()) as { id: string };
      await eventually(async () => expect(((await (await svc.api(`/api/runs/${id}`)).json()) as { status: string }).status).toBe('completed'));
      const connection = await Connection.connect({ address: engine.address });
      try {
        const handle = new Client({ connection, namespace: 'team-evals' }).workflow.getHandle(`eval-run-${id}`);
        // The run is marked completed by the workflow's last activity, just before the workflow itself completes.
        await eventually(async () => expect(await handle.describe()).toMatchObject({ taskQueue: 'team-queue', status: { name: 'COMPLETED' } }));
      } finally {
        await connection.close();
      }
    } finally {
      await svc.stop();
      await agent.close();
    }
    // The service does not own an external engine: it is still there after the service stopped.
    const connection = await Connection.connect({ address: engine.address });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    await engine.stop();
  });
});
