import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../core/model/agent.js';
import { eventually } from '../helpers/eventually.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';

/**
 * Secrets follow the URL (docs/security.md): an agent's stored headers go only to the endpoint
 * they were given with. A member who re-points an agent gets the calls, never the credentials.
 * The real service (Temporal dev server, PostgreSQL, chDB) runs real runs against two fixture
 * servers on loopback that record every request.
 */

const SECRET = 'Bearer sk-home-secret-0123456789';
const TENANT = 'acme-tenant-secret';

let svc: TestService;
let home: TestAgent;
let elsewhere: TestAgent;
let memberKey: string;

/** As the project's member. */
function member(pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  return svc.api(pathname, { ...init, key: memberKey });
}

/** Runs one case on `secret-bot` as the member; resolves with the run id once it ended. */
async function runOnce(name: string): Promise<string> {
  const run = await json<{ run_id: string }>(
    await member('/api/runs', {
      method: 'POST',
      json: { agentId: 'secret-bot', dataset: { items: [{ name, input: { q: name }, expected: { outputContains: ['ok'] } }] }, scorers: ['contains'] },
    }),
    202,
  );
  await eventually(async () => {
    const status = await json<{ status: string }>(await member(`/api/runs/${run.run_id}`), 200);
    expect(['completed', 'failed']).toContain(status.status);
  }, 60_000);
  return run.run_id;
}

beforeAll(async () => {
  [home, elsewhere] = await Promise.all([startTestAgent(() => ({ json: { output: 'ok' } })), startTestAgent(() => ({ json: { output: 'ok' } }))]);
  svc = await startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  const key = await json<{ key: string }>(
    await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'member', role: 'member' } }),
    201,
  );
  memberKey = key.key;
  // The admin registers the agent with its credentials.
  await json(
    await svc.api('/api/agents', { method: 'POST', json: { name: 'secret-bot', endpoint: home.url, headers: { Authorization: SECRET, 'x-tenant': TENANT } } }),
    201,
  );
});

afterAll(async () => {
  await svc?.stop();
  await Promise.all([home?.close(), elsewhere?.close()]);
});

describe('a member re-points an agent', () => {
  it('the credentials reach the endpoint they were given with', async () => {
    await runOnce('at-home');
    const calls = home.callsFor('at-home');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0].headers.authorization).toBe(SECRET);
    expect(calls[0].headers['x-tenant']).toBe(TENANT);
  });

  it('the new address gets the calls without the stored headers', async () => {
    const moved = await json<Agent>(await member('/api/agents/secret-bot', { method: 'PUT', json: { name: 'secret-bot', endpoint: elsewhere.url } }), 200);
    expect(moved).toMatchObject({ endpoint: elsewhere.url, header_names: [] });
    const homeCalls = home.requests.length;

    await runOnce('moved');
    const calls = elsewhere.callsFor('moved');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers).not.toHaveProperty('authorization');
      expect(call.headers).not.toHaveProperty('x-tenant');
      expect(JSON.stringify(call.headers)).not.toContain('sk-home-secret');
    }
    expect(home.requests.length).toBe(homeCalls);
    // Moving it back does not bring them back either: they are gone.
    const back = await json<Agent>(await member('/api/agents/secret-bot', { method: 'PUT', json: { name: 'secret-bot', endpoint: home.url } }), 200);
    expect(back.header_names).toEqual([]);
  });

  it('headers supplied with the new endpoint are sent, and kept while the endpoint stays', async () => {
    const own = 'Bearer member-own-credential';
    const moved = await json<Agent>(
      await member('/api/agents/secret-bot', { method: 'PUT', json: { name: 'secret-bot', endpoint: elsewhere.url, headers: { Authorization: own } } }),
      200,
    );
    expect(moved.header_names).toEqual(['Authorization']);
    await runOnce('resupplied');
    expect(elsewhere.callsFor('resupplied')[0].headers.authorization).toBe(own);

    // Same endpoint, a new description, no headers: the stored ones stay.
    await json(await member('/api/agents/secret-bot', { method: 'PUT', json: { name: 'secret-bot', endpoint: elsewhere.url, description: 'kept' } }), 200);
    await runOnce('kept');
    expect(elsewhere.callsFor('kept')[0].headers.authorization).toBe(own);
  });

  it('no route shows a header value: agents, scorers, their lists, runs and their results', async () => {
    const runId = await runOnce('views');
    const scorer = await json<{ header_names: string[] }>(
      await svc.api('/api/scorers', {
        method: 'POST',
        json: { name: 'secret-scorer', endpoint: 'https://scorer.example.com/score', headers: { Authorization: 'Bearer sk-home-secret-scorer' } },
      }),
      201,
    );
    expect(scorer).not.toHaveProperty('headers');
    expect(scorer.header_names).toEqual(['Authorization']);
    const agent = await json<Agent>(await svc.api('/api/agents/secret-bot'), 200);
    const bodies = await Promise.all(
      [
        '/api/agents/secret-bot',
        `/api/agents/${agent.id}`,
        '/api/agents',
        '/api/runs',
        `/api/runs/${runId}`,
        `/api/runs/${runId}/status`,
        `/api/runs/${runId}/results`,
        `/api/evals/runs/${runId}`,
        `/api/evals/runs/${runId}/results`,
        '/api/scorers',
        '/api/scorers/secret-scorer',
      ].map(async (path) => [path, await (await svc.api(path)).text()] as const),
    );
    for (const [path, body] of bodies) {
      expect(body, path).not.toContain('member-own-credential');
      expect(body, path).not.toContain('sk-home-secret');
      expect(body, path).not.toContain(TENANT);
    }
    expect(agent.header_names).toEqual(['Authorization']);
    expect(agent).not.toHaveProperty('headers');
  });
});
