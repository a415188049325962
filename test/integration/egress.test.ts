import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, EgressRefusedError, type Egress } from '../../core/egress/fetch.js';
import { createEgressPolicy } from '../../core/egress/policy.js';
import { postNotification } from '../../core/alerts/webhook.js';
import type { AlertNotification } from '../../core/model/alert.js';
import { createHttpScorer } from '../../core/scoring/http-scorer.js';
import { runScorers } from '../../core/scoring/run-scorers.js';
import { createScorerRegistry } from '../../core/scoring/registry.js';
import { AgentCallError, callAgent } from '../../core/agents/agent-call.js';
import { eventually } from '../helpers/eventually.js';
import { sampleTrace, startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * The egress policy where connections are made (docs/security.md, "Egress"): a loopback fixture
 * server records every hit, so "refused" means nothing reached it.
 */

interface Fixture {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server recording each request's path: `/redirect*` answers 302 to `location`, the rest a valid agent / scorer answer. */
async function startFixture(host: string, location?: (path: string) => string): Promise<Fixture> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '/');
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/redirect') && location) {
        res.writeHead(302, { location: location(req.url), 'content-type': 'text/plain' });
        res.end('internal secret page');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ output: 'hello from the fixture', value: 1, reason: 'fixture' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every way of writing this machine's loopback (and 0.0.0.0, which reaches it too). */
const LITERAL_FORMS = ['127.0.0.1', '2130706433', '0x7f000001', '127.1', '017700000001', '127.0.0.1.', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]'];
const FORMS = [...LITERAL_FORMS, 'localhost'];

/** What registration says of each literal form. */
function refusalOf(form: string): string | RegExp {
  if (form === '0.0.0.0') return 'points to an unspecified address (0.0.0.0), which is always refused';
  if (form === '[::1]') return 'points to a loopback address (::1), which EGRESS_ALLOW does not allow';
  if (form === '[::ffff:127.0.0.1]') return 'points to a loopback address (127.0.0.1, as ::ffff:7f00:1), which EGRESS_ALLOW does not allow';
  return 'points to a loopback address (127.0.0.1), which EGRESS_ALLOW does not allow';
}

const notification: AlertNotification = {
  event: 'fired',
  event_id: 'e1',
  rule: { id: 'r1', name: 'r', metric: 'trace_count', filter: {}, operator: 'gt', threshold: 0, severity: 'critical', state: 'firing' },
  value: 1,
  threshold: 0,
  window: { seconds: 60, from: new Date().toISOString(), to: new Date().toISOString() },
  project_id: 'p',
  at: new Date().toISOString(),
} as unknown as AlertNotification;

/** Listens on `::` (IPv6 and IPv4): a hit on 127.0.0.1, ::1 or 0.0.0.0 lands here. */
let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture('::');
});
afterAll(() => fixture?.close());

describe('fetch through the egress policy, loopback not allowed', () => {
  let egress: Egress;
  beforeAll(() => {
    egress = createEgress(createEgressPolicy({ allow: [] }));
  });
  afterAll(() => egress.close());

  it.each(FORMS)('refuses http://%s before connecting', async (form) => {
    const url = `http://${form}:${fixture.port}/agent`;
    const err = await egress.fetch(url, { method: 'POST', headers: {}, body: '{}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as EgressRefusedError).reason).toMatch(/an? (loopback|unspecified) address, which (EGRESS_ALLOW does not allow|is always refused)$/);
    expect(fixture.hits).toEqual([]);
  });

  it('refuses an agent, a custom scorer and a webhook with a clear error, sending nothing', async () => {
    for (const form of ['localhost', '2130706433']) {
      const base = `http://${form}:${fixture.port}`;
      const agentErr = await callAgent(
        { endpoint: `${base}/agent`, headers: { authorization: 'Bearer secret' } },
        {},
        { timeoutMs: 2000, traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, fetch: egress.fetch },
      ).catch((e: unknown) => e);
      expect(agentErr).toBeInstanceOf(AgentCallError);
      expect((agentErr as AgentCallError).retryable).toBe(false);
      const where = form === 'localhost' ? 'localhost resolves to 127.0.0.1, a loopback address' : '127.0.0.1 is a loopback address';
      expect((agentErr as AgentCallError).message).toBe(`agent endpoint refused by the egress policy: ${where}, which EGRESS_ALLOW does not allow`);

      const scorer = createHttpScorer(
        {
          id: 'id',
          name: 'tone',
          endpoint: `${base}/score`,
          data_type: 'numeric',
          description: null,
          header_names: [],
          headers: {},
          created_at: '',
          updated_at: '',
        },
        { timeoutMs: 2000, fetch: egress.fetch },
      );
      const detail = (
        await runScorers(createScorerRegistry([scorer]), [{ name: 'tone', config: {} }], {
          input: {},
          output: 'x',
          expected: {},
          toolCalls: [],
          latencyMs: 1,
          trace: { trace_id: 't1', spans: [] },
        })
      ).tone;
      expect(detail).toMatchObject({
        score: 0,
        reason: `scorer error: custom scorer 'tone' endpoint refused by the egress policy: ${where}, which EGRESS_ALLOW does not allow`,
      });

      expect(await postNotification(`${base}/hook`, notification, 2000, egress.fetch)).toEqual({
        ok: false,
        final: true,
        error: `webhook refused by the egress policy: ${where}, which EGRESS_ALLOW does not allow`,
      });
    }
    expect(fixture.hits).toEqual([]);
  });
});

describe('fetch through the egress policy, loopback allowed', () => {
  let egress: Egress;
  let redirecting: Fixture;
  beforeAll(async () => {
    egress = createEgress(createEgressPolicy({ allow: ['127.0.0.0/8', '::1/128'] }));
    redirecting = await startFixture('127.0.0.1', () => `http://127.0.0.1:${fixture.port}/internal`);
  });
  afterAll(async () => {
    await egress.close();
    await redirecting?.close();
  });

  it('calls an allowed address, over IPv4 and IPv6', async () => {
    for (const host of ['127.0.0.1', '[::1]', 'localhost']) {
      const res = await egress.fetch(`http://${host}:${fixture.port}/ok`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ output: 'hello from the fixture' });
    }
    expect(fixture.hits).toEqual(['/ok', '/ok', '/ok']);
    fixture.hits.length = 0;
  });

  it('follows no redirect: the 3xx is the answer, an error without its body', async () => {
    const url = `http://127.0.0.1:${redirecting.port}/redirect`;
    const res = await egress.fetch(url, { method: 'POST', headers: {}, body: '{}' });
    expect(res.status).toBe(302);
    await res.body?.cancel();
    const agentErr = (await callAgent(
      { endpoint: url, headers: {} },
      {},
      { timeoutMs: 2000, traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, fetch: egress.fetch },
    ).catch((e: unknown) => e)) as AgentCallError;
    expect(agentErr.message).toBe('agent answered 302, a redirect (not followed)');
    expect(agentErr.retryable).toBe(false);
    const delivery = await postNotification(url, notification, 2000, egress.fetch);
    expect(delivery).toEqual({ ok: false, error: 'HTTP 302, a redirect (not followed)' });
    expect(redirecting.hits).toEqual(['/redirect', '/redirect', '/redirect']);
    expect(fixture.hits).toEqual([]);
  });
});

async function body<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

interface RunView {
  status: string;
}
interface CaseResult {
  status: string;
  error?: string;
  details: Record<string, { score: number; reason: string }>;
}

/** Runs the dataset `items` on agent `agentId`, scored by `scorers`; the case results once the run is over. */
async function runToResults(svc: TestService, agentId: string, items: unknown[], scorers: unknown[]): Promise<CaseResult[]> {
  const { id } = await body<{ id: string }>(await svc.api('/api/runs', { method: 'POST', json: { agentId, dataset: { items }, scorers } }), 202);
  await eventually(async () => expect(['completed', 'failed']).toContain((await body<RunView>(await svc.api(`/api/runs/${id}`), 200)).status), 60_000);
  return (await body<{ results: CaseResult[] }>(await svc.api(`/api/evals/runs/${id}/results`), 200)).results;
}

/** A case the fixture agent passes with `contains`: it answers "hello". */
const HELLO_CASE = { name: 'one', input: 'hi', expected: { outputContains: ['hello'] } };

describe('the service with loopback not allowed (EGRESS_ALLOW=127.0.0.2/32)', () => {
  let svc: TestService;
  /** On 127.0.0.2, which this service may call: a working agent, and a webhook that redirects to the loopback fixture. */
  let allowed: Fixture;
  let allowedAgentId: string;
  beforeAll(async () => {
    allowed = await startFixture('127.0.0.2', () => `http://127.0.0.1:${fixture.port}/internal`);
    svc = await startTestService({
      EGRESS_ALLOW: '127.0.0.2/32',
      ALERT_TICK_MS: '200',
      ALERT_WEBHOOK_MAX_ATTEMPTS: '3',
      ALERT_WEBHOOK_BACKOFF_MS: '100',
      EVAL_RETRY_TIME_SCALE: '0.001',
    });
    allowedAgentId = (
      await body<{ id: string }>(
        await svc.api('/api/agents', { method: 'POST', json: { name: 'allowed-agent', endpoint: `http://127.0.0.2:${allowed.port}/agent` } }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await svc?.stop();
    await allowed?.close();
  });

  it.each(LITERAL_FORMS)('refuses http://%s at registration: agents, custom scorers, webhooks', async (form) => {
    const url = `http://${form}:${fixture.port}/x`;
    const expected = [{ field: 'endpoint', message: refusalOf(form) }];
    const agent = await body<{ details: unknown }>(
      await svc.api('/api/agents', { method: 'POST', json: { name: `a-${randomUUID().slice(0, 8)}`, endpoint: url } }),
      422,
    );
    expect(agent.details).toEqual(expected);
    const moved = await body<{ details: unknown }>(
      await svc.api(`/api/agents/${allowedAgentId}`, { method: 'PUT', json: { name: 'allowed-agent', endpoint: url } }),
      422,
    );
    expect(moved.details).toEqual(expected);
    const scorer = await body<{ details: unknown }>(
      await svc.api('/api/scorers', { method: 'POST', json: { name: `s-${randomUUID().slice(0, 8)}`, endpoint: url } }),
      422,
    );
    expect(scorer.details).toEqual(expected);
    const rule = { name: 'r', metric: 'trace_count', operator: 'gt', threshold: 0, severity: 'critical', webhook_url: url };
    const hook = await body<{ details: unknown }>(await svc.api('/api/alerts/rules', { method: 'POST', json: rule }), 422);
    expect(hook.details).toEqual([{ field: 'webhook_url', message: refusalOf(form) }]);
    expect(fixture.hits).toEqual([]);
  });

  it('refuses the cloud metadata address at registration, always', async () => {
    const res = await body<{ details: unknown }>(
      await svc.api('/api/agents', { method: 'POST', json: { name: 'imds', endpoint: 'http://169.254.169.254/latest/meta-data/' } }),
      422,
    );
    expect(res.details).toEqual([{ field: 'endpoint', message: 'points to a cloud metadata address (169.254.169.254), which is always refused' }]);
  });

  it('refuses a host name resolving to loopback when it calls: the agent case fails, the custom scorer scores 0', async () => {
    const agent = await body<{ id: string }>(
      await svc.api('/api/agents', {
        method: 'POST',
        json: { name: 'local-name', endpoint: `http://localhost:${fixture.port}/agent`, headers: { authorization: 'Bearer agent-secret' } },
      }),
      201,
    );
    const [result] = await runToResults(svc, agent.id, [HELLO_CASE], ['contains']);
    expect(result.status).toBe('failed');
    expect(result.error).toContain(
      'agent endpoint refused by the egress policy: localhost resolves to 127.0.0.1, a loopback address, which EGRESS_ALLOW does not allow',
    );

    await body(await svc.api('/api/scorers', { method: 'POST', json: { name: 'local-scorer', endpoint: `http://localhost:${fixture.port}/score` } }), 201);
    const [scoredResult] = await runToResults(svc, allowedAgentId, [{ name: 'two', input: 'hi' }], ['local-scorer']);
    expect(scoredResult.details['local-scorer']).toMatchObject({
      score: 0,
      reason:
        "scorer error: custom scorer 'local-scorer' endpoint refused by the egress policy: localhost resolves to 127.0.0.1, a loopback address, which EGRESS_ALLOW does not allow",
    });
    expect(allowed.hits.filter((p) => p === '/agent')).toHaveLength(1);
    expect(fixture.hits).toEqual([]);
  });

  it('refuses a webhook resolving to loopback once, and follows no redirect to an internal address', async () => {
    const name = `egress-${randomUUID().slice(0, 8)}`;
    const rule = (webhook_url: string, n: string) => ({
      name: n,
      metric: 'trace_count',
      operator: 'gt',
      threshold: 0,
      severity: 'critical',
      filter: { trace_name: name },
      window_seconds: 120,
      eval_interval_seconds: 1,
      webhook_url,
    });
    const local = await body<{ id: string }>(
      await svc.api('/api/alerts/rules', { method: 'POST', json: rule(`http://localhost:${fixture.port}/hook`, 'local') }),
      201,
    );
    const redirected = await body<{ id: string }>(
      await svc.api('/api/alerts/rules', { method: 'POST', json: rule(`http://127.0.0.2:${allowed.port}/redirect-hook`, 'redirects') }),
      201,
    );
    await body(await svc.api('/api/traces/ingest', { method: 'POST', json: sampleTrace(`${name}-0`, { name, start: Date.now() }) }), 201);

    type Event = { delivery_status: string; delivery_attempts: number; delivery_error: string | null };
    const eventOf = (id: string) =>
      eventually(async () => {
        const { events } = await body<{ events: Event[] }>(await svc.api(`/api/alerts/events?rule_id=${id}`), 200);
        expect(events.map((e) => e.delivery_status)).toEqual(['failed']);
        return events[0];
      }, 30_000);
    // Refused: failed at the first attempt (trying again changes nothing), nothing sent.
    expect(await eventOf(local.id)).toMatchObject({
      delivery_attempts: 1,
      delivery_error: 'webhook refused by the egress policy: localhost resolves to 127.0.0.1, a loopback address, which EGRESS_ALLOW does not allow',
    });
    // A redirect is a failed attempt like any non-2xx, tried again, never followed; its body is not kept.
    expect(await eventOf(redirected.id)).toMatchObject({ delivery_attempts: 3, delivery_error: 'HTTP 302, a redirect (not followed)' });
    expect(allowed.hits.filter((p) => p === '/redirect-hook')).toHaveLength(3);
    expect(fixture.hits).toEqual([]);
  });
});

describe('the embedded default: a server bound to loopback calls a loopback agent', () => {
  let svc: TestService;
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent(() => ({ json: { output: 'hello world' } }));
    // EGRESS_ALLOW unset (the helpers name loopback; '' is unset): the default of HOST=127.0.0.1.
    svc = await startTestService({ EGRESS_ALLOW: '' });
  });
  afterAll(async () => {
    await svc?.stop();
    await agent?.close();
  });

  it('runs the agent end to end, and still refuses the metadata address and the service itself', async () => {
    const created = await body<{ id: string }>(await svc.api('/api/agents', { method: 'POST', json: { name: 'local-agent', endpoint: agent.url } }), 201);
    const [result] = await runToResults(svc, created.id, [HELLO_CASE], ['contains']);
    expect(result.status).toBe('passed');
    expect(agent.requests).toHaveLength(1);

    const imds = await body<{ details: unknown }>(
      await svc.api('/api/agents', { method: 'POST', json: { name: 'imds', endpoint: 'http://169.254.169.254/' } }),
      422,
    );
    expect(imds.details).toEqual([{ field: 'endpoint', message: 'points to a cloud metadata address (169.254.169.254), which is always refused' }]);
    const apiPort = new URL(svc.apiUrl!).port;
    const self = await body<{ details: unknown }>(
      await svc.api('/api/agents', { method: 'POST', json: { name: 'self', endpoint: `http://127.0.0.1:${apiPort}/api/projects` } }),
      422,
    );
    expect(self.details).toEqual([
      { field: 'endpoint', message: `points to an address and port of this service itself (127.0.0.1 port ${apiPort}), which is always refused` },
    ]);
  });
});
