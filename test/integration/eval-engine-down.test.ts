import { describe, expect, it } from 'vitest';
import { useTestService } from '../helpers/test-service-hooks.js';

/** The workflow engine is a dependency like the stores: when it is down, runs are a retryable 503 and nothing is left behind. */

const service = useTestService(
  { AGENT_EVAL_ROLES: 'api', TEMPORAL_ADDRESS: '127.0.0.1:9' },
  {
    async seed(svc) {
      // Not port 9: that is the engine's address here, which the egress policy refuses as the service's own.
      const res = await svc.api('/api/agents', { method: 'POST', json: { name: 'nowhere', endpoint: 'http://127.0.0.1:1/agent' } });
      expect(res.status).toBe(201);
    },
  },
);

describe('workflow engine unreachable', () => {
  it('answers POST /api/runs with 503 Workflow engine service unavailable and Retry-After, and stores no run', async () => {
    const started = Date.now();
    const res = await service.api('/api/runs', { method: 'POST', json: { agentId: 'nowhere', dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] } });
    expect(res.status).toBe(503);
    // Bounded by the engine call deadline (5 s), not by the Temporal client's own retries.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(await res.json()).toMatchObject({ error: 'Workflow engine service unavailable', status: 503 });
    const list = (await (await service.api('/api/runs')).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  it('refuses hostile run bodies with a 4xx naming the field, before anything reaches a store or the engine', async () => {
    const item = { input: 'x' };
    const bodies: Array<[unknown, number, string]> = [
      [{ agentId: 'nowhere', dataset: { items: [{ input: 'nul \u0000 inside' }] }, scorers: ['contains'] }, 422, 'dataset.items[0].input'],
      [{ agentId: 'nowhere', agentVersion: 'v\ud800', dataset: { items: [item] }, scorers: ['contains'] }, 422, 'agentVersion'],
      [{ agentId: 'nowhere', dataset: { items: [item] }, scorers: ['contains'], config: { repetitions: 1e9 } }, 422, 'config.repetitions'],
      [{ agentId: 'nowhere', dataset: { items: [item] }, scorers: ['contains'], config: { timeout_ms: -1 } }, 422, 'config.timeout_ms'],
      [{ agentId: 'nowhere', dataset: { items: Array.from({ length: 10_001 }, () => item) }, scorers: ['contains'] }, 422, 'dataset.items'],
      [{ agentId: 'nowhere', dataset: { items: [item] }, scorers: [{ name: 'regex', config: { pattern: '(' } }] }, 422, 'scorers[0]'],
      [{ agentId: 'x'.repeat(100_000), dataset: { items: [item] }, scorers: ['contains'] }, 422, 'agentId'],
    ];
    for (const [body, status, field] of bodies) {
      const res = await service.api('/api/runs', { method: 'POST', json: body });
      const text = await res.text();
      expect(res.status, text).toBe(status);
      expect(text, text).toContain(field);
    }
    expect(((await (await service.api('/api/runs')).json()) as { total: number }).total).toBe(0);
  });

  it('reports the engine unavailable in health: degraded (runs cannot work), not unhealthy (the stores answer), with the reason', async () => {
    const body = (await (await service.api('/api/health')).json()) as { status: string; services: Record<string, string>; reasons: Record<string, string> };
    expect(body).toMatchObject({ status: 'degraded', services: { workflow_engine: 'unavailable', analytical_store: 'ok', metadata_store: 'ok' } });
    expect(body.reasons.workflow_engine).toBeTruthy();
  });
});
