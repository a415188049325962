import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';
import { healthStatus, type HealthDeps } from '../../../api/routes/health.js';
import { requiredServices } from '../../../runtime/health-server.js';
import { getHealth } from './get-health.js';

// What /api/health's status counts for each process (docs/deployment.md, "Health per role"), and
// the one health function deciding it from what the process has.

describe('HEALTH_PORT', () => {
  it('defaults to 8081 (the port the Helm chart and the Compose file probe); 0 picks a free port', () => {
    expect(loadConfig({}).healthPort).toBe(8081);
    expect(loadConfig({ HEALTH_PORT: '0' }).healthPort).toBe(0);
    expect(() => loadConfig({ HEALTH_PORT: '70000' })).toThrowError(ConfigError);
  });
});

describe('requiredServices: what each process cannot work without', () => {
  it('a process serving the API needs its two stores, and what its other roles need too (Kafka for a collector writing to it)', () => {
    expect(requiredServices(['api'], false)).toEqual(['analytical_store', 'metadata_store']);
    expect(requiredServices(['api', 'collector', 'worker'], false)).toEqual(['analytical_store', 'metadata_store']);
    expect(requiredServices(['api', 'collector', 'worker', 'ingester'], true)).toEqual(['analytical_store', 'metadata_store', 'streaming_buffer']);
  });

  it('a collector needs PostgreSQL and where its spans go: Kafka with KAFKA_BROKERS, else ClickHouse', () => {
    expect(requiredServices(['collector'], true)).toEqual(['metadata_store', 'streaming_buffer']);
    expect(requiredServices(['collector'], false)).toEqual(['analytical_store', 'metadata_store']);
  });

  it('an ingester needs Kafka and ClickHouse; a worker both stores (the workflow engine is reported, not counted)', () => {
    expect(requiredServices(['ingester'], true)).toEqual(['analytical_store', 'streaming_buffer']);
    expect(requiredServices(['worker'], true)).toEqual(['analytical_store', 'metadata_store']);
    expect(requiredServices(['collector', 'ingester'], true)).toEqual(['analytical_store', 'metadata_store', 'streaming_buffer']);
  });
});

describe('healthStatus', () => {
  const required = ['metadata_store', 'streaming_buffer'] as const;
  it('is healthy when every required service is ok, unhealthy when none is, degraded otherwise', () => {
    expect(healthStatus({ metadata_store: 'ok', streaming_buffer: 'ok', analytical_store: 'unavailable' }, required)).toBe('healthy');
    expect(healthStatus({ metadata_store: 'ok', streaming_buffer: 'unavailable' }, required)).toBe('degraded');
    expect(healthStatus({ metadata_store: 'unavailable', streaming_buffer: 'unavailable', analytical_store: 'ok' }, required)).toBe('unhealthy');
  });
  it('counts a required service the process does not report as down', () => {
    expect(healthStatus({ metadata_store: 'ok' }, required)).toBe('degraded');
  });
});

describe('GET /api/health with a Kafka sink (a collector)', () => {
  const up = { ping: () => Promise.resolve(true) };
  const down = { ping: () => Promise.reject(new Error('ECONNREFUSED')) };
  const hung = () => new Promise<boolean>(() => undefined);

  const get = (deps: Partial<HealthDeps>) =>
    getHealth({
      config: { version: '9.9.9' },
      auth: { mode: 'required' },
      analytics: up,
      metadata: up,
      required: ['metadata_store', 'streaming_buffer'],
      ...deps,
    });

  it('reports a hung broker as streaming_buffer unavailable within the deadline: degraded, still 200', async () => {
    const { status, body, ms } = await get({ kafkaReachable: hung });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', services: { metadata_store: 'ok', streaming_buffer: 'unavailable', workflow_engine: 'not_configured' } });
    expect(ms).toBeLessThan(1000);
  });

  it('is 503 unhealthy when neither PostgreSQL nor Kafka answers, though ClickHouse does', async () => {
    const { status, body } = await get({ metadata: down, kafkaReachable: () => Promise.resolve(false) });
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'unhealthy', services: { analytical_store: 'ok', metadata_store: 'unavailable', streaming_buffer: 'unavailable' } });
  });

  it('reads Kafka from the consumer lag where the process runs an ingester, without a second round trip', async () => {
    let pinged = 0;
    const { body } = await get({
      consumerLag: () => Promise.resolve(7),
      kafkaReachable: () => Promise.resolve(++pinged > 0),
      sinkStats: () => ({ kind: 'kafka', pendingSpans: 0, pendingBytes: 0 }),
    });
    expect(body).toMatchObject({ status: 'healthy', services: { streaming_buffer: 'ok' }, ingest: { kind: 'kafka', consumerLag: 7 } });
    expect(pinged).toBe(0);
  });

  it('defaults to the API rule and reports no streaming_buffer without Kafka', async () => {
    const { status, body } = await get({ required: undefined, analytics: down });
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'degraded',
      version: '9.9.9',
      auth: 'required',
      services: { analytical_store: 'unavailable', metadata_store: 'ok', workflow_engine: 'not_configured' },
      reasons: { analytical_store: 'ECONNREFUSED' },
    });
  });
});
