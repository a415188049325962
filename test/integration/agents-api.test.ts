import { describe, expect, it } from 'vitest';
import type { Agent, AgentList } from '../../core/model/agent.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { useTestApi, type ValidationErrorBody as ErrorBody } from '../helpers/test-service-hooks.js';

// The API role alone: agents need no workflow engine (its address is only dialled by runs).
const svc = useTestApi();

async function create(body: unknown, project?: string) {
  return svc.api('/api/agents', { method: 'POST', json: body, project });
}

async function created(body: Record<string, unknown>): Promise<Agent> {
  const res = await create(body);
  expect(res.status).toBe(201);
  return (await res.json()) as Agent;
}

async function issues(res: Response): Promise<Record<string, string>> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as ErrorBody;
  expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
  return Object.fromEntries(body.details.map((d) => [d.field, d.message]));
}

describe('POST /api/agents and GET /api/agents/{id}', () => {
  it('creates an agent and reads it back by id and by name, never showing header values', async () => {
    const agent = await created({
      name: 'support-bot',
      endpoint: 'https://agents.example.com/support',
      description: 'Answers support tickets',
      headers: { Authorization: 'Bearer sk-secret-123', 'x-tenant': 'acme' },
    });
    expect(agent).toMatchObject({
      name: 'support-bot',
      endpoint: 'https://agents.example.com/support',
      description: 'Answers support tickets',
      header_names: ['Authorization', 'x-tenant'],
    });
    expect(agent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(agent.created_at)).not.toBeNaN();

    for (const ref of [agent.id, 'support-bot']) {
      const res = await svc.api(`/api/agents/${encodeURIComponent(ref)}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain('sk-secret-123');
      expect(JSON.parse(text)).toEqual(agent);
    }
    const list = await (await svc.api('/api/agents')).text();
    expect(list).not.toContain('sk-secret-123');
    expect(list).not.toContain('acme');
  });

  it('gives the worker the full record, header values included, by id or name', async () => {
    const agent = await created({ name: 'worker-view', endpoint: 'http://127.0.0.1:9/x', headers: { 'x-api-key': 'k-1' } });
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      for (const ref of [agent.id, 'worker-view']) {
        expect(await metadata.agents.resolveForCall(svc.defaultProjectId, ref)).toEqual({ ...agent, headers: { 'x-api-key': 'k-1' } });
        expect(await metadata.agents.resolve(svc.defaultProjectId, ref)).toEqual(agent);
      }
      expect(await metadata.agents.resolveForCall('another-project', agent.id)).toBeNull();
      expect(await metadata.agents.resolveForCall(svc.defaultProjectId, 'nobody')).toBeNull();
    } finally {
      await metadata.close();
    }
  });

  it('answers 404 Agent not found for an unknown id or name', async () => {
    for (const ref of ['no-such-agent', '00000000-0000-4000-8000-000000000000']) {
      const res = await svc.api(`/api/agents/${ref}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'Agent not found', code: 'AGENT_NOT_FOUND' });
    }
  });

  it('refuses a second agent with the same name in a project with 409', async () => {
    await created({ name: 'twice', endpoint: 'https://a.example.com' });
    const res = await create({ name: 'twice', endpoint: 'https://b.example.com' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'AGENT_NAME_TAKEN', error: "An agent named 'twice' already exists in this project" });
  });

  it('validates every field with 422 details', async () => {
    expect(await issues(await create({}))).toEqual({ name: 'is required', endpoint: 'is required' });
    const bad = await issues(
      await create({
        name: '  ',
        endpoint: 'ftp://files.example.com',
        description: 'd'.repeat(5000),
        headers: { 'bad header': 'x', 'Content-Length': '5', 'x-ok': 'line\r\nbreak', 'x-big': 'v'.repeat(9000) },
      }),
    );
    expect(Object.keys(bad).sort()).toEqual([
      'description',
      'endpoint',
      'headers.Content-Length',
      'headers.bad header',
      'headers.x-big',
      'headers.x-ok',
      'name',
    ]);
    expect(bad.endpoint).toMatch(/http or https/);
    expect(bad['headers.Content-Length']).toMatch(/set by the HTTP client/);
    expect((await issues(await create({ name: 'x', endpoint: 'https://user:pw@example.com/' }))).endpoint).toMatch(/credentials/);
    expect((await issues(await create({ name: 'x', endpoint: 'not a url' }))).endpoint).toMatch(/absolute http/);
    expect((await issues(await create({ name: '00000000-0000-4000-8000-000000000001', endpoint: 'https://e.com' }))).name).toMatch(/UUID/);
    expect((await issues(await create({ name: 'x', endpoint: 'https://e.com', extra: 1 })))['(body)']).toMatch(/extra/);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`h${i}`, 'v']));
    expect((await issues(await create({ name: 'x', endpoint: 'https://e.com', headers: many }))).headers).toMatch(/at most 50/);
    const dup = await issues(await create({ name: 'x', endpoint: 'https://e.com', headers: { Authorization: 'a', authorization: 'b' } }));
    expect(dup['headers.authorization']).toMatch(/case-insensitive/);
  });

  it('answers hostile input with 4xx, never 5xx', async () => {
    const hostile: unknown[] = [
      { name: 'a\ud800b', endpoint: 'https://e.com' },
      { name: 'nul\u0000name', endpoint: 'https://e.com' },
      { name: 'x'.repeat(1_000_000), endpoint: 'https://e.com' },
      { name: 'x', endpoint: `https://e.com/${'p'.repeat(5000)}` },
      { name: 'x', endpoint: 'https://e.com', description: 'bad \udfff' },
      { name: 'x', endpoint: 'https://e.com', headers: { 'x-a': 'caf\u00e9' } },
      { name: 'x', endpoint: 'https://e.com', headers: { 'x-\ud800': 'v' } },
      { name: 'x', endpoint: 'https://e.com', headers: [] },
      { name: 42, endpoint: true },
      [],
      'just a string',
    ];
    for (const body of hostile) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    const surrogatePath = await svc.api('/api/agents/%ED%A0%80');
    expect(surrogatePath.status).toBe(404);
    const longPath = await svc.api(`/api/agents/${'n'.repeat(8000)}`);
    expect(longPath.status).toBe(404);
  });
});

describe('GET /api/agents', () => {
  it('pages a project newest first with total, limit and offset', async () => {
    const project = 'agents-paging';
    for (const name of ['first', 'second', 'third']) {
      expect((await create({ name, endpoint: 'https://e.com' }, project)).status).toBe(201);
    }
    const page1 = (await (await svc.api('/api/agents?limit=2', { project })).json()) as AgentList;
    expect(page1).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page1.agents.map((a) => a.name)).toEqual(['third', 'second']);
    const page2 = (await (await svc.api('/api/agents?limit=2&offset=2', { project })).json()) as AgentList;
    expect(page2.agents.map((a) => a.name)).toEqual(['first']);
    const past = (await (await svc.api('/api/agents?offset=10', { project })).json()) as AgentList;
    expect(past).toMatchObject({ agents: [], total: 3 });
    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) expect((await svc.api(`/api/agents?${q}`, { project })).status).toBe(422);
  });

  it('keeps projects apart: another project sees an empty list and 404s', async () => {
    const agent = await created({ name: 'isolated', endpoint: 'https://e.com' });
    const other = 'agents-other-project';
    const list = (await (await svc.api('/api/agents', { project: other })).json()) as AgentList;
    expect(list).toMatchObject({ agents: [], total: 0 });
    for (const ref of [agent.id, 'isolated']) {
      expect((await svc.api(`/api/agents/${ref}`, { project: other })).status).toBe(404);
      expect((await svc.api(`/api/agents/${ref}`, { project: other, method: 'PUT', json: { name: 'stolen', endpoint: 'https://e.com' } })).status).toBe(404);
      expect((await svc.api(`/api/agents/${ref}`, { project: other, method: 'DELETE' })).status).toBe(404);
    }
    // The same name is free in another project.
    expect((await create({ name: 'isolated', endpoint: 'https://e.com' }, other)).status).toBe(201);
    expect((await svc.api(`/api/agents/${agent.id}`)).status).toBe(200);
  });

  it("needs credentials, and uses the key's project when the request names none", async () => {
    const res = await svc.api('/api/agents', { project: null, key: null });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'Unauthorized' });
    expect((await svc.api('/api/agents', { project: null })).status).toBe(200);
  });
});

describe('PUT and DELETE /api/agents/{id}', () => {
  const put = async (ref: string, body: unknown) => svc.api(`/api/agents/${ref}`, { method: 'PUT', json: body });

  it('replaces the fields, keeps the headers when omitted at the same endpoint and clears them with {}', async () => {
    const agent = await created({ name: 'editable', endpoint: 'https://v1.example.com', description: 'v1', headers: { Authorization: 'Bearer a' } });

    const renamed = await put('editable', { name: 'edited', endpoint: 'https://v1.example.com' });
    expect(renamed.status).toBe(200);
    const v2 = (await renamed.json()) as Agent;
    expect(v2).toMatchObject({
      id: agent.id,
      name: 'edited',
      endpoint: 'https://v1.example.com',
      description: null,
      header_names: ['Authorization'],
      created_at: agent.created_at,
    });
    expect(Date.parse(v2.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    expect((await svc.api('/api/agents/editable')).status).toBe(404);

    const cleared = (await (await put(agent.id, { name: 'edited', endpoint: 'https://v1.example.com', headers: {} })).json()) as Agent;
    expect(cleared.header_names).toEqual([]);

    expect(await issues(await put(agent.id, { description: 'only this' }))).toEqual({ name: 'is required', endpoint: 'is required' });
    expect((await put('no-such-agent', { name: 'x', endpoint: 'https://e.com' })).status).toBe(404);

    await created({ name: 'taken', endpoint: 'https://e.com' });
    const clash = await put(agent.id, { name: 'taken', endpoint: 'https://e.com' });
    expect(clash.status).toBe(409);
  });

  it('drops the stored headers when the endpoint changes, unless the request sends headers again', async () => {
    const agent = await created({
      name: 'movable',
      endpoint: 'https://home.example.com/a',
      headers: { Authorization: 'Bearer home-secret', 'x-tenant': 'acme' },
    });
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      // Any change of the endpoint's text counts: a path, a port, a host.
      const moved = await put(agent.id, { name: 'movable', endpoint: 'https://home.example.com/b' });
      expect(moved.status).toBe(200);
      expect(((await moved.json()) as Agent).header_names).toEqual([]);
      expect((await metadata.agents.resolveForCall(svc.defaultProjectId, agent.id))?.headers).toEqual({});

      const resupplied = await put(agent.id, { name: 'movable', endpoint: 'https://elsewhere.example.com', headers: { Authorization: 'Bearer new-secret' } });
      expect(((await resupplied.json()) as Agent).header_names).toEqual(['Authorization']);
      expect((await metadata.agents.resolveForCall(svc.defaultProjectId, agent.id))?.headers).toEqual({ Authorization: 'Bearer new-secret' });

      // Same endpoint, no headers: kept.
      const renamed = await put(agent.id, { name: 'moved', endpoint: 'https://elsewhere.example.com', description: 'renamed' });
      const text = await renamed.text();
      expect(text).not.toContain('new-secret');
      expect((JSON.parse(text) as Agent).header_names).toEqual(['Authorization']);
      expect((await metadata.agents.resolveForCall(svc.defaultProjectId, agent.id))?.headers).toEqual({ Authorization: 'Bearer new-secret' });
    } finally {
      await metadata.close();
    }
  });

  it('deletes by id or name with 204, then 404', async () => {
    const byId = await created({ name: 'delete-me', endpoint: 'https://e.com' });
    expect((await svc.api(`/api/agents/${byId.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await svc.api(`/api/agents/${byId.id}`)).status).toBe(404);
    expect((await svc.api(`/api/agents/${byId.id}`, { method: 'DELETE' })).status).toBe(404);
    await created({ name: 'delete-by-name', endpoint: 'https://e.com' });
    expect((await svc.api('/api/agents/delete-by-name', { method: 'DELETE' })).status).toBe(204);
    // The name is free again.
    expect((await create({ name: 'delete-by-name', endpoint: 'https://e.com' })).status).toBe(201);
  });
});
