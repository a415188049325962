import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type { AlertEvent, AlertEventList, AlertNotification, AlertRule, AlertRuleList } from '../../core/model/alert.js';
import { createAlertEvaluator } from '../../core/alerts/evaluator.js';
import { createLogger } from '../../core/logger.js';
import { createAlertMetrics } from '../../core/store/clickhouse/alert-metrics.js';
import { toClickHouseTime } from '../../core/store/clickhouse/time.js';
import { eventually } from '../helpers/eventually.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { sampleTrace, startTestService, type TestService } from '../helpers/server.js';

interface ErrorBody {
  error: string;
  code: string;
  message?: string;
  status?: number;
  details?: FieldIssue[] | string;
}

/** One notification a webhook received. */
interface Hook {
  path: string;
  body: AlertNotification;
}

/** An HTTP server standing in for webhooks: answers each path with the status `statusFor` says, records every call. */
interface WebhookReceiver {
  url(path: string): string;
  calls(path: string): Hook[];
  close(): Promise<void>;
}

async function startWebhookReceiver(statusFor: (path: string) => number): Promise<WebhookReceiver> {
  const received: Hook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertNotification });
      const status = statusFor(path);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'receiver is broken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    calls: (path) => received.filter((h) => h.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first notification the webhook at `path` received, once one has arrived (30 s at most). */
const firstNotification = (path: string): Promise<AlertNotification> =>
  eventually(() => {
    const calls = hooks.calls(path);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    return calls[0].body;
  }, 30_000);

let svc: TestService;
let hooks: WebhookReceiver;

beforeAll(async () => {
  hooks = await startWebhookReceiver((path) => (path.startsWith('/fail') ? 500 : 200));
  // api + worker: the worker role runs the alert evaluator. Short tick, short retries.
  svc = await startTestService({
    AGENT_EVAL_ROLES: 'api,worker',
    ALERT_TICK_MS: '200',
    ALERT_WEBHOOK_BACKOFF_MS: '100',
    ALERT_WEBHOOK_MAX_ATTEMPTS: '3',
    ALERT_WEBHOOK_TIMEOUT_MS: '2000',
  });
});
afterAll(async () => {
  await svc?.stop();
  await hooks?.close();
});

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';
const OTHER = 'other-project';

/** A unique tag: rules filter on it so tests sharing the project never see each other's data. */
const tag = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

function rule(extra: Record<string, unknown> = {}) {
  return { name: 'Error rate', metric: 'error_rate', operator: 'gt', threshold: 0.5, severity: 'critical', ...extra };
}

async function create(body: unknown, project?: string): Promise<AlertRule> {
  const res = await svc.api('/api/alerts/rules', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as AlertRule;
}

async function getRule(id: string): Promise<AlertRule> {
  const res = await svc.api(`/api/alerts/rules/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as AlertRule;
}

async function update(id: string, body: unknown): Promise<AlertRule> {
  const res = await svc.api(`/api/alerts/rules/${id}`, { method: 'PUT', json: body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as AlertRule;
}

async function events(ruleId: string, query = ''): Promise<AlertEvent[]> {
  const res = await svc.api(`/api/alerts/events?rule_id=${ruleId}${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as AlertEventList).events;
}

/** The rule's events (newest first) once `check` passes on them, asked again until `timeoutMs`. */
const eventsOnce = (ruleId: string, check: (list: AlertEvent[]) => void, timeoutMs?: number) =>
  eventually(async () => {
    const list = await events(ruleId);
    check(list);
    return list;
  }, timeoutMs);

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(((await res.json()) as ErrorBody).error).toBe(error);
}

async function ingest(trace: ReturnType<typeof sampleTrace>) {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: trace });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe('POST /api/alerts/rules: the SPEC 400s', () => {
  it('names each missing required field, one message per field', async () => {
    for (const field of ['name', 'metric', 'threshold', 'operator']) {
      const body: Record<string, unknown> = rule();
      delete body[field];
      const res = await svc.api('/api/alerts/rules', { method: 'POST', json: body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: `${field} is required`, status: 400 });
    }
    await expectError(await svc.api('/api/alerts/rules', { method: 'POST', json: {} }), 400, 'name is required');
    await expectError(await svc.api('/api/alerts/rules', { method: 'POST', json: rule({ name: '' }) }), 400, 'name is required');
    await expectError(await svc.api('/api/alerts/rules', { method: 'POST', json: rule({ threshold: null }) }), 400, 'threshold is required');
  });

  it('refuses an unknown operator or severity with the SPEC text', async () => {
    await expectError(
      await svc.api('/api/alerts/rules', { method: 'POST', json: rule({ operator: 'neq' }) }),
      400,
      'operator must be one of: gt, gte, lt, lte, eq',
    );
    await expectError(
      await svc.api('/api/alerts/rules', { method: 'POST', json: rule({ severity: 'fatal' }) }),
      400,
      'severity must be one of: critical, warning, info',
    );
  });

  it('answers other bad input with 422 naming the field', async () => {
    const res = await svc.api('/api/alerts/rules', { method: 'POST', json: rule({ metric: 'cpu', webhook_url: 'ftp://example.com/hook' }) });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
    expect((body.details as FieldIssue[]).map((d) => d.field)).toEqual(expect.arrayContaining(['metric', 'webhook_url']));
  });

  it('DELETE without an id is the SPEC 400; an unknown id is the SPEC 404', async () => {
    await expectError(await svc.api('/api/alerts/rules', { method: 'DELETE' }), 400, 'id query parameter is required');
    await expectError(await svc.api('/api/alerts/rules?id=', { method: 'DELETE' }), 400, 'id query parameter is required');
    await expectError(await svc.api(`/api/alerts/rules?id=${NO_SUCH_ID}`, { method: 'DELETE' }), 404, 'Alert rule not found');
    await expectError(await svc.api('/api/alerts/rules?id=not-a-uuid', { method: 'DELETE' }), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules/${NO_SUCH_ID}`), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules/${NO_SUCH_ID}`, { method: 'PUT', json: { enabled: false } }), 404, 'Alert rule not found');
  });
});

describe('alert rule CRUD', () => {
  it('creates with defaults, reads, lists, edits, disables and deletes', async () => {
    const created = await create(rule({ name: 'CRUD rule', filter: { trace_name: tag('crud') }, enabled: false }));
    expect(created).toMatchObject({
      name: 'CRUD rule',
      metric: 'error_rate',
      operator: 'gt',
      threshold: 0.5,
      severity: 'critical',
      window_seconds: 300,
      eval_interval_seconds: 60,
      no_data: 'ok',
      min_samples: 1,
      enabled: false,
      webhook_url: null,
      drift_test: null,
      state: 'ok',
      last_value: null,
    });
    expect(await getRule(created.id)).toEqual(created);

    const list = (await (await svc.api('/api/alerts/rules?enabled=false&limit=1000')).json()) as AlertRuleList;
    expect(list.rules.map((r) => r.id)).toContain(created.id);

    // PUT merges: a field alone edits it; sending back what GET returned is accepted.
    const edited = await update(created.id, { ...created, threshold: 0.9, severity: 'info' });
    expect(edited).toMatchObject({ id: created.id, threshold: 0.9, severity: 'info', name: 'CRUD rule', enabled: false });
    expect(Date.parse(edited.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect((await update(created.id, { enabled: true })).enabled).toBe(true);

    const bad = await svc.api(`/api/alerts/rules/${created.id}`, { method: 'PUT', json: { operator: 'between' } });
    await expectError(bad, 400, 'operator must be one of: gt, gte, lt, lte, eq');

    expect((await svc.api(`/api/alerts/rules?id=${created.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectError(await svc.api(`/api/alerts/rules/${created.id}`), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules?id=${created.id}`, { method: 'DELETE' }), 404, 'Alert rule not found');
  });

  it('keeps projects apart: another project sees 404 or nothing, never 403', async () => {
    const mine = await create(rule({ name: 'mine', enabled: false }));
    const theirs = await create(rule({ name: 'theirs', enabled: false }), OTHER);

    await expectError(await svc.api(`/api/alerts/rules/${mine.id}`, { project: OTHER }), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules/${mine.id}`, { project: OTHER, method: 'PUT', json: { threshold: 1 } }), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules?id=${mine.id}`, { project: OTHER, method: 'DELETE' }), 404, 'Alert rule not found');
    await expectError(await svc.api(`/api/alerts/rules/${theirs.id}`), 404, 'Alert rule not found');

    const otherList = (await (await svc.api('/api/alerts/rules?limit=1000', { project: OTHER })).json()) as AlertRuleList;
    expect(otherList.rules.map((r) => r.id)).toEqual([theirs.id]);
    const myList = (await (await svc.api('/api/alerts/rules?limit=1000')).json()) as AlertRuleList;
    expect(myList.rules.map((r) => r.id)).not.toContain(theirs.id);
    const otherEvents = (await (await svc.api(`/api/alerts/events?rule_id=${mine.id}`, { project: OTHER })).json()) as AlertEventList;
    expect(otherEvents).toMatchObject({ events: [], total: 0 });

    expect((await getRule(mine.id)).threshold).toBe(0.5);
  });
});

describe('evaluation', () => {
  it('fires an error-rate rule to its webhook, then resolves when the window passes', async () => {
    const name = tag('errors');
    const hook = `/hook/${name}`;
    const now = Date.now();
    for (const [i, status] of (['error', 'error', 'error', 'ok'] as const).entries()) {
      await ingest(sampleTrace(`${name}-${i}`, { name, status, start: now }));
    }
    // Traces of another name do not count.
    await ingest(sampleTrace(`${tag('noise')}-0`, { name: tag('noise'), status: 'ok', start: now }));
    // Created once the traces are stored, so its first evaluation sees all four.
    // An 8 s window: wide enough that a loaded machine still evaluates it before the traces age out.
    const r = await create(rule({ name: 'Errors', filter: { trace_name: name }, window_seconds: 8, eval_interval_seconds: 1, webhook_url: hooks.url(hook) }));

    const fired = await firstNotification(hook);
    expect(fired).toMatchObject({
      event: 'fired',
      value: 0.75,
      threshold: 0.5,
      project_id: svc.defaultProjectId,
      rule: { id: r.id, name: 'Errors', metric: 'error_rate', operator: 'gt', severity: 'critical', state: 'firing' },
      window: { seconds: 8 },
    });
    expect(Date.parse(fired.window.to) - Date.parse(fired.window.from)).toBe(8000);
    expect((await getRule(r.id)).state).not.toBe('ok');

    // No traces in the window any more: no data, which by default (no_data: ok) resolves.
    const resolved = await eventually(() => {
      const calls = hooks.calls(hook);
      expect(calls.map((c) => c.body.event)).toEqual(['fired', 'resolved']);
      return calls[1].body;
    }, 30_000);
    expect(resolved).toMatchObject({ event: 'resolved', value: null, rule: { state: 'ok' } });

    const listed = await eventsOnce(r.id, (list) =>
      expect(list.map((e) => [e.kind, e.delivery_status])).toEqual([
        ['resolved', 'delivered'],
        ['fired', 'delivered'],
      ]),
    );
    expect(listed[1]).toMatchObject({ rule_id: r.id, value: 0.75, threshold: 0.5, delivery_attempts: 1, payload: { event: 'fired', event_id: listed[1].id } });
    expect(await events(r.id, '&kind=fired')).toHaveLength(1);
    const later = new Date(Date.parse(listed[0].at) + 1).toISOString();
    expect(await events(r.id, `&start_time=${later}`)).toHaveLength(0);
    const page = (await (await svc.api(`/api/alerts/events?rule_id=${r.id}&limit=1&offset=1`)).json()) as AlertEventList;
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.events.map((e) => e.kind)).toEqual(['fired']);
  });

  it('fires a budget rule when the cost per hour passes its dollars, and not the rule with the larger budget', async () => {
    const name = tag('budget');
    const hook = `/hook/${name}`;
    const now = Date.now();
    for (const i of [0, 1]) await ingest(sampleTrace(`${name}-${i}`, { name, start: now }));
    // What the two traces cost, as the trace list prices them: the budget lies between one trace and both.
    const listed = (await (await svc.api(`/api/traces?name=${encodeURIComponent(name)}`)).json()) as { traces: Array<{ total_cost: number | null }> };
    const costs = listed.traces.map((t) => t.total_cost ?? 0);
    const spent = costs[0] + costs[1];
    expect([costs.length, Math.min(...costs) > 0]).toEqual([2, true]);
    const budget = (r: Record<string, unknown>) =>
      rule({ metric: 'cost', operator: 'gt', filter: { trace_name: name }, window_seconds: 3600, eval_interval_seconds: 1, ...r });
    const over = await create(budget({ name: 'Over budget', threshold: Math.max(...costs) * 1.5, webhook_url: hooks.url(hook) }));
    const within = await create(budget({ name: 'Within budget', threshold: spent * 2, severity: 'warning' }));

    const fired = await firstNotification(hook);
    expect(fired).toMatchObject({
      event: 'fired',
      threshold: Math.max(...costs) * 1.5,
      rule: { id: over.id, metric: 'cost', state: 'firing' },
      window: { seconds: 3600 },
    });
    expect(fired.value).toBeCloseTo(spent, 12);
    // The larger budget measured the same dollars and stayed quiet.
    const quiet = await eventually(async () => {
      const r = await getRule(within.id);
      expect(r.last_value).not.toBeNull();
      return r;
    }, 30_000);
    expect(quiet.last_value).toBeCloseTo(spent, 12);
    expect(quiet.state).toBe('ok');
    expect(await events(within.id)).toHaveLength(0);
    expect((await events(over.id, '&kind=fired')).map((e) => e.rule_id)).toEqual([over.id]);
  });

  it('retries a failing webhook, gives up after the last attempt, and other rules are not held up', async () => {
    const name = tag('count');
    // Three rules firing on the first trace of `name`, checked every second; only their webhooks differ.
    const countRule = (ruleName: string, webhook_url: string) =>
      create(
        rule({ name: ruleName, metric: 'trace_count', threshold: 0, filter: { trace_name: name }, window_seconds: 120, eval_interval_seconds: 1, webhook_url }),
      );
    const failing = await countRule('fails', hooks.url(`/fail/${name}`));
    const refused = await countRule('refused', 'http://127.0.0.1:1/hook');
    const healthy = await countRule('works', hooks.url(`/ok/${name}`));
    await ingest(sampleTrace(`${name}-0`, { name, start: Date.now() }));

    await eventually(() => expect(hooks.calls(`/ok/${name}`).map((c) => c.body.event)).toEqual(['fired']), 20_000);
    expect(hooks.calls(`/ok/${name}`)[0].body.value).toBe(1);

    for (const r of [failing, refused]) {
      const [event] = await eventsOnce(r.id, (list) => expect(list.map((e) => e.delivery_status)).toEqual(['failed']), 20_000);
      expect(event.delivery_attempts).toBe(3);
      expect(event.next_attempt_at).toBeNull();
    }
    expect(hooks.calls(`/fail/${name}`)).toHaveLength(3);
    expect((await events(failing.id))[0].delivery_error).toMatch(/^HTTP 500/);
    expect((await getRule(failing.id)).state).toBe('firing');

    // The evaluator goes on: raising the threshold above the count resolves the healthy rule.
    await update(healthy.id, { threshold: 100 });
    await eventually(() => expect(hooks.calls(`/ok/${name}`).map((c) => c.body.event)).toEqual(['fired', 'resolved']), 20_000);
    // The event is marked delivered once the webhook's answer is back, just after the hook saw the call.
    await eventually(async () => expect((await events(healthy.id)).map((e) => e.delivery_status)).toEqual(['delivered', 'delivered']), 10_000);
    // Still three attempts: a failed delivery is never tried again.
    expect(hooks.calls(`/fail/${name}`)).toHaveLength(3);
  });

  it('fires an avg_score rule on scores written through the API', async () => {
    const scoreName = tag('quality');
    for (const value of [0.1, 0.2, 0.3]) {
      const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: tag('t'), name: scoreName, value } });
      expect(res.status).toBe(201);
    }
    const r = await create(
      rule({
        name: 'low quality',
        metric: 'avg_score',
        operator: 'lt',
        threshold: 0.5,
        filter: { score_name: scoreName },
        window_seconds: 120,
        eval_interval_seconds: 1,
      }),
    );
    const [fired] = await eventsOnce(r.id, (list) => expect(list.map((e) => e.kind)).toEqual(['fired']), 20_000);
    expect(fired.value).toBeCloseTo(0.2, 9);
    expect(fired.delivery_status).toBe('none');
  });

  it("creates a rule from the SPEC's five fields alone, and avg_score without a name averages every score", async () => {
    for (const value of [0.25, 0.75]) {
      expect((await svc.api('/api/scores', { method: 'POST', json: { trace_id: tag('t'), name: tag('any'), value } })).status).toBe(201);
    }
    const res = await svc.api('/api/alerts/rules', {
      method: 'POST',
      json: { name: tag('all scores'), metric: 'avg_score', threshold: 2, operator: 'lt', severity: 'warning' },
    });
    expect(res.status).toBe(201);
    const r = (await res.json()) as { id: string; filter: Record<string, unknown>; window_seconds: number };
    expect(r.filter).toEqual({});
    await update(r.id, { eval_interval_seconds: 1 });
    const [fired] = await eventsOnce(r.id, (list) => expect(list.map((e) => e.kind)).toEqual(['fired']), 20_000);
    // Every score of the project in the window: at least the two above, each between 0 and 1.
    expect(fired.value).toBeGreaterThanOrEqual(0);
    expect(fired.value).toBeLessThanOrEqual(1);
  });

  it('computes every metric from its store, with filters', async () => {
    const name = tag('metrics');
    const now = Date.now();
    // sampleTrace: 1000 ms; spans 1 and 3 are gpt-4o generations of 10 + 20 tokens, span 2 a tool.
    await ingest(sampleTrace(`${name}-0`, { name, start: now, spanCount: 4 }));
    await ingest(sampleTrace(`${name}-1`, { name, start: now, spanCount: 2, status: 'error' }));
    // A run of suite `name` completed now: 3 trials passed, 1 failed, 1 cancelled (left out).
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      const runId = randomUUID();
      await metadata.pool.query(
        `INSERT INTO eval_runs (id, project_id, suite_name, agent_id, agent_name, agent_version, status, config, aggregation, min_score, case_count, repetitions, completed_at)
         VALUES ($1, $2, $3, $4, 'agent', 'v1', 'completed', '{}', 'mean', 0.7, 5, 1, now())`,
        [runId, svc.defaultProjectId, name, randomUUID()],
      );
      for (const [i, status] of ['passed', 'passed', 'passed', 'failed', 'cancelled'].entries()) {
        await metadata.pool.query('INSERT INTO eval_case_results (run_id, case_index, trial, status, passed) VALUES ($1, $2, 0, $3, $4)', [
          runId,
          i,
          status,
          status === 'passed',
        ]);
      }
    } finally {
      await metadata.close();
    }
    const settings = { filter: { trace_name: name }, window_seconds: 120, eval_interval_seconds: 3600, operator: 'gte', threshold: 0 };
    // A budget: what the two traces cost, as the trace list prices them.
    const listed = (await (await svc.api(`/api/traces?name=${encodeURIComponent(name)}`)).json()) as { traces: Array<{ total_cost: number | null }> };
    const costSum = listed.traces.reduce((sum, t) => sum + (t.total_cost ?? 0), 0);
    expect([listed.traces.length, costSum > 0]).toEqual([2, true]);
    const expected: Array<[Record<string, unknown>, number | null]> = [
      [{ metric: 'trace_count' }, 2],
      [{ metric: 'trace_count', filter: { trace_name: name, model: 'gpt-4o' } }, 2],
      [{ metric: 'trace_count', filter: { trace_name: name, model: 'no-such-model' } }, 0],
      [{ metric: 'error_rate' }, 0.5],
      [{ metric: 'latency_p50' }, 1000],
      [{ metric: 'latency_p95' }, 1000],
      [{ metric: 'tokens_per_trace' }, (60 + 30) / 2],
      [{ metric: 'cost' }, costSum],
      [{ metric: 'cost', filter: { trace_name: name, model: 'no-such-model' } }, 0],
      [{ metric: 'run_pass_rate', filter: { suite_name: name } }, 0.75],
      [{ metric: 'run_pass_rate', filter: { suite_name: tag('no-such-suite') } }, null],
      [{ metric: 'drift', drift_test: 'ks', drift_source: 'latency' }, null],
    ];
    const created = await Promise.all(expected.map(([extra]) => create(rule({ ...settings, ...extra }))));
    for (const [i, r] of created.entries()) {
      const got = await eventually(async () => {
        const current = await getRule(r.id);
        expect(current.last_evaluated_at).not.toBeNull();
        return current;
      }, 10_000);
      expect([got.metric, got.last_error, got.last_value], JSON.stringify(expected[i][0])).toEqual([r.metric, null, expected[i][1]]);
    }
  });

  it('applies the no-data policy: alert enters no_data with an event, keep changes nothing', async () => {
    const filter = { trace_name: tag('silent') };
    const alerting = await create(rule({ filter, no_data: 'alert', window_seconds: 10, eval_interval_seconds: 1 }));
    const keeping = await create(rule({ filter, no_data: 'keep', window_seconds: 10, eval_interval_seconds: 1 }));
    await eventually(async () => expect((await events(alerting.id)).map((e) => [e.kind, e.value])).toEqual([['no_data', null]]), 10_000);
    expect((await getRule(alerting.id)).state).toBe('no_data');
    await eventually(async () => expect((await getRule(keeping.id)).last_evaluated_at).not.toBeNull(), 10_000);
    expect((await getRule(keeping.id)).state).toBe('ok');
    expect(await events(keeping.id)).toEqual([]);
  });

  it('a drift rule fires on a shifted score distribution and stays quiet on an unshifted one', async () => {
    const shifted = tag('drift-shifted');
    const same = tag('drift-same');
    const now = Date.now();
    // The API stamps scores with the time they arrive; the baseline must be older than the
    // window, so these rows are written to the analytical store directly. Window 20 s, baseline
    // the two windows before it: the old rows are baseline and the new ones current for 19 s.
    const grid = Array.from({ length: 30 }, (_, i) => i / 29);
    const rows = (scoreName: string, values: number[], at: number) =>
      values.map((value) => ({
        project_id: svc.defaultProjectId,
        score_id: randomUUID(),
        trace_id: tag('t'),
        span_id: '',
        name: scoreName,
        value,
        score_type: 'numeric',
        source: 'api',
        scorer_name: '',
        reason: '',
        evidence: [],
        created_at: toClickHouseTime(at),
      }));
    await svc.clickhouse.insert({
      table: 'agent_eval.scores',
      format: 'JSONEachRow',
      values: [
        ...rows(
          shifted,
          grid.map((v) => 0.6 + 0.4 * v),
          now - 30_000,
        ),
        ...rows(
          shifted,
          grid.map((v) => 0.4 * v),
          now - 500,
        ),
        ...rows(same, grid, now - 30_000),
        ...rows(same, grid, now - 500),
      ],
    });
    const drift = (name: string, scoreName: string, test: 'psi' | 'ks', threshold: number) =>
      create(
        rule({
          name,
          metric: 'drift',
          drift_test: test,
          threshold,
          filter: { score_name: scoreName },
          window_seconds: 20,
          baseline_windows: 2,
          eval_interval_seconds: 1,
        }),
      );
    const shiftedPsi = await drift('shifted psi', shifted, 'psi', 0.25);
    const shiftedKs = await drift('shifted ks', shifted, 'ks', 0.5);
    const samePsi = await drift('same psi', same, 'psi', 0.25);
    const sameKs = await drift('same ks', same, 'ks', 0.1);
    expect(shiftedPsi).toMatchObject({ drift_test: 'psi', drift_source: 'score', baseline_windows: 2, psi_bins: 10, min_samples: 20 });

    for (const r of [shiftedPsi, shiftedKs]) {
      const [fired] = await eventually(async () => {
        const list = await events(r.id, '&kind=fired');
        expect(list).toHaveLength(1);
        return list;
      }, 15_000);
      expect(fired.value).toBeGreaterThan(r.threshold);
    }
    expect((await events(shiftedKs.id, '&kind=fired'))[0].value).toBe(1);
    // The unshifted rules were evaluated on both samples and found no drift at all.
    for (const r of [samePsi, sameKs]) {
      await eventually(async () => expect((await getRule(r.id)).last_value).toBe(0), 15_000);
      expect(await events(r.id)).toEqual([]);
    }
  });
});

describe('several evaluators', () => {
  it('claim each due rule once per interval', async () => {
    const project = tag('claims');
    const rules: AlertRule[] = [];
    for (let i = 0; i < 30; i++) {
      rules.push(
        await create(
          rule({ name: `claim ${i}`, metric: 'trace_count', threshold: 1000, filter: { trace_name: project }, eval_interval_seconds: 3600, enabled: false }),
          project,
        ),
      );
    }
    // Four more evaluators on the same stores, racing the service's own (which ticks every 200 ms)
    // for 30 rules that all become due at once.
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      await metadata.pool.query('UPDATE alert_rules SET enabled = true WHERE project_id = $1', [project]);
      const metrics = createAlertMetrics(svc.clickhouse);
      const logger = createLogger('silent');
      // These rules have no webhook: nothing is sent.
      const fetch = () => Promise.reject(new Error('no webhook here'));
      const evaluators = Array.from({ length: 4 }, () =>
        createAlertEvaluator({ store: metadata.alerts, metrics, logger, tickMs: 200, webhook: { timeoutMs: 1000, maxAttempts: 1, backoffMs: 10 }, fetch }),
      );
      for (let round = 0; round < 3; round++) await Promise.all(evaluators.map((e) => e.tick()));
      await eventually(async () => {
        for (const r of rules)
          expect((await svc.api(`/api/alerts/rules/${r.id}`, { project }).then((res) => res.json() as Promise<AlertRule>)).last_evaluated_at).not.toBeNull();
      }, 10_000);
      const { rows } = await metadata.pool.query<{ claim_seq: string }>('SELECT claim_seq FROM alert_rules WHERE project_id = $1', [project]);
      expect(rows.map((r) => Number(r.claim_seq))).toEqual(rules.map(() => 1));
      const evaluated = await Promise.all(rules.map((r) => svc.api(`/api/alerts/rules/${r.id}`, { project }).then((res) => res.json() as Promise<AlertRule>)));
      expect(evaluated.every((r) => r.last_value === 0 && r.state === 'ok' && Date.parse(r.next_eval_at) > Date.now() + 3000_000)).toBe(true);
    } finally {
      await metadata.close();
    }
  });
});

describe('hostile input', () => {
  it('answers 4xx, never 500', async () => {
    const raw = (text: string) => ({ method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    const nested = (depth: number): unknown => (depth === 0 ? 'x' : { trace_name: nested(depth - 1) });
    const requests: Array<[string, RequestInit & { json?: unknown }]> = [
      ['/api/alerts/rules', raw('[]')],
      ['/api/alerts/rules', raw('"rule"')],
      ['/api/alerts/rules', raw('null')],
      ['/api/alerts/rules', raw('{"name":')],
      ['/api/alerts/rules', raw('{"name":"x","metric":"error_rate","operator":"gt","severity":"info","threshold":1e400}')],
      ['/api/alerts/rules', raw('{"__proto__":{"enabled":false},"name":"x","metric":"error_rate","operator":"gt","severity":"info","threshold":1}')],
      ['/api/alerts/rules', { method: 'POST', json: rule({ name: 'x'.repeat(100_000) }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ name: 'nul\u0000name' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ name: 'lone \ud800 surrogate' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ metric: { $gt: '' } }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ threshold: {} }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ threshold: '0.5' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ operator: ['gt'] }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ filter: nested(200) }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ filter: [] }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ filter: { trace_name: 'x\u0000' } }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ window_seconds: 1e12 }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ window_seconds: -1 }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ eval_interval_seconds: 1.5 }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ webhook_url: 'javascript:alert(1)' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ webhook_url: 'file:///etc/passwd' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ webhook_url: 'http://[::1' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ webhook_url: `http://example.com/${'a'.repeat(5000)}` }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ enabled: 'yes' }) }],
      ['/api/alerts/rules', { method: 'POST', json: rule({ metric: 'drift', filter: { score_name: 's' }, psi_bins: 1_000_000 }) }],
      ['/api/alerts/rules/%00', {}],
      ["/api/alerts/rules/' OR 1=1 --", {}],
      [`/api/alerts/rules/${NO_SUCH_ID}`, { method: 'PUT', json: [] }],
      ['/api/alerts/rules?limit=-1', {}],
      ['/api/alerts/rules?limit=abc', {}],
      ['/api/alerts/rules?limit=100000', {}],
      ['/api/alerts/rules?state=bogus', {}],
      ['/api/alerts/rules?enabled=maybe', {}],
      ['/api/alerts/rules?id=a&id=b', { method: 'DELETE' }],
      ['/api/alerts/rules?id=%00', { method: 'DELETE' }],
      ["/api/alerts/rules?id=' OR 1=1 --", { method: 'DELETE' }],
      ['/api/alerts/events?rule_id=x', {}],
      ['/api/alerts/events?rule_id=a&rule_id=b', {}],
      ['/api/alerts/events?kind=exploded', {}],
      ['/api/alerts/events?start_time=yesterday', {}],
      ['/api/alerts/events?limit=0', {}],
      ['/api/alerts/events?offset=-5', {}],
    ];
    for (const [path, init] of requests) {
      const res = await svc.api(path, init);
      const label = `${init.method ?? 'GET'} ${path.slice(0, 80)} ${typeof init.body === 'string' ? init.body.slice(0, 60) : ''}`;
      expect([400, 404, 413, 422], label).toContain(res.status);
      await res.body?.cancel();
    }

    const stored = await create(rule({ enabled: false }));
    for (const body of [[], 'x', { metric: 'nope' }, { threshold: null }, { filter: { score_name: 'q' } }, { webhook_url: 'gopher://x' }]) {
      const res = await svc.api(`/api/alerts/rules/${stored.id}`, { method: 'PUT', json: body });
      expect([400, 422], JSON.stringify(body)).toContain(res.status);
    }
    const proto = await svc.api(`/api/alerts/rules/${stored.id}`, {
      method: 'PUT',
      body: '{"__proto__":{"filter":{"score_name":"q"}},"metric":"trace_count"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(422);
    expect(await getRule(stored.id)).toEqual(stored);
  });

  it('binds filter values: SQL in a filter is text to match, and evaluation still succeeds', async () => {
    const r = await create(
      rule({ filter: { trace_name: "'; DROP TABLE agent_eval.scores; --", model: "x') OR 1=1 --" }, window_seconds: 60, eval_interval_seconds: 1 }),
    );
    const evaluated = await eventually(async () => {
      const got = await getRule(r.id);
      expect(got.last_evaluated_at).not.toBeNull();
      return got;
    }, 10_000);
    expect(evaluated).toMatchObject({ last_error: null, last_value: null, state: 'ok' });
  });
});
