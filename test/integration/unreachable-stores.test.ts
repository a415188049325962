import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { sampleTrace } from '../helpers/server.js';

// Real clients pointed at ports where nothing listens: the stores are genuinely unreachable.
let server: Awaited<ReturnType<typeof startApiOnStores>>;
let base: string;

beforeAll(async () => {
  server = await startApiOnStores({ clickhouseUrl: 'http://127.0.0.1:9', postgresUrl: 'postgres://u:p@127.0.0.1:9/db', clickhouseTimeoutMs: 2_000 });
  base = server.base;
});
afterAll(async () => {
  await server?.close();
});

const headers = { 'x-project-id': 'p', 'content-type': 'application/json' };

describe('unreachable stores', () => {
  it('answers reads with 503 and the SPEC message', async () => {
    const res = await fetch(`${base}/api/traces`, { headers });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; status: number; details: string };
    expect(body).toMatchObject({ error: 'Analytical store service unavailable', status: 503 });
    expect(body.details).toMatch(/ECONNREFUSED|connect/i);
  });

  it('answers ingest with 503 + Retry-After, so clients retry', async () => {
    const res = await fetch(`${base}/api/traces/ingest`, { method: 'POST', headers, body: JSON.stringify(sampleTrace('t-down')) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
  });

  it('reports unhealthy with 503 when no store answers', async () => {
    const res = await fetch(`${base}/api/health`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'unhealthy', services: { analytical_store: 'unavailable', metadata_store: 'unavailable' } });
  });
});

/** Every store and the workflow engine configured on a port nothing listens on. */
const NOTHING_REACHABLE = {
  clickhouseUrl: 'http://127.0.0.1:9',
  postgresUrl: 'postgres://u:p@127.0.0.1:9/db',
  clickhouseTimeoutMs: 1_000,
  temporalAddress: '127.0.0.1:9',
};

describe('workflow engine in health', () => {
  it('reports a configured but unreachable workflow engine as unavailable (within the health deadline)', async () => {
    const s = await startApiOnStores(NOTHING_REACHABLE);
    const started = Date.now();
    const res = await fetch(`${s.base}/api/health`);
    const body = (await res.json()) as { services: Record<string, string> };
    expect(body.services.workflow_engine).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(3_000);
    await s.close();
  });

  it('answers run routes with 503 Database not available when the metadata store is down', async () => {
    const s = await startApiOnStores(NOTHING_REACHABLE);
    const res = await fetch(`${s.base}/api/runs/00000000-0000-4000-8000-000000000000/status`, { headers: { 'x-project-id': 'p1' } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe('Database not available');
    await s.close();
  });
});
