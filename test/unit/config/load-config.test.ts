import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, PACKAGE_VERSION } from '../../../core/config.js';
import { ConfigError } from '../../../core/errors.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, otlpGrpcPort: 4317, otlpHttpPort: 4318, retentionDays: 90, logLevel: 'info', kafka: undefined });
    expect(c.dataDir.endsWith('.agent-eval')).toBe(true);
    expect(c.roles).toEqual(['api', 'collector', 'worker', 'ingester']);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('lists every problem at once', () => {
    expect(() => loadConfig({ PORT: 'abc', RETENTION_DAYS: '0', LOG_LEVEL: 'loud', AGENT_EVAL_ROLES: 'api,chef' })).toThrowError(ConfigError);
    try {
      loadConfig({ PORT: 'abc', RETENTION_DAYS: '0', LOG_LEVEL: 'loud', AGENT_EVAL_ROLES: 'api,chef' });
    } catch (err) {
      const text = (err as Error).message;
      for (const name of ['PORT', 'RETENTION_DAYS', 'LOG_LEVEL', 'AGENT_EVAL_ROLES']) expect(text).toContain(name);
    }
  });

  it("holds pauses and approvals to the SPEC's bounds: 24 hours and 7 days", () => {
    expect(loadConfig({}).evals).toMatchObject({ pauseMaxMs: 86_400_000, approvalMaxMs: 604_800_000 });
    expect(loadConfig({ EVAL_PAUSE_MAX_MS: '60000', EVAL_APPROVAL_MAX_MS: '3600000' }).evals).toMatchObject({ pauseMaxMs: 60_000, approvalMaxMs: 3_600_000 });
    expect(() => loadConfig({ EVAL_PAUSE_MAX_MS: String(86_400_001) })).toThrow(/EVAL_PAUSE_MAX_MS/);
    expect(() => loadConfig({ EVAL_APPROVAL_MAX_MS: String(8 * 86_400_000) })).toThrow(/EVAL_APPROVAL_MAX_MS/);
  });

  it('reads Kafka brokers and roles', () => {
    const c = loadConfig({ KAFKA_BROKERS: 'a:9092, b:9092', AGENT_EVAL_ROLES: 'collector,ingester' });
    expect(c.kafka?.brokers).toEqual(['a:9092', 'b:9092']);
    expect(c.roles).toEqual(['collector', 'ingester']);
  });

  it('reports the package version', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });

  it('refuses to start with a JWT secret shorter than 32 characters; defaults to keys required and the SPEC rate limits', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short-secret' })).toThrow(/JWT_SECRET: must be at least 32 characters/);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).auth.jwtSecret).toBe('x'.repeat(32));
    const config = loadConfig({});
    expect(config.auth).toMatchObject({ mode: 'required', cacheTtlMs: 10_000 });
    expect(config.auth.jwtSecret).toBeUndefined();
    expect(config.rateLimits).toEqual({ ingest: 1000, query: 100, evalRuns: 10 });
    expect(() => loadConfig({ AUTH_MODE: 'off' })).toThrow(/AUTH_MODE/);
  });
});

describe('loadConfig: the ClickHouse gateway (CLICKHOUSE_GATEWAY_*)', () => {
  it('is off unless CLICKHOUSE_GATEWAY_PORT is set; then it listens on loopback with the password', () => {
    expect(loadConfig({}).clickhouseGateway).toBeUndefined();
    expect(loadConfig({ CLICKHOUSE_GATEWAY_PASSWORD: 'secret' }).clickhouseGateway).toBeUndefined();
    expect(loadConfig({ CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: 'secret' }).clickhouseGateway).toEqual({
      port: 0,
      host: '127.0.0.1',
      password: 'secret',
    });
    expect(loadConfig({ CLICKHOUSE_GATEWAY_PORT: '8123', CLICKHOUSE_GATEWAY_HOST: '10.0.0.5', CLICKHOUSE_GATEWAY_PASSWORD: 's' }).clickhouseGateway).toEqual({
      port: 8123,
      host: '10.0.0.5',
      password: 's',
    });
  });

  it('refuses a gateway without a password, with CLICKHOUSE_URL, or on a port that is not one', () => {
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: '0' })).toThrow(/CLICKHOUSE_GATEWAY_PASSWORD: required/);
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: '  ' })).toThrow(/CLICKHOUSE_GATEWAY_PASSWORD: required/);
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: 's', CLICKHOUSE_URL: 'http://ch:8123' })).toThrow(
      /CLICKHOUSE_GATEWAY_PORT: cannot be used with CLICKHOUSE_URL/,
    );
    // Both problems at once.
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_URL: 'http://ch:8123' })).toThrow(/CLICKHOUSE_URL[\s\S]*CLICKHOUSE_GATEWAY_PASSWORD/);
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: '70000', CLICKHOUSE_GATEWAY_PASSWORD: 's' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLICKHOUSE_GATEWAY_PORT: 'http', CLICKHOUSE_GATEWAY_PASSWORD: 's' })).toThrow(/CLICKHOUSE_GATEWAY_PORT/);
  });
});
