import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentEvalClient, startRun } from '../../sdk/index.js';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { eventually } from '../helpers/eventually.js';
import { silentServer } from '../helpers/hang.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { apiFetch, startTestService, type TestService } from '../helpers/server.js';
import { servicePostgresUrl } from '../helpers/service-postgres.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * Idempotency-Key on the creating POSTs (docs/api.md, "Retries: Idempotency-Key"): the real
 * service (Temporal dev server, PostgreSQL, chDB) and a counting agent; a second API over the
 * same PostgreSQL (test/helpers/api-on-stores.ts) stands for another process. AUTH_MODE=none so
 * both processes see the same caller (keys are covered by test/integration/auth*.test.ts).
 */

let svc: TestService;
let agent: TestAgent;
let agentId: string;

interface ErrorBody {
  error: string;
  code: string;
  status: number;
}

function post(pathname: string, body: unknown, key?: string): Promise<Response> {
  return svc.api(pathname, { method: 'POST', json: body, headers: key === undefined ? {} : { 'idempotency-key': key } });
}

const runBody = (caseName: string) => ({
  agentId: 'idem-bot',
  dataset: { items: [{ name: caseName, input: { q: caseName }, expected: { outputContains: ['ok'] } }] },
  scorers: ['contains'],
});

/** The runs the agent was called for with this case. */
const runsCalledFor = (caseName: string) => new Set(agent.callsFor(caseName).map((r) => r.body.run_id));

async function waitForEnd(runId: string): Promise<void> {
  await eventually(async () => {
    const run = await json<{ status: string }>(await svc.api(`/api/runs/${runId}`), 200);
    expect(['completed', 'failed']).toContain(run.status);
  }, 60_000);
}

beforeAll(async () => {
  agent = await startTestAgent(() => ({ json: { output: 'ok' } }));
  svc = await startTestService({ AUTH_MODE: 'none', EVAL_RETRY_TIME_SCALE: '0.001' });
  agentId = (await json<{ id: string }>(await svc.api('/api/agents', { method: 'POST', json: { name: 'idem-bot', endpoint: agent.url } }), 201)).id;
});

afterAll(async () => {
  await svc?.stop();
  await agent?.close();
});

describe('POST /api/runs with Idempotency-Key', () => {
  it('answers a retry with the first answer, and the agent is called for one run', async () => {
    const first = await post('/api/runs', runBody('once'), 'run-key-1');
    const firstText = await first.text();
    expect(first.status, firstText).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const { run_id } = JSON.parse(firstText) as { run_id: string };

    const retry = await post('/api/runs', runBody('once'), 'run-key-1');
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(firstText);

    await waitForEnd(run_id);
    // After the run ended, the retry still gets the answer of the first request.
    const late = await post('/api/runs', runBody('once'), 'run-key-1');
    expect(late.status).toBe(202);
    expect(await late.text()).toBe(firstText);
    expect([...runsCalledFor('once')]).toEqual([run_id]);
    expect(agent.callsFor('once')).toHaveLength(1);
  });

  it('refuses the same key with another body (422) and runs nothing for it', async () => {
    await json(await post('/api/runs', runBody('reuse-a'), 'run-key-2'), 202);
    const other = await json<ErrorBody>(await post('/api/runs', runBody('reuse-b'), 'run-key-2'), 422);
    expect(other).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422, error: 'This Idempotency-Key was already used with a different request' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(agent.callsFor('reuse-b')).toHaveLength(0);
  });

  it('starts one run for concurrent requests with one key: the others get the same run or 409', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => post('/api/runs', runBody('together'), 'run-key-3')));
    const ids = new Set<string>();
    for (const res of answers) {
      expect([202, 409]).toContain(res.status);
      if (res.status === 202) ids.add(((await res.json()) as { run_id: string }).run_id);
      else {
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as ErrorBody).code).toBe('IDEMPOTENCY_KEY_IN_USE');
      }
    }
    expect(ids.size).toBe(1);
    const [runId] = ids;
    await waitForEnd(runId);
    expect([...runsCalledFor('together')]).toEqual([runId]);
  });

  it('without a key every POST is a new run, as before', async () => {
    const a = await json<{ run_id: string }>(await post('/api/runs', runBody('keyless')), 202);
    const b = await json<{ run_id: string }>(await post('/api/runs', runBody('keyless')), 202);
    expect(a.run_id).not.toBe(b.run_id);
  });

  it('forgets a key once it expired (24 h): the same key then starts a new run', async () => {
    const first = await json<{ run_id: string }>(await post('/api/runs', runBody('expiring'), 'run-key-4'), 202);
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      // 24 h later, as the store sees it.
      await metadata.pool.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'run-key-4'`);
    } finally {
      await metadata.close();
    }
    const second = await json<{ run_id: string }>(await post('/api/runs', runBody('expiring'), 'run-key-4'), 202);
    expect(second.run_id).not.toBe(first.run_id);
  });

  it('refuses a malformed key with 422 naming the header', async () => {
    const body = await json<{ details: Array<{ field: string }> }>(await post('/api/runs', runBody('bad-key'), 'k'.repeat(300)), 422);
    expect(body.details[0].field).toBe('Idempotency-Key');
    expect((await post('/api/runs', runBody('bad-key'), 'has space')).status).toBe(422);
  });
});

describe('POST /api/evals/runs with Idempotency-Key', () => {
  it('answers a retry with the first run', async () => {
    await postSuite(svc, {
      name: 'idem-suite',
      agent_id: agentId,
      defaultScorers: ['contains'],
      cases: [{ name: 'suite-case', input: { q: 1 }, expected: { outputContains: ['ok'] } }],
    });
    const body = { suite_name: 'idem-suite', agent_version: 'v1' };
    const first = await post('/api/evals/runs', body, 'eval-key-1');
    const firstText = await first.text();
    expect(first.status, firstText).toBe(202);
    const retry = await post('/api/evals/runs', body, 'eval-key-1');
    expect(retry.status).toBe(202);
    expect(await retry.text()).toBe(firstText);
    const { run_id } = JSON.parse(firstText) as { run_id: string };
    await waitForEnd(run_id);
    expect([...runsCalledFor('suite-case')]).toEqual([run_id]);
  });
});

describe('POST /api/scores', () => {
  const score = (traceId: string) => ({ trace_id: traceId, name: 'quality', value: 0.7, reason: 'fine' });
  const scoresOf = async (traceId: string) => (await json<{ scores: Array<{ id: string }> }>(await svc.api(`/api/scores?trace_id=${traceId}`), 200)).scores;

  it('answers a retry with the same Idempotency-Key with the first score, and stores one', async () => {
    const first = await post('/api/scores', score('idem-score-1'), 'score-key-1');
    const firstText = await first.text();
    expect(first.status, firstText).toBe(201);
    const retry = await post('/api/scores', score('idem-score-1'), 'score-key-1');
    expect(retry.status).toBe(201);
    expect(await retry.text()).toBe(firstText);
    expect((await scoresOf('idem-score-1')).map((s) => s.id)).toEqual([(JSON.parse(firstText) as { id: string }).id]);
  });

  it('takes a client id: a second POST with it answers the first score, a different score with it is 409', async () => {
    const body = { ...score('idem-score-2'), id: 'client-score-1' };
    const first = await json<{ id: string; created_at: string }>(await post('/api/scores', body), 201);
    expect(first.id).toBe('client-score-1');
    await new Promise((r) => setTimeout(r, 20));
    const again = await post('/api/scores', body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first);
    const stored = await scoresOf('idem-score-2');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: 'client-score-1', created_at: first.created_at });

    const changed = await json<ErrorBody>(await post('/api/scores', { ...body, value: 0.1 }), 409);
    expect(changed.code).toBe('SCORE_ID_TAKEN');
    expect((await scoresOf('idem-score-2'))[0]).toMatchObject({ value: 0.7 });
    expect((await post('/api/scores', { ...body, id: 'x\u0001y' })).status).toBe(422);
  });
});

describe('across processes', () => {
  it('another process answers a retry from PostgreSQL, without touching its own analytical store', async () => {
    const first = await post('/api/scores', { trace_id: 'idem-across', name: 'q', value: 1 }, 'across-key-1');
    const firstText = await first.text();
    expect(first.status, firstText).toBe(201);
    // The other process's ClickHouse is unreachable: its answer can only come from PostgreSQL.
    const other = await startApiOnStores({ clickhouseUrl: 'http://127.0.0.1:9', postgresUrl: servicePostgresUrl(svc.dataDir), clickhouseTimeoutMs: 1000 });
    try {
      const retry = await apiFetch(other.base, svc.defaultProjectId, '/api/scores', {
        method: 'POST',
        json: { trace_id: 'idem-across', name: 'q', value: 1 },
        headers: { 'idempotency-key': 'across-key-1' },
      });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.text()).toBe(firstText);
    } finally {
      await other.close();
    }
  });

  it('a retry while another process still runs the first request is 409; once that one fails, the retry runs', async () => {
    const hung = await silentServer();
    const other = await startApiOnStores({ clickhouseUrl: `http://${hung.address}`, postgresUrl: servicePostgresUrl(svc.dataDir), clickhouseTimeoutMs: 3000 });
    try {
      const body = { trace_id: 'idem-busy', name: 'q', value: 0.5 };
      const headers = { 'idempotency-key': 'busy-key-1' };
      // The other process holds the key while its analytical store does not answer.
      const pending = apiFetch(other.base, svc.defaultProjectId, '/api/scores', { method: 'POST', json: body, headers });
      const metadata = openServiceMetadata(svc.dataDir);
      try {
        await eventually(async () => expect((await metadata.pool.query(`SELECT 1 FROM idempotency_keys WHERE key = 'busy-key-1'`)).rowCount).toBe(1), 2000);
      } finally {
        await metadata.close();
      }
      const busy = await post('/api/scores', body, 'busy-key-1');
      expect(busy.status).toBe(409);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(((await busy.json()) as ErrorBody).code).toBe('IDEMPOTENCY_KEY_IN_USE');
      const failed = await pending;
      expect(failed.status).toBe(503);
      // Nothing was created: the key was given up, and the retry here runs and stores the score.
      const retry = await post('/api/scores', body, 'busy-key-1');
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await other.close();
      await hung.close();
    }
  });
});

describe('the SDK', () => {
  it('sends idempotencyKey: the same run twice is one run; a 409 while another process holds the key is waited out', async () => {
    const client = new AgentEvalClient({ url: svc.apiUrl, project: svc.defaultProjectId });
    const a = await client.runs.create(runBody('sdk-once'), { idempotencyKey: 'sdk-run-1' });
    const b = await client.runs.create(runBody('sdk-once'), { idempotencyKey: 'sdk-run-1' });
    expect(b.run_id).toBe(a.run_id);
    expect((await client.evals.createRun({ suite_name: 'idem-suite', agent_version: 'v2' }, { idempotencyKey: 'sdk-eval-1' })).run_id).toBe(
      (await client.runs.createFromSuite({ suite_name: 'idem-suite', agent_version: 'v2' }, { idempotencyKey: 'sdk-eval-1' })).run_id,
    );

    // Another process holds the score's key while its ClickHouse hangs (1.5 s): the SDK's 409s are
    // retried after Retry-After until the key is free, and the score is stored once.
    const hung = await silentServer();
    const other = await startApiOnStores({ clickhouseUrl: `http://${hung.address}`, postgresUrl: servicePostgresUrl(svc.dataDir), clickhouseTimeoutMs: 1500 });
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      const body = { trace_id: 'idem-sdk-busy', name: 'q', value: 0.5 };
      const pending = apiFetch(other.base, svc.defaultProjectId, '/api/scores', { method: 'POST', json: body, headers: { 'idempotency-key': 'sdk-busy-1' } });
      await eventually(async () => expect((await metadata.pool.query(`SELECT 1 FROM idempotency_keys WHERE key = 'sdk-busy-1'`)).rowCount).toBe(1), 2000);
      const score = await client.scores.create(body, { idempotencyKey: 'sdk-busy-1' });
      expect(score).toMatchObject(body);
      expect((await pending).status).toBe(503);
      expect((await client.scores.list('idem-sdk-busy')).scores.map((s) => s.id)).toEqual([score.id]);
    } finally {
      await metadata.close();
      await other.close();
      await hung.close();
    }
  });

  it('startRun sends a key of its own: an answer lost on the way is asked again and gets the same run, never a second', async () => {
    let lost = 0;
    // The service answers, and the answer never reaches the client (a connection reset).
    const losing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = input instanceof Request ? input.url : input.toString();
      if (init?.method === 'POST' && url.endsWith('/api/evals/runs') && lost++ === 0) {
        await res.body?.cancel();
        throw new TypeError('fetch failed: the answer was lost');
      }
      return res;
    };
    const run = await startRun({ url: svc.apiUrl, project: svc.defaultProjectId, fetch: losing, suite: 'idem-suite', agentVersion: 'lost-answer' });
    expect(lost).toBe(2);
    const runs = await json<{ runs: Array<{ run_id: string }>; total: number }>(
      await svc.api('/api/runs?suite_name=idem-suite&agent_version=lost-answer'),
      200,
    );
    expect(runs.total).toBe(1);
    expect(runs.runs[0].run_id).toBe(run.run_id);
  });
});
