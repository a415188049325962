import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { freeze, silentServer, timed } from '../helpers/hang.js';
import { pollUntil } from '../helpers/processes.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

// Hangs here are real: servers that accept connections and never answer, and a PostgreSQL
// stopped with SIGSTOP. /api/health and /metrics must still answer within a second.

interface Health {
  status: string;
  services: Record<string, string>;
}

async function health(base: string): Promise<{ status: number; body: Health; ms: number }> {
  const { value, ms } = await timed(async () => {
    const res = await fetch(`${base}/api/health`);
    return { status: res.status, body: (await res.json()) as Health };
  });
  return { ...value, ms };
}

/** The scrape token: /metrics answers only with credentials, and the token needs no store to be checked. */
const METRICS_TOKEN = 'health-deadlines-scrape-token-0123456789abcdef';

async function metrics(base: string): Promise<{ status: number; text: string; ms: number }> {
  const { value, ms } = await timed(async () => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    return { status: res.status, text: await res.text() };
  });
  return { ...value, ms };
}

describe('both stores hang (they accept connections and never answer)', () => {
  let clickhouse: Awaited<ReturnType<typeof silentServer>>;
  let postgres: Awaited<ReturnType<typeof silentServer>>;
  let server: Awaited<ReturnType<typeof startApiOnStores>>;
  let base: string;

  beforeAll(async () => {
    [clickhouse, postgres] = await Promise.all([silentServer(), silentServer()]);
    // The production client settings: a ClickHouse request may take a minute, PostgreSQL 5 s to connect.
    server = await startApiOnStores({
      clickhouseUrl: `http://${clickhouse.address}`,
      postgresUrl: `postgres://u:p@${postgres.address}/db`,
      clickhouseTimeoutMs: 60_000,
    });
    base = server.base;
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([clickhouse?.close(), postgres?.close()]);
  });

  it('/api/health answers within a second, every time, naming both stores unavailable', async () => {
    // Calls still hanging from the earlier checks must not slow the later ones.
    for (let i = 0; i < 3; i++) {
      const { status, body, ms } = await health(base);
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: 'unhealthy', services: { analytical_store: 'unavailable', metadata_store: 'unavailable' } });
      expect(ms).toBeLessThan(1000);
    }
  });

  it('/metrics answers within a second', async () => {
    const { status, text, ms } = await metrics(base);
    expect(status).toBe(200);
    expect(text).toMatch(/^agent_eval_ingest_pending_spans 0$/m);
    expect(ms).toBeLessThan(1000);
  });
});

describe('the embedded PostgreSQL stopped with SIGSTOP', () => {
  let svc: TestApi;
  let thaw: (() => void) | undefined;

  beforeAll(async () => {
    svc = await startTestApi({ METRICS_TOKEN });
  });
  afterAll(async () => {
    thaw?.();
    await svc?.stop();
  });

  it('health says degraded with metadata_store unavailable within a second, and healthy again once it resumes', async () => {
    const before = await health(svc.apiUrl!);
    expect(before.body).toMatchObject({ status: 'healthy', services: { analytical_store: 'ok', metadata_store: 'ok' } });

    // The postmaster and its backends, which hold the pool's open connections.
    const pidFile = path.join(svc.dataDir, 'postgres', 'data', 'postmaster.pid');
    const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    thaw = freeze(postmaster);
    try {
      for (let i = 0; i < 2; i++) {
        const { status, body, ms } = await health(svc.apiUrl!);
        expect(status).toBe(200);
        expect(body).toMatchObject({ status: 'degraded', services: { analytical_store: 'ok', metadata_store: 'unavailable' } });
        expect(ms).toBeLessThan(1000);
      }
      const scrape = await metrics(svc.apiUrl!);
      expect(scrape.status).toBe(200);
      expect(scrape.ms).toBeLessThan(1000);
    } finally {
      thaw();
    }
    await pollUntil('health to be healthy after SIGCONT', async () => ((await health(svc.apiUrl!)).body.status === 'healthy' ? true : undefined), {
      timeoutMs: 20_000,
    });
  });
});
