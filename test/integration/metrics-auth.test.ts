import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * GET /metrics answers only with credentials (docs/security.md, "Metrics"): the scrape token
 * (METRICS_TOKEN) sees every project's series, a project's admin only its own projects', anyone
 * else gets the SPEC's 401 or 403. The real service (API role, PostgreSQL, chDB).
 */

const TOKEN = 'scrape-token-0123456789-abcdefghijklmnop';
const PROCESS_SERIES = [
  'agent_eval_process_cpu_seconds_total',
  'agent_eval_ingest_pending_spans',
  'agent_eval_kafka_consumer_lag',
  'agent_eval_online_eval_stats_up',
];

let svc: TestApi;
const rules: Record<'a' | 'b', string> = { a: '', b: '' };
const projects = { a: 'metrics-a', b: 'metrics-b' };

function scrape(headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.apiUrl}/metrics`, { headers });
}

async function createRule(project: string): Promise<string> {
  const res = await svc.api('/api/evals/online-rules', {
    method: 'POST',
    project,
    json: { name: `rule of ${project}`, scorers: ['contains'], expected: { outputContains: ['x'] } },
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return (JSON.parse(text) as { id: string }).id;
}

beforeAll(async () => {
  // The API role alone: the online rules' counters are read from PostgreSQL, no worker needed.
  svc = await startTestApi({ METRICS_TOKEN: TOKEN });
  rules.a = await createRule(projects.a);
  rules.b = await createRule(projects.b);
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /metrics on the API port', () => {
  it('is 401 in the SPEC body without credentials, with a wrong token or a bad key', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-the-token' },
      { authorization: `Bearer ${TOKEN}x` },
      { 'x-api-key': 'ae_live_nope' },
    ];
    for (const headers of attempts) {
      const res = await scrape(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(await res.json()).toEqual({
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
        status: 401,
        details: 'Valid authentication required',
        hint: 'Provide a bearer token or an API key header',
      });
    }
  });

  it('is 403 for a member or a viewer key: scraping needs projects:admin', async () => {
    const admin = await svc.keyFor(projects.a);
    for (const role of ['member', 'viewer']) {
      const created = await svc.api(`/api/projects/${projects.a}/keys`, { method: 'POST', project: projects.a, key: admin, json: { name: role, role } });
      const { key } = (await created.json()) as { key: string };
      const res = await scrape({ 'x-api-key': key });
      expect(res.status, role).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'Forbidden', code: 'FORBIDDEN', status: 403, details: 'missing permission projects:admin' });
    }
  });

  it('with the scrape token: every series, every project', async () => {
    const res = await scrape({ authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of PROCESS_SERIES) expect(text, name).toMatch(new RegExp(`^${name}`, 'm'));
    expect(text).toContain(`agent_eval_online_eval_traces_scored_total{rule_id="${rules.a}",project_id="${projects.a}"} 0`);
    expect(text).toContain(`agent_eval_online_eval_traces_scored_total{rule_id="${rules.b}",project_id="${projects.b}"} 0`);
    const labelled = new Set([...text.matchAll(/project_id="([^"]*)"/g)].map((m) => m[1]));
    expect([...labelled]).toEqual(expect.arrayContaining([projects.a, projects.b]));
  });

  it("with a project's admin key: the process series and that project's rules only", async () => {
    const res = await scrape({ 'x-api-key': await svc.keyFor(projects.a) });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const name of PROCESS_SERIES) expect(text, name).toMatch(new RegExp(`^${name}`, 'm'));
    expect(text).toContain(`agent_eval_online_eval_pending{rule_id="${rules.a}",project_id="${projects.a}"} 0`);
    expect(text).not.toContain(rules.b);
    expect(text).not.toContain(projects.b);
    // Whatever series carry a project label, they name this project only, and rule ids only its rule.
    expect(new Set([...text.matchAll(/project_id="([^"]*)"/g)].map((m) => m[1]))).toEqual(new Set([projects.a]));
    expect(new Set([...text.matchAll(/rule_id="([^"]*)"/g)].map((m) => m[1]))).toEqual(new Set([rules.a]));
    // The bootstrap admin key of the default project sees neither.
    const other = await (await scrape({ 'x-api-key': svc.apiKey! })).text();
    expect(other).not.toContain(rules.a);
    expect(other).not.toContain(rules.b);
    expect(other).toMatch(/^agent_eval_online_eval_stats_up 1$/m);
  });

  it('is never rate limited and carries the security headers', async () => {
    const res = await scrape({ authorization: `Bearer ${TOKEN}` });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const refused = await scrape();
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
  });
});
