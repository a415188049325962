import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { exportSpans, makeExporter, recordSpans } from '../fixtures/otlp/sdk.js';
import { exited, pollUntil, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';

// Two OS processes share one embedded chDB through the ClickHouse gateway: A (`ingester,api`)
// owns chDB and serves it (CLICKHOUSE_GATEWAY_PORT); B (`collector`, no Kafka) has CLICKHOUSE_URL
// pointing at A's gateway, so its batcher inserts over ClickHouse's HTTP interface, and its
// migrations ran there at start. A trace sent to B is read through A's API. Each process has its
// own embedded PostgreSQL (its own default project), so requests name their project.

const PASSWORD = 'split-processes-secret';
const PROJECT = 'proj-gateway-split';

function gatewayUrl(base: string, password: string): string {
  const url = new URL(base);
  url.username = 'default';
  url.password = encodeURIComponent(password);
  return url.toString();
}

describe('roles split across processes over the ClickHouse gateway', () => {
  const dirs = { a: makeDataDir('agent-eval-gw-a-'), b: makeDataDir('agent-eval-gw-b-'), c: makeDataDir('agent-eval-gw-c-') };
  let A: ServiceProcess | undefined;
  let B: ServiceProcess | undefined;

  beforeAll(async () => {
    A = await spawnServiceProcess(dirs.a, { AGENT_EVAL_ROLES: 'ingester,api', CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: PASSWORD });
    B = await spawnServiceProcess(dirs.b, { AGENT_EVAL_ROLES: 'collector', CLICKHOUSE_URL: gatewayUrl(A.clickhouseGatewayUrl!, PASSWORD) });
  });

  afterAll(async () => {
    await stopProcess(B);
    await stopProcess(A);
    for (const dir of Object.values(dirs)) removeDir(dir);
  });

  it('A reports its gateway on loopback; B runs no chDB of its own', () => {
    expect(A!.clickhouseGatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(B!.clickhouseGatewayUrl).toBeUndefined();
    expect(B!.apiUrl).toBeUndefined();
    expect(fs.existsSync(path.join(dirs.a, 'clickhouse'))).toBe(true);
    expect(fs.existsSync(path.join(dirs.b, 'clickhouse'))).toBe(false);
  });

  it('a trace exported to the collector process is stored in the chDB of the other and read through its API', async () => {
    const spans = await recordSpans((tracer) => {
      const root = tracer.startSpan('agent.run', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
      const ctx = trace.setSpan(context.active(), root);
      for (let i = 0; i < 3; i++) {
        tracer.startSpan(`execute_tool search-${i}`, { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } }, ctx).end();
      }
      root.end();
    });
    const exporter = makeExporter('http/protobuf', B!.otlpHttpUrl!, PROJECT);
    expect(await exportSpans(exporter, spans)).toEqual({ code: 0 });
    await exporter.shutdown();

    const traceId = spans[0].spanContext().traceId;
    const got = await pollUntil(`trace ${traceId} through A's API`, async () => {
      const res = await apiFetch(A!.apiUrl!, PROJECT, `/api/traces/${traceId}`);
      if (res.status !== 200) {
        await res.body?.cancel();
        return undefined;
      }
      const body = (await res.json()) as { span_count: number; tool_call_count: number; spans: Array<{ span_id: string; name: string }> };
      return body.spans.length === 4 ? body : undefined;
    });
    expect(got).toMatchObject({ span_count: 4, tool_call_count: 3 });
    expect(new Set(got.spans.map((s) => s.span_id))).toEqual(new Set(spans.map((s) => s.spanContext().spanId)));
    expect(A!.output()).toContain('ClickHouse gateway listening');
    expect(A!.output()).not.toContain('ClickHouse gateway request failed');
  });

  it('a process with the wrong gateway password does not start', async () => {
    const failed = spawnServiceProcess(dirs.c, { AGENT_EVAL_ROLES: 'collector', CLICKHOUSE_URL: gatewayUrl(A!.clickhouseGatewayUrl!, 'wrong') });
    const err = await failed.then(
      (p) => {
        void stopProcess(p);
        throw new Error('started with the wrong password');
      },
      (e: Error) => e,
    );
    expect(err.message).toMatch(/exited \(1\) before it was ready/);
    expect(err.message).toMatch(/AUTHENTICATION_FAILED|Authentication failed/);
  });

  it('the owner stops cleanly while the other process is still connected, then the other does', async () => {
    const started = Date.now();
    A!.child.kill('SIGTERM');
    expect(await exited(A!.child)).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(30_000);
    B!.child.kill('SIGTERM');
    expect(await exited(B!.child)).toEqual({ code: 0, signal: null });
  });
});
