import * as grpc from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../core/audit/audit-log.js';
import { createLogger } from '../../core/logger.js';
import { createProjectDeletion } from '../../core/projects/project-deletion.js';
import { purgeProjectAnalytics } from '../../core/store/clickhouse/project-purge.js';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { decodeStatus, grpcExport, postTraces, sampleRequest } from '../fixtures/otlp/harness.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { sampleTrace, startTestService, type TestService } from '../helpers/server.js';

/**
 * Project governance (docs/security.md, "Server admins and project governance"): only a server
 * admin creates projects (a project admin gets the same 403 whatever the id), lists every
 * project, archives one (read-only: reads work, writes are 403 on the API and both OTLP
 * transports) and deletes an archived one: its keys stop at once, and its data leaves PostgreSQL
 * and ClickHouse, nothing left behind, even when the deletion is cut short and resumed. The real
 * service (PostgreSQL, chDB).
 */

const JWT_SECRET = 'a-governance-secret-that-is-32-chars-or-more';
let svc: TestService;
let metadata: MetadataStore;

beforeAll(async () => {
  svc = await startTestService({ AGENT_EVAL_ROLES: 'api,collector', TEMPORAL_ADDRESS: '127.0.0.1:1', JWT_SECRET });
  metadata = openServiceMetadata(svc.dataDir);
});

afterAll(async () => {
  await metadata?.close();
  await svc?.stop();
});

async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** As the bootstrap key (a server admin), naming no project. */
const asServerAdmin = (path: string, init: RequestInit & { json?: unknown } = {}) => svc.api(path, { ...init, project: null, key: svc.apiKey! });

function token(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));
}

interface AdminProject {
  id: string;
  status: string;
  archived_at: string | null;
  deleted_at: string | null;
  purged_at: string | null;
}

async function adminProject(id: string): Promise<AdminProject | undefined> {
  const { projects } = await json<{ projects: AdminProject[] }>(await asServerAdmin('/api/admin/projects'), 200);
  return projects.find((p) => p.id === id);
}

describe('creating projects', () => {
  it("is a server admin's: the bootstrap key creates one; its admin cannot, and learns nothing of which ids exist", async () => {
    const created = await json<{ id: string; api_key: { key: string; role: string; server_admin: boolean } }>(
      await asServerAdmin('/api/projects', { method: 'POST', json: { id: 'gov-a', name: 'Team A' } }),
      201,
    );
    expect(created).toMatchObject({ id: 'gov-a', archived_at: null, api_key: { role: 'admin', server_admin: false } });
    const projectAdmin = created.api_key.key;

    const taken = await svc.api('/api/projects', { method: 'POST', project: 'gov-a', key: projectAdmin, json: { id: 'gov-a', name: 'again' } });
    const free = await svc.api('/api/projects', { method: 'POST', project: 'gov-a', key: projectAdmin, json: { id: 'gov-never-made', name: 'new' } });
    const takenBody = await json(taken, 403);
    expect(takenBody).toMatchObject({ error: 'Forbidden', code: 'FORBIDDEN', status: 403, details: 'missing permission server:admin' });
    expect(await json(free, 403)).toEqual(takenBody);
    expect((await svc.api('/api/projects/gov-never-made', { project: 'gov-a', key: projectAdmin })).status).toBe(404);

    // A server admin may list every project: an id taken is a plain 409 for them.
    expect(await json(await asServerAdmin('/api/projects', { method: 'POST', json: { id: 'gov-a', name: 'again' } }), 409)).toMatchObject({
      code: 'PROJECT_EXISTS',
    });
  });

  it('server admins make further server-admin keys; a project admin cannot, and a JWT is one with server_admin: true', async () => {
    const made = await json<{ key: string; server_admin: boolean }>(
      await asServerAdmin(`/api/projects/${svc.defaultProjectId}/keys`, {
        method: 'POST',
        json: { name: 'second operator', role: 'admin', server_admin: true },
      }),
      201,
    );
    expect(made.server_admin).toBe(true);
    expect((await svc.api('/api/projects', { method: 'POST', project: null, key: made.key, json: { id: 'gov-by-second', name: 'b' } })).status).toBe(201);

    // An admin key of the same project that is no server admin's cannot revoke one that is.
    const plain = await json<{ key: string; server_admin: boolean }>(
      await asServerAdmin(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'plain admin', role: 'admin' } }),
      201,
    );
    expect(plain.server_admin).toBe(false);
    const { keys } = await json<{ keys: Array<{ id: string; name: string; server_admin: boolean }> }>(
      await asServerAdmin(`/api/projects/${svc.defaultProjectId}/keys`),
      200,
    );
    const bootstrap = keys.find((k) => k.name === 'bootstrap admin key')!;
    expect(bootstrap.server_admin).toBe(true);
    const revoke = await svc.api(`/api/projects/${svc.defaultProjectId}/keys/${bootstrap.id}`, { method: 'DELETE', project: null, key: plain.key });
    expect(await json(revoke, 403)).toMatchObject({ details: 'missing permission server:admin (only a server admin revokes a server-admin key)' });
    expect((await asServerAdmin('/api/admin/projects')).status).toBe(200);

    const projectAdmin = await svc.keyFor('gov-b');
    const refused = await svc.api('/api/projects/gov-b/keys', {
      method: 'POST',
      project: 'gov-b',
      key: projectAdmin,
      json: { name: 'escalate', role: 'admin', server_admin: true },
    });
    expect(await json(refused, 403)).toMatchObject({ details: 'missing permission server:admin (only a server admin creates server-admin keys)' });

    const operator = await token({ sub: 'ops-1', name: 'Ops Person', role: 'viewer', project_id: 'gov-b', server_admin: true });
    const plainToken = await token({ sub: 'dev-1', role: 'admin', project_id: 'gov-b' });
    expect((await svc.api('/api/admin/projects', { project: null, key: null, headers: { authorization: `Bearer ${operator}` } })).status).toBe(200);
    expect((await svc.api('/api/admin/projects', { project: null, key: null, headers: { authorization: `Bearer ${plainToken}` } })).status).toBe(403);
  });
});

describe('listing every project', () => {
  it("is a server admin's, with each project's status; a project admin gets 403", async () => {
    await svc.keyFor('gov-list');
    const { projects } = await json<{ projects: AdminProject[] }>(await asServerAdmin('/api/admin/projects'), 200);
    expect(projects.map((p) => p.id)).toEqual(expect.arrayContaining([svc.defaultProjectId, 'gov-list']));
    expect(projects.find((p) => p.id === 'gov-list')).toMatchObject({ status: 'active', archived_at: null, deleted_at: null, purged_at: null });
    expect(await json(await svc.api('/api/admin/projects', { project: 'gov-list' }), 403)).toMatchObject({ details: 'missing permission server:admin' });
  });
});

describe('archiving', () => {
  it('makes a project read-only: reads work, writes are 403 PROJECT_ARCHIVED on the API and both OTLP transports, revoking keys still works', async () => {
    const key = await svc.keyFor('gov-arch');
    const as = (path: string, init: RequestInit & { json?: unknown } = {}) => svc.api(path, { ...init, project: 'gov-arch', key });
    expect((await as('/api/traces/ingest', { method: 'POST', json: sampleTrace('gov-arch-before') })).status).toBe(201);
    const spare = await json<{ id: string }>(await as('/api/projects/gov-arch/keys', { method: 'POST', json: { name: 'spare' } }), 201);

    expect(await json(await asServerAdmin('/api/admin/projects/gov-arch/archive', { method: 'POST' }), 200)).toMatchObject({
      id: 'gov-arch',
      status: 'archived',
    });
    expect((await json<{ archived_at: string | null }>(await as('/api/projects/gov-arch'), 200)).archived_at).not.toBeNull();
    expect((await as('/api/traces')).status).toBe(200);
    await eventually(async () => expect((await as('/api/traces/gov-arch-before')).status).toBe(200));
    expect(
      (
        await as('/api/compare', {
          method: 'POST',
          json: { baseline_run_id: '00000000-0000-4000-8000-000000000001', candidate_run_id: '00000000-0000-4000-8000-000000000002' },
        })
      ).status,
    ).toBe(404);

    const refused = await json(await as('/api/traces/ingest', { method: 'POST', json: sampleTrace('gov-arch-after') }), 403);
    expect(refused).toMatchObject({ error: 'Forbidden', code: 'PROJECT_ARCHIVED', status: 403, details: 'project gov-arch is archived: it is read-only' });
    expect(typeof refused.hint).toBe('string');
    expect((await as('/api/agents', { method: 'POST', json: { name: 'a', endpoint: 'http://127.0.0.1:9/' } })).status).toBe(403);
    for (const base of [svc.otlpHttpUrl!, svc.apiUrl!]) {
      const res = await postTraces(base, sampleRequest(1), { project: null, headers: { 'x-api-key': key } });
      expect(res.status).toBe(403);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    }
    expect((await grpcExport(svc.otlpGrpcAddress!, sampleRequest(1), { 'x-api-key': key })).error?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect((await as(`/api/projects/gov-arch/keys/${spare.id}`, { method: 'DELETE' })).status).toBe(204);

    expect(await json(await asServerAdmin('/api/admin/projects/gov-arch/unarchive', { method: 'POST' }), 200)).toMatchObject({
      status: 'active',
      archived_at: null,
    });
    expect((await as('/api/traces/ingest', { method: 'POST', json: sampleTrace('gov-arch-after') })).status).toBe(201);
  });

  it('refuses the default project (409), an unknown one (404), and anyone but a server admin (403)', async () => {
    expect(await json(await asServerAdmin(`/api/admin/projects/${svc.defaultProjectId}/archive`, { method: 'POST' }), 409)).toMatchObject({
      code: 'PROJECT_IS_DEFAULT',
    });
    expect(await json(await asServerAdmin('/api/admin/projects/gov-nowhere/archive', { method: 'POST' }), 404)).toMatchObject({ code: 'PROJECT_NOT_FOUND' });
    await svc.keyFor('gov-self');
    expect((await svc.api('/api/admin/projects/gov-self/archive', { method: 'POST', project: 'gov-self' })).status).toBe(403);
    expect((await svc.api('/api/admin/projects/gov-self', { method: 'DELETE', project: 'gov-self' })).status).toBe(403);
  });
});

/** Fills `project` with a row in every kind of table: traces, spans and a score in ClickHouse, and every PostgreSQL resource. */
async function fill(project: string): Promise<{ key: string; suite: string; prompt: string }> {
  const key = await svc.keyFor(project);
  const as = async (path: string, json: unknown, method = 'POST') => {
    const res = await svc.api(path, { method, project, key, json });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBeLessThan(300);
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  const traceId = `${project}-trace`;
  await as('/api/traces/ingest', sampleTrace(traceId));
  await eventually(async () => expect((await svc.api(`/api/traces/${traceId}`, { project, key })).status).toBe(200));
  await as('/api/scores', { trace_id: traceId, name: 'accuracy', value: 1 });
  await as('/api/agents', { name: 'agent-1', endpoint: 'http://127.0.0.1:9/agent', headers: { authorization: 'Bearer agent-secret' } });
  const suite = await as('/api/suites', { name: 'suite', agent_id: 'agent-1', cases: [{ name: 'c', input: 'q' }], defaultScorers: ['contains'] });
  const prompt = await as('/api/prompts', { name: 'prompt-1', type: 'text', template: 'hello', labels: ['production'] });
  await as('/api/runs', { execution: 'local', agentId: 'agent-1', dataset: { items: [{ input: 'q' }] }, scorers: ['contains'] });
  await as('/api/feedback', { type: 'rating', trace_id: traceId, value: 1 });
  await as('/api/queues', { name: 'review', trace_ids: [traceId] });
  await as('/api/alerts/rules', { name: 'errors', metric: 'error_rate', threshold: 0.5, operator: 'gt', severity: 'info' });
  await as('/api/evals/online-rules', { name: 'online', scorers: ['contains'], expected: { outputContains: ['x'] } });
  await as(`/api/projects/${project}/keys`, { name: 'viewer', role: 'viewer' });
  await as(`/api/projects/${project}/rate-limits`, { query: 500 }, 'PUT');
  return { key, suite: String(suite.id), prompt: String(prompt.id) };
}

/**
 * Rows of `project` in every PostgreSQL table with a project_id column (but the tombstone and the
 * audit log), by table. An empty rate-limit counter (count 0) is not counted: a process that
 * counted the project's requests in the minute of its deletion writes that minute's counter again,
 * empty, until the minute ends (docs/security.md, "Deleting a project").
 */
async function metadataRows(project: string): Promise<Record<string, number>> {
  const { rows: tables } = await metadata.pool.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE c.table_schema = current_schema() AND c.column_name = 'project_id' AND t.table_type = 'BASE TABLE' AND c.table_name NOT IN ('projects', 'audit_log')`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables) {
    const empty = table_name === 'rate_limit_windows' ? ' AND count > 0' : '';
    const { rows } = await metadata.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}" WHERE project_id = $1${empty}`, [project]);
    out[table_name] = rows[0].n;
  }
  return out;
}

/** Rows of `project` in every ClickHouse table that holds any (MergeTree tables with a project_id column). */
async function analyticsRows(project: string): Promise<Record<string, number>> {
  const rs = await svc.clickhouse.query({
    query: `SELECT name FROM system.tables WHERE database = 'agent_eval' AND engine LIKE '%MergeTree'
            AND name IN (SELECT table FROM system.columns WHERE database = 'agent_eval' AND name = 'project_id')`,
    format: 'JSONEachRow',
  });
  const out: Record<string, number> = {};
  for (const { name } of await rs.json<{ name: string }>()) {
    const counted = await svc.clickhouse.query({
      query: `SELECT count() AS n FROM agent_eval.${name} WHERE project_id = {p:String}`,
      query_params: { p: project },
      format: 'JSONEachRow',
    });
    out[name] = Number((await counted.json<{ n: string }>())[0].n);
  }
  return out;
}

const nonZero = (rows: Record<string, number>) => Object.fromEntries(Object.entries(rows).filter(([, n]) => n > 0));

describe('deleting', () => {
  it('needs the project archived first (409), never the default one', async () => {
    await svc.keyFor('gov-live');
    expect(await json(await asServerAdmin('/api/admin/projects/gov-live', { method: 'DELETE' }), 409)).toMatchObject({ code: 'PROJECT_NOT_ARCHIVED' });
    expect(await json(await asServerAdmin(`/api/admin/projects/${svc.defaultProjectId}`, { method: 'DELETE' }), 409)).toMatchObject({
      code: 'PROJECT_IS_DEFAULT',
    });
    expect((await asServerAdmin('/api/admin/projects/gov-nowhere', { method: 'DELETE' })).status).toBe(404);
  });

  it('stops its keys at once and removes every row of it from PostgreSQL and ClickHouse, leaving other projects whole', async () => {
    const doomed = await fill('gov-del');
    await fill('gov-keep');
    const before = nonZero(await analyticsRows('gov-del'));
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['spans', 'trace_stats', 'scores']));
    expect(Object.keys(nonZero(await metadataRows('gov-del')))).toEqual(
      expect.arrayContaining([
        'agents',
        'suites',
        'prompts',
        'eval_runs',
        'feedback',
        'review_queues',
        'alert_rules',
        'online_rules',
        'api_keys',
        'project_rate_limits',
      ]),
    );
    const jwt = await token({ sub: 'someone', role: 'admin', project_id: 'gov-del' });

    await json(await asServerAdmin('/api/admin/projects/gov-del/archive', { method: 'POST' }), 200);
    const deleting = await json<AdminProject>(await asServerAdmin('/api/admin/projects/gov-del', { method: 'DELETE' }), 202);
    expect(deleting).toMatchObject({ id: 'gov-del', status: 'deleting' });
    expect(deleting.deleted_at).not.toBeNull();
    // Revoked with the request: its keys are refused from now on.
    expect((await svc.api('/api/traces', { project: 'gov-del', key: doomed.key })).status).toBe(401);

    const done = await eventually(async () => {
      const p = await adminProject('gov-del');
      expect(p?.status).toBe('deleted');
      return p!;
    }, 60_000);
    expect(done.purged_at).not.toBeNull();
    expect(nonZero(await metadataRows('gov-del'))).toEqual({});
    expect(nonZero(await analyticsRows('gov-del'))).toEqual({});
    // Rows that name the project only through their parent went too.
    expect((await metadata.pool.query('SELECT 1 FROM suite_versions WHERE suite_id = $1', [doomed.suite])).rowCount).toBe(0);
    expect((await metadata.pool.query('SELECT 1 FROM prompt_versions WHERE prompt_id = $1', [doomed.prompt])).rowCount).toBe(0);
    expect((await metadata.pool.query('SELECT 1 FROM prompt_labels WHERE prompt_id = $1', [doomed.prompt])).rowCount).toBe(0);

    // The neighbour keeps everything.
    expect(Object.keys(nonZero(await analyticsRows('gov-keep')))).toEqual(expect.arrayContaining(['spans', 'trace_stats', 'scores']));
    expect(nonZero(await metadataRows('gov-keep'))).toMatchObject({ agents: 1, suites: 1, prompts: 1, feedback: 1 });

    // Its id is never given again (a token minted for it must not reach a new project), and a token naming it is refused.
    expect((await asServerAdmin('/api/projects', { method: 'POST', json: { id: 'gov-del', name: 'again' } })).status).toBe(409);
    expect(await json(await svc.api('/api/traces', { project: null, key: null, headers: { authorization: `Bearer ${jwt}` } }), 403)).toMatchObject({
      code: 'PROJECT_DELETED',
    });
    expect((await svc.api('/api/projects', { project: null, key: null, headers: { authorization: `Bearer ${jwt}` } })).status).toBe(403);
    // Asking again changes nothing.
    expect(await json(await asServerAdmin('/api/admin/projects/gov-del', { method: 'DELETE' }), 202)).toMatchObject({ status: 'deleted' });
  });

  it('a deletion cut short (the process stopped after the request) is finished by another process', async () => {
    await fill('gov-resume');
    await json(await asServerAdmin('/api/admin/projects/gov-resume/archive', { method: 'POST' }), 200);
    // What a DELETE leaves when its process dies before the data went: marked, keys revoked, data still there.
    const requested = await metadata.projectAdmin.requestDeletion('gov-resume');
    expect(requested).toMatchObject({ ok: true, project: { status: 'deleting' } });
    expect(Object.keys(nonZero(await analyticsRows('gov-resume')))).toContain('spans');

    const logger = createLogger('silent');
    const other = createProjectDeletion({
      projects: metadata.projectAdmin,
      purgeAnalytics: (id) => purgeProjectAnalytics(svc.clickhouse, id),
      audit: createAuditLog(metadata.audit, logger),
      logger,
      resumeEveryMs: 0,
    });
    await other.resume();
    await other.idle();
    expect((await adminProject('gov-resume'))?.status).toBe('deleted');
    expect(nonZero(await analyticsRows('gov-resume'))).toEqual({});
    expect(nonZero(await metadataRows('gov-resume'))).toEqual({});
    await other.close();
  });
});
