import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../core/auth/authenticator.js';
import { createPool } from '../../core/store/postgres/metadata-store.js';
import { createKeyStore } from '../../core/store/postgres/key-store.js';
import { decodeStatus, grpcExport, postTraces, recentRequest } from '../fixtures/otlp/harness.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { removeDir, spawnServiceProcess, stopProcess } from '../helpers/processes.js';
import { sampleTrace, startTestService, type TestService } from '../helpers/server.js';

/**
 * Credentials on every route (API keys and JWTs), projects and keys, isolation between
 * projects, and the OTLP receivers behind the same checks: the real service (chDB, embedded
 * PostgreSQL), with AUTH_MODE=required as it ships.
 */

const JWT_SECRET = 'a-test-secret-that-is-at-least-32-chars-long';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ JWT_SECRET, AUTH_CACHE_TTL_MS: '60000' });
});

afterAll(async () => {
  await svc?.stop();
});

async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

function token(claims: Record<string, unknown>, opts: { secret?: string; expiresIn?: string | number } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn ?? '5m')
    .sign(new TextEncoder().encode(opts.secret ?? JWT_SECRET));
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('credentials', () => {
  it('answers 401 with the SPEC body to a call without credentials, and leaves health open', async () => {
    const body = await json(await svc.api('/api/traces', { key: null }), 401);
    expect(body).toEqual({
      error: 'Unauthorized',
      code: 'UNAUTHORIZED',
      status: 401,
      details: 'Valid authentication required',
      hint: 'Provide a bearer token or an API key header',
    });
    const health = await svc.api('/api/health', { key: null, project: null });
    expect(health.status).toBe(200);
    // Health says whether calls need credentials (the dashboard asks it before sign-in).
    expect(await health.json()).toMatchObject({ auth: 'required' });
    // So does the OpenAPI document: other languages' clients are generated from it without a key.
    const doc = await svc.api('/api/openapi.json', { key: null, project: null });
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string; paths: Record<string, unknown> }).paths).toHaveProperty(['/api/traces/{traceId}']);
  });

  it('refuses malformed, unknown, revoked-looking and tampered keys with 401', async () => {
    const real = svc.apiKey!;
    const tampered = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
    for (const key of ['nope', 'ae_live_', `ae_live_${'x'.repeat(32)}`, tampered, real.toUpperCase(), `Bearer ${real}`]) {
      expect((await svc.api('/api/traces', { key })).status, key).toBe(401);
    }
  });

  it('writes the bootstrap credentials to credentials.json (0600) and accepts the key from X-API-Key in any case', async () => {
    const file = path.join(svc.dataDir, 'credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(fs.readFileSync(file, 'utf8')) as { project_id: string; api_key: string };
    expect(creds.project_id).toBe(svc.defaultProjectId);
    expect(creds.api_key).toMatch(/^ae_live_[A-Za-z0-9]{32}$/);
    expect((await svc.api('/api/traces', { key: null, headers: { 'X-API-Key': creds.api_key } })).status).toBe(200);
  });
});

describe('projects and keys', () => {
  it('creates a project with its first admin key, shown once; lists keys without secrets; revokes', async () => {
    const created = await json<{ id: string; api_key: { id: string; key: string; prefix: string; role: string } }>(
      await svc.api('/api/projects', { method: 'POST', json: { name: 'Team A', id: 'team-a' } }),
      201,
    );
    expect(created).toMatchObject({ id: 'team-a', name: 'Team A', api_key: { role: 'admin' } });
    expect(created.api_key.key.startsWith(created.api_key.prefix)).toBe(true);
    const adminA = created.api_key.key;

    const viewer = await json<{ id: string; key: string }>(
      await svc.api('/api/projects/team-a/keys', { method: 'POST', project: 'team-a', key: adminA, json: { name: 'dashboard', role: 'viewer', env: 'test' } }),
      201,
    );
    expect(viewer.key).toMatch(/^ae_test_/);
    const list = await json<{ keys: Array<Record<string, unknown>> }>(await svc.api('/api/projects/team-a/keys', { project: 'team-a', key: adminA }), 200);
    expect(list.keys.map((k) => k.name).sort()).toEqual(['dashboard', 'first admin key']);
    for (const k of list.keys) {
      expect(Object.keys(k).sort()).toEqual([
        'created_at',
        'created_by',
        'id',
        'last_used_at',
        'name',
        'prefix',
        'project_id',
        'revoked_at',
        'role',
        'server_admin',
      ]);
      expect(JSON.stringify(k)).not.toContain(viewer.key.slice(16));
    }
    // Duplicate id, bad role and env: refused without a 500.
    expect((await svc.api('/api/projects', { method: 'POST', json: { name: 'again', id: 'team-a' } })).status).toBe(409);
    expect((await svc.api('/api/projects/team-a/keys', { method: 'POST', project: 'team-a', key: adminA, json: { name: 'x', role: 'owner' } })).status).toBe(
      422,
    );
    expect((await svc.api('/api/projects/team-a/keys', { method: 'POST', project: 'team-a', key: adminA, json: { name: 'x', env: 'LIVE!' } })).status).toBe(
      422,
    );

    expect((await svc.api('/api/traces', { project: 'team-a', key: viewer.key })).status).toBe(200);
    expect((await svc.api(`/api/projects/team-a/keys/${viewer.id}`, { method: 'DELETE', project: 'team-a', key: adminA })).status).toBe(204);
    // Revoked in this process: refused at once.
    expect((await svc.api('/api/traces', { project: 'team-a', key: viewer.key })).status).toBe(401);
    expect((await svc.api(`/api/projects/team-a/keys/${viewer.id}`, { method: 'DELETE', project: 'team-a', key: adminA })).status).toBe(404);
    expect((await svc.api('/api/projects/team-a/keys/not-a-uuid', { method: 'DELETE', project: 'team-a', key: adminA })).status).toBe(404);
  });

  it('maps roles to permissions: a viewer reads but cannot write; a member cannot manage keys (403 missing permission)', async () => {
    const admin = await svc.keyFor('roles');
    const mk = async (role: string) =>
      (
        await json<{ key: string }>(
          await svc.api('/api/projects/roles/keys', { method: 'POST', project: 'roles', key: admin, json: { name: role, role } }),
          201,
        )
      ).key;
    const viewer = await mk('viewer');
    const member = await mk('member');
    expect((await svc.api('/api/traces', { project: 'roles', key: viewer })).status).toBe(200);
    const denied = await json(await svc.api('/api/traces/ingest', { method: 'POST', project: 'roles', key: viewer, json: sampleTrace('viewer-write') }), 403);
    expect(denied).toMatchObject({ error: 'Forbidden', status: 403, details: 'missing permission traces:write' });
    expect(typeof denied.hint).toBe('string');
    expect((await svc.api('/api/traces/ingest', { method: 'POST', project: 'roles', key: member, json: sampleTrace('member-write') })).status).toBe(201);
    expect(await json(await svc.api('/api/projects/roles/keys', { project: 'roles', key: member }), 403)).toMatchObject({
      details: 'missing permission projects:admin',
    });
    expect(await json(await svc.api('/api/runs', { method: 'POST', project: 'roles', key: viewer, json: {} }), 403)).toMatchObject({
      details: 'missing permission evals:run',
    });
  });
});

describe('isolation', () => {
  it("binds a key to its project: another project's data is 404 or absent, naming it in the header is 403", async () => {
    const keyA = await svc.keyFor('iso-a');
    const keyB = await svc.keyFor('iso-b');
    expect((await svc.api('/api/traces/ingest', { method: 'POST', project: 'iso-a', key: keyA, json: sampleTrace('iso-trace') })).status).toBe(201);
    const agent = await json<{ id: string }>(
      await svc.api('/api/agents', { method: 'POST', project: 'iso-a', key: keyA, json: { name: 'a-agent', endpoint: 'http://127.0.0.1:9/' } }),
      201,
    );

    // B's key, B's project: A's things do not exist.
    expect((await svc.api('/api/traces/iso-trace', { project: 'iso-b', key: keyB })).status).toBe(404);
    expect((await svc.api(`/api/agents/${agent.id}`, { project: 'iso-b', key: keyB })).status).toBe(404);
    const list = await json<{ traces: Array<{ trace_id: string }> }>(await svc.api('/api/traces', { project: 'iso-b', key: keyB }), 200);
    expect(list.traces.map((t) => t.trace_id)).not.toContain('iso-trace');
    expect((await svc.api('/api/projects/iso-a/keys', { project: 'iso-b', key: keyB })).status).toBe(404);
    expect((await svc.api('/api/projects/iso-a', { project: 'iso-b', key: keyB })).status).toBe(404);

    // B's key naming A: 403, never A's data; the same by query parameter.
    const forbidden = await json(await svc.api('/api/traces/iso-trace', { project: 'iso-a', key: keyB }), 403);
    expect(forbidden).toMatchObject({ error: 'Forbidden', status: 403 });
    expect((await svc.api('/api/traces/iso-trace?project_id=iso-a', { project: null, key: keyB })).status).toBe(403);
    // A write with B's key cannot land in A.
    expect((await svc.api('/api/traces/ingest', { method: 'POST', project: 'iso-a', key: keyB, json: sampleTrace('sneaky') })).status).toBe(403);
    expect((await svc.api('/api/traces/sneaky', { project: 'iso-a', key: keyA })).status).toBe(404);
  });
});

describe('JWT bearer tokens', () => {
  it('accepts an HS256 token with sub, role, project_id and exp; refuses expired, forged and incomplete ones', async () => {
    await svc.keyFor('jwt-a');
    const ok = await token({ sub: 'user-1', role: 'member', project_id: 'jwt-a' });
    expect((await svc.api('/api/traces', { project: null, key: null, headers: bearer(ok) })).status).toBe(200);
    expect((await svc.api('/api/projects/jwt-a/keys', { project: null, key: null, headers: bearer(ok) })).status).toBe(403);

    const expired = await token({ sub: 'user-1', role: 'member', project_id: 'jwt-a' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    expect(await json(await svc.api('/api/traces', { project: null, key: null, headers: bearer(expired) }), 401)).toMatchObject({ details: 'Token expired' });
    const forged = await token({ sub: 'user-1', role: 'admin', project_id: 'jwt-a' }, { secret: 'another-secret-that-is-32-characters-long' });
    expect((await svc.api('/api/traces', { project: null, key: null, headers: bearer(forged) })).status).toBe(401);
    const noRole = await token({ sub: 'user-1', project_id: 'jwt-a' });
    expect((await svc.api('/api/traces', { project: null, key: null, headers: bearer(noRole) })).status).toBe(401);
    const noProject = await token({ sub: 'user-1', role: 'admin' });
    expect((await svc.api('/api/traces', { project: null, key: null, headers: bearer(noProject) })).status).toBe(401);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', role: 'admin', project_id: 'jwt-a', exp: 9e9 })).toString('base64url')}.`;
    expect((await svc.api('/api/traces', { project: null, key: null, headers: bearer(none) })).status).toBe(401);
  });

  it('with several projects: the call must name one it may reach (SPEC 403 workspace context), else 403', async () => {
    const multi = await token({ sub: 'user-2', role: 'viewer', projects: ['jwt-a', 'jwt-b'] });
    const noHeader = await json(await svc.api('/api/traces', { project: null, key: null, headers: bearer(multi) }), 403);
    expect(noHeader).toMatchObject({
      error: 'Forbidden',
      details: 'Workspace context required for this operation (provide the workspace header or query parameter)',
    });
    expect((await svc.api('/api/traces', { project: 'jwt-b', key: null, headers: bearer(multi) })).status).toBe(200);
    expect((await svc.api('/api/traces', { project: 'jwt-c', key: null, headers: bearer(multi) })).status).toBe(403);
    const projects = await json<{ projects: Array<{ id: string }> }>(
      await svc.api('/api/projects', { project: 'jwt-a', key: null, headers: bearer(multi) }),
      200,
    );
    expect(projects.projects.map((p) => p.id).sort()).toEqual(['jwt-a']);
  });
});

const OTLP_TRACE_ID = '5bf7651916cd43dd8448eb211c80319d';

/** `count` spans of one recent trace (span ids 1..count). */
const sampleRequest = (count: number) => recentRequest(OTLP_TRACE_ID, count);

describe('the OTLP receivers', () => {
  it("need a key over HTTP (both ports) and gRPC; an export lands in the key's project", async () => {
    const key = await svc.keyFor('otlp-auth');
    for (const base of [svc.otlpHttpUrl!, svc.apiUrl!]) {
      const denied = await postTraces(base, sampleRequest(1), { project: null });
      expect(denied.status).toBe(401);
      expect(decodeStatus(new Uint8Array(await denied.arrayBuffer()))).toMatchObject({ code: 16, message: 'Unauthorized' });
      const ok = await postTraces(base, sampleRequest(2), { project: null, headers: { 'x-api-key': key } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      // Naming another project with this key: 403, PERMISSION_DENIED.
      expect((await postTraces(base, sampleRequest(1), { project: 'iso-a', headers: { 'x-api-key': key } })).status).toBe(403);
    }
    expect((await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), {})).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), { 'x-api-key': 'ae_live_wrong' })).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), { 'x-api-key': key, 'x-project-id': 'iso-a' })).error?.code).toBe(
      grpc.status.PERMISSION_DENIED,
    );
    expect((await grpcExport(svc.otlpGrpcAddress!, sampleRequest(3), { 'x-api-key': key })).error).toBeUndefined();
    const trace = await eventually(async () => json<{ spans: unknown[] }>(await svc.api(`/api/traces/${OTLP_TRACE_ID}`, { project: 'otlp-auth', key }), 200));
    expect(trace.spans.length).toBe(3);
    expect((await svc.api(`/api/traces/${OTLP_TRACE_ID}`)).status).toBe(404);
  });
});

describe('revocation across processes', () => {
  it('a key revoked elsewhere stops working within the cache TTL', async () => {
    const admin = await svc.keyFor('revoke-ttl');
    const made = await json<{ id: string; key: string }>(
      await svc.api('/api/projects/revoke-ttl/keys', { method: 'POST', project: 'revoke-ttl', key: admin, json: { name: 'short-lived' } }),
      201,
    );
    // A second authenticator over the same PostgreSQL stands for another API process.
    const metadata = openServiceMetadata(svc.dataDir);
    const ttlMs = 700;
    const other = createAuthenticator({ mode: 'required', keys: metadata.keys, cacheTtlMs: ttlMs });
    try {
      expect((await other.authenticate({ 'x-api-key': made.key })).projectId).toBe('revoke-ttl');
      expect((await svc.api(`/api/projects/revoke-ttl/keys/${made.id}`, { method: 'DELETE', project: 'revoke-ttl', key: admin })).status).toBe(204);
      const revokedAt = Date.now();
      // Within the TTL the other process may still accept it (its cache); after it, never.
      await eventually(async () => {
        await expect(other.authenticate({ 'x-api-key': made.key })).rejects.toMatchObject({ status: 401 });
      }, 5000);
      expect(Date.now() - revokedAt).toBeLessThan(ttlMs + 500);
    } finally {
      await other.close();
      await metadata.close();
    }
  });

  it('a metadata store that is down is a 503 for a key not in the cache, not a 401 or a 500', async () => {
    const pool = createPool('postgres://postgres:x@127.0.0.1:1/postgres');
    const down = createAuthenticator({ mode: 'required', keys: createKeyStore(pool), cacheTtlMs: 1000 });
    try {
      await expect(down.authenticate({ 'x-api-key': svc.apiKey! })).rejects.toMatchObject({ status: 503, message: 'Database not available' });
    } finally {
      await down.close();
      await pool.end();
    }
  });
});

describe('hostile credentials', () => {
  it('answers 4xx, never 5xx, to junk in the credential headers', async () => {
    const junk = [
      '',
      ' ',
      'x'.repeat(6000),
      'ae_live_\u0000\u0000',
      'ae_live_' + 'é'.repeat(32),
      "ae_live_' OR 1=1 --aaaaaaaaaaaaaaaaaaa",
      'ae__' + 'a'.repeat(32),
      '__proto__',
      'ae_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'null',
      '{"$ne":null}',
    ];
    const statuses: number[] = [];
    for (const value of junk) {
      const variants: Array<Record<string, string>> = [
        { 'x-api-key': value },
        { authorization: `Bearer ${value}` },
        { authorization: value },
        { 'x-api-key': value, 'x-project-id': value },
      ];
      for (const headers of variants) {
        let res: Response;
        try {
          res = await svc.api('/api/traces', { key: null, project: null, headers });
        } catch {
          continue; // fetch itself refuses some header values (NUL): nothing reached the server
        }
        statuses.push(res.status);
        expect(res.status, JSON.stringify(headers).slice(0, 80)).toBeGreaterThanOrEqual(400);
        expect(res.status, JSON.stringify(headers).slice(0, 80)).toBeLessThan(500);
      }
    }
    expect(statuses.length).toBeGreaterThan(30);
    // Concurrent hostile and valid calls: every valid one answered 200.
    const mixed = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? svc.api('/api/traces') : svc.api('/api/traces', { key: `ae_live_${String(i).padStart(32, 'z')}` }))),
    );
    mixed.forEach((res, i) => expect(res.status).toBe(i % 3 === 0 ? 200 : 401));
  });
});

describe('AUTH_MODE=none and the first start, out of process', () => {
  it('prints where the credentials are, never the key; with AUTH_MODE=none calls need no key but a project', async () => {
    const dir = makeDataDir();
    let proc = await spawnServiceProcess(dir, { AUTH_MODE: 'required', AGENT_EVAL_ROLES: 'api', TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const creds = JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
      expect(proc.output()).toContain('credentials.json');
      expect(proc.output()).not.toContain(creds.api_key);
      expect((await fetch(`${proc.apiUrl}/api/traces`)).status).toBe(401);
      expect((await fetch(`${proc.apiUrl}/api/traces`, { headers: { 'x-api-key': creds.api_key } })).status).toBe(200);
      await stopProcess(proc);
      // A restart keeps the key (and the file); with AUTH_MODE=none anyone may call.
      proc = await spawnServiceProcess(dir, { AUTH_MODE: 'none', AGENT_EVAL_ROLES: 'api', TEMPORAL_ADDRESS: '127.0.0.1:1' });
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'))).toEqual(creds);
      const noProject = await fetch(`${proc.apiUrl}/api/traces`);
      expect(noProject.status).toBe(400);
      expect(await noProject.json()).toMatchObject({ error: 'Workspace context required' });
      expect((await fetch(`${proc.apiUrl}/api/traces`, { headers: { 'x-project-id': 'anything' } })).status).toBe(200);
      expect(await (await fetch(`${proc.apiUrl}/api/health`)).json()).toMatchObject({ auth: 'none' });
    } finally {
      await stopProcess(proc);
      removeDir(dir);
    }
  });
});
