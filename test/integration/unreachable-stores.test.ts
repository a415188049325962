import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { createBatcher } from '../../collector/batcher.js';
import { createCollector } from '../../collector/index.js';
import { createLogger } from '../../core/logger.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { httpClickHouse } from '../../core/store/clickhouse/client.js';
import { createMetadataStore, createPool } from '../../core/store/postgres/metadata-store.js';
import { listen, type RunningServer } from '../../runtime/http-server.js';
import { sampleTrace } from '../helpers/server.js';

// Real clients pointed at ports where nothing listens: the stores are genuinely unreachable.
let server: RunningServer;
let base: string;

beforeAll(async () => {
  const logger = createLogger('silent');
  const analytics = createAnalyticsStore(httpClickHouse(createClient({ url: 'http://127.0.0.1:9', request_timeout: 2_000 })));
  const metadata = createMetadataStore(createPool('postgres://u:p@127.0.0.1:9/db'));
  const sink = createBatcher({ writer: analytics, maxSpans: 100, maxWaitMs: 0, maxPendingBytes: 1 << 20, logger });
  const app = createApp({ config: { maxBodyBytes: 1 << 20, version: 'test' }, logger, analytics, metadata, collector: createCollector({ sink, maxSpanBytes: 1_000_000 }) });
  server = await listen(app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
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

describe('workflow engine in health', () => {
  it('reports a configured but unreachable workflow engine as unavailable, and one that listens as ok', async () => {
    const net = await import('node:net');
    const listener = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const port = (listener.address() as { port: number }).port;
    const logger = createLogger('silent');
    const analytics = createAnalyticsStore(httpClickHouse(createClient({ url: 'http://127.0.0.1:9', request_timeout: 1_000 })));
    const metadata = createMetadataStore(createPool('postgres://u:p@127.0.0.1:9/db'));
    const sink = createBatcher({ writer: analytics, maxSpans: 10, maxWaitMs: 0, maxPendingBytes: 1 << 20, logger });
    for (const [address, expected] of [[`127.0.0.1:${port}`, 'ok'], ['127.0.0.1:9', 'unavailable']] as const) {
      const app = createApp({ config: { maxBodyBytes: 1 << 20, version: 'test', temporalAddress: address }, logger, analytics, metadata, collector: createCollector({ sink, maxSpanBytes: 1_000_000 }) });
      const s = await listen(app, 0, '127.0.0.1');
      const body = (await (await fetch(`http://127.0.0.1:${s.port}/api/health`)).json()) as { services: Record<string, string> };
      expect(body.services.workflow_engine).toBe(expected);
      await s.close();
    }
    listener.close();
  });
});
