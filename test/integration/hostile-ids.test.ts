import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyStoreError } from '../../core/errors.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { sampleTrace, startTestApi, type TestApi } from '../helpers/server.js';
import { routerRoutes, type RouterRoute } from '../helpers/api-routes.js';

/**
 * Hostile ids and hostile bodies on every route of the API (docs/api.md, "Refused at the door"):
 * NUL and other control characters (C0, DEL, C1) in every path parameter, in query filters and in
 * every id of a body, and a 5,000-deep JSON body. Each answer is a 4xx with the SPEC's error body,
 * never a 5xx (PostgreSQL cannot hold U+0000 and answered such lookups with a 500), and the same
 * routes answer normal requests afterwards. The routes are read off the API's own router, so a
 * route added later is walked too.
 */

let svc: TestApi;
const PROJECT = 'hostile-ids';

/** NUL, a C0 control, ESC, DEL and NEL (C1). */
const HOSTILE = ['\u0000', '\u0001', '\u001b', '\u007f', '\u0085'];
const show = (s: string) => JSON.stringify(s);

type Route = RouterRoute;

/**
 * Every route of the API as its router holds it (test/helpers/api-routes.ts), so a route added
 * later is walked too; but the public ones that take no input: health and the OpenAPI document.
 */
const ROUTES = routerRoutes().filter((r) => r.path.startsWith('/api/') && r.path !== '/api/health' && r.path !== '/api/openapi.json');
const hasBody = (r: Route) => r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH';

/** Ids of real resources of PROJECT, so a path holds one hostile parameter at a time and the others are real. */
const ids: Record<string, string> = {};

/** The normal value of a path parameter of `route`. */
function normalParam(route: Route, param: string): string {
  if (param === 'index') return '0';
  if (param === 'version') return '1';
  if (param === 'label') return 'production';
  if (param === 'name') return 'helpfulness_judge';
  if (param === 'traceId') return ids.trace;
  if (param === 'spanId') return ids.span;
  if (param === 'keyId') return ids.key;
  if (param === 'itemId') return ids.item;
  if (param === 'sessionId') return 'hostile-session';
  const resource = /^\/api\/(evals\/online-rules|evals\/runs|feedback\/comparisons|alerts\/rules|admin\/projects|[a-z-]+)/.exec(route.path)![1];
  const byResource: Record<string, string> = {
    projects: PROJECT,
    'admin/projects': PROJECT,
    agents: ids.agent,
    scorers: ids.scorer,
    suites: ids.suite,
    prompts: ids.prompt,
    'evals/runs': ids.run,
    runs: ids.run,
    'feedback/comparisons': ids.comparison,
    feedback: ids.feedback,
    queues: ids.queue,
    'alerts/rules': ids.alert,
    'evals/online-rules': ids.onlineRule,
    deletions: ids.deletion,
    exports: ids.export,
  };
  const value = byResource[resource];
  if (value === undefined) throw new Error(`no normal value for :${param} of ${route.method} ${route.path}`);
  return value;
}

function pathOf(route: Route, hostile?: { param: string; value: string }): string {
  return route.path.replace(/:(\w+)/g, (_m, param: string) => encodeURIComponent(hostile?.param === param ? hostile.value : normalParam(route, param)));
}

/** Query parameters the list routes filter by (and a few they do not know): each gets a hostile value in turn. */
const QUERY_NAMES = [
  'name',
  'trace_id',
  'rule_id',
  'suite_name',
  'suite_id',
  'agent_id',
  'agent_version',
  'search',
  'model',
  'label',
  'status',
  'reviewer',
  'user_id',
  'source',
  'score_name',
  'start_time',
  'cursor',
  'id',
  'unknown_filter',
];

/**
 * A valid body of each write route, and where its ids are: a hostile value in any of them is
 * refused. Routes missing here get a body whose every usual id field is hostile.
 */
function bodyOf(route: Route, hostile: string | undefined): { body: unknown; idPaths: string[] } | undefined {
  const h = (normal: string) => (hostile === undefined ? normal : `${normal}${hostile}`);
  const key = `${route.method} ${route.path}`;
  const trace = (traceId: string, spanId: string, parentId: string) => ({
    trace_id: traceId,
    name: 'agent-run',
    status: 'ok',
    duration_ms: 10,
    spans: [
      { span_id: `${spanId}-root`, name: 'root', type: 'span', start_time: new Date(Date.now() - 1000).toISOString() },
      { span_id: spanId, parent_span_id: parentId, name: 'llm', type: 'generation', start_time: new Date(Date.now() - 900).toISOString() },
    ],
  });
  switch (key) {
    case 'POST /api/traces/ingest':
      return { body: trace(h('t-ingest'), 's-ingest', 's-ingest-root'), idPaths: ['trace_id'] };
    case 'POST /api/spans':
      return {
        body: { trace_id: 't-spans', spans: [{ span_id: h('s-spans'), name: 'x', type: 'span', start_time: new Date().toISOString() }] },
        idPaths: ['spans[0].span_id'],
      };
    case 'POST /api/scores':
      return { body: { trace_id: h(ids.trace), name: 'accuracy', value: 1 }, idPaths: ['trace_id'] };
    case 'POST /api/agents':
      return { body: { name: h('agent-new'), endpoint: 'http://127.0.0.1:9/agent' }, idPaths: ['name'] };
    case 'PUT /api/agents/:id':
      return { body: { name: h('agent-renamed'), endpoint: 'http://127.0.0.1:9/agent' }, idPaths: ['name'] };
    case 'POST /api/scorers':
      return { body: { name: h('scorer-new'), endpoint: 'http://127.0.0.1:9/score' }, idPaths: ['name'] };
    case 'POST /api/suites':
    case 'PUT /api/suites/:id':
      return { body: { name: h('suite'), agent_id: 'agent-1', cases: [{ name: 'c', input: 'q' }], defaultScorers: ['contains'] }, idPaths: ['name'] };
    case 'POST /api/prompts':
      return { body: { name: h('prompt-new'), type: 'text', template: 'hello' }, idPaths: ['name'] };
    case 'PUT /api/prompts/:id':
      return { body: { name: h('prompt-1'), template: 'hello again' }, idPaths: ['name'] };
    case 'POST /api/prompts/:id/labels':
      return { body: { labels: [h('staging')] }, idPaths: ['labels[0]'] };
    case 'POST /api/prompts/:id/render':
      return { body: { label: h('production'), variables: {} }, idPaths: ['label'] };
    case 'POST /api/evals/runs':
      return { body: { suite_name: h('suite'), agent_version: 'v1' }, idPaths: ['suite_name'] };
    case 'POST /api/evals/compare':
    case 'POST /api/compare':
      return { body: { baseline_run_id: h(ids.run), candidate_run_id: '00000000-0000-4000-8000-000000000001' }, idPaths: ['baseline_run_id'] };
    case 'POST /api/runs':
      return { body: { agentId: h('agent-1'), dataset: { items: [{ input: 'q' }] }, scorers: ['contains'] }, idPaths: ['agentId'] };
    case 'POST /api/runs/:id/results':
      return {
        body: { results: [{ case_index: 0, trial: 0, trace_id: h('5b8efff798038103d269b633813fc60c'), scores: {} }] },
        idPaths: ['results[0].trace_id'],
      };
    case 'POST /api/feedback':
      return { body: { type: 'rating', trace_id: h(ids.trace), user_id: 'rater', value: 1 }, idPaths: ['trace_id'] };
    case 'POST /api/feedback/comparisons':
      return { body: { prompt: 'p', output_a: 'a', output_b: 'b', trace_a: h(ids.trace) }, idPaths: ['trace_a'] };
    case 'POST /api/feedback/comparisons/:id/answer':
      return { body: { preferred: 'a', user_id: h('rater') }, idPaths: ['user_id'] };
    case 'POST /api/queues':
      return { body: { name: 'q', trace_ids: [h(ids.trace)] }, idPaths: ['trace_ids[0]'] };
    case 'POST /api/queues/:id/items':
      return { body: { trace_ids: [h(ids.trace)] }, idPaths: ['trace_ids[0]'] };
    case 'POST /api/queues/:id/next':
    case 'POST /api/queues/:id/items/:itemId/skip':
      return { body: { reviewer: h('reviewer-1') }, idPaths: ['reviewer'] };
    case 'POST /api/queues/:id/items/:itemId/complete':
      return { body: { scores: {}, reviewer: h('reviewer-1') }, idPaths: ['reviewer'] };
    case 'POST /api/queues/:id/items/:itemId/to-suite':
      return { body: { suite_name: h('suite') }, idPaths: ['suite_name'] };
    case 'POST /api/projects':
      return { body: { id: h('hostile-new'), name: 'p' }, idPaths: ['id'] };
    case 'POST /api/admin/recompute-costs':
      return { body: { from: hostile === undefined ? '2026-01-01T00:00:00Z' : '2026-02-30T00:00:00Z', to: '2026-03-01T00:00:00Z' }, idPaths: ['from'] };
    default:
      return undefined;
  }
}

/** A body with every usual id field hostile, for routes whose body holds no id of their own. */
function genericBody(hostile: string): unknown {
  const v = `x${hostile}y`;
  return { id: v, name: v, trace_id: v, span_id: v, agentId: v, agent_id: v, suite_name: v, run_id: v, user_id: v, reviewer: v, trace_ids: [v], labels: [v] };
}

/** `depth` nested objects under `config` (the prompt route answered 500 to this), as text: JSON.stringify would recurse. */
function deepBody(depth: number): string {
  return `{"name":"deep","type":"text","template":"t","config":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/**
 * A request as PROJECT's admin; `asServerAdmin`: with the bootstrap key instead (creating a
 * project is a server admin's; the /api/admin/projects routes stay a project admin's 403 here, so
 * no walk archives or deletes PROJECT).
 */
async function send(method: string, path: string, body?: string, asServerAdmin = false): Promise<Answer> {
  const who = asServerAdmin ? { project: null, key: svc.apiKey! } : { project: PROJECT };
  const res = await svc.api(path, { method, ...who, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Checked below: every error body is JSON.
  }
  return { status: res.status, body: parsed, text };
}

/** Why `a` is not a 4xx with one of the SPEC's error bodies, or null. */
function notASpecRefusal(a: Answer): string | null {
  if (a.status < 400 || a.status >= 500) return `status ${a.status}`;
  const b = a.body;
  if (typeof b.error !== 'string' || b.error === '') return 'no error text';
  if (a.status === 422) {
    const details = b.details as Array<{ field?: unknown; message?: unknown }> | undefined;
    if (b.error !== 'Validation error' || b.code !== 'VALIDATION_ERROR' || b.message !== 'Field validation failed') return 'not the validation body';
    if (!Array.isArray(details) || details.length === 0 || details.some((d) => typeof d.field !== 'string' || typeof d.message !== 'string'))
      return 'no {field, message} details';
    return null;
  }
  if (typeof b.code !== 'string') return 'no code';
  if (a.status === 404) return b.message === b.error ? null : 'not the reference body';
  return b.status === a.status ? null : 'no status';
}

beforeAll(async () => {
  svc = await startTestApi();
  const created = async (path: string, json: unknown, expected = 201) => {
    const res = await svc.api(path, { method: 'POST', project: PROJECT, json });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(expected);
    return JSON.parse(text) as Record<string, unknown>;
  };
  // A turn of a session, so GET /api/sessions/:sessionId has one to answer.
  const trace = { ...sampleTrace('hostile-trace'), attributes: { session_id: 'hostile-session' } };
  await created('/api/traces/ingest', trace);
  ids.trace = 'hostile-trace';
  ids.span = 'hostile-trace-1';
  ids.key = String(((await created(`/api/projects/${PROJECT}/keys`, { name: 'spare' })) as { id: string }).id);
  ids.agent = String((await created('/api/agents', { name: 'agent-1', endpoint: 'http://127.0.0.1:9/agent' })).name);
  ids.scorer = String((await created('/api/scorers', { name: 'scorer-1', endpoint: 'http://127.0.0.1:9/score' })).id);
  ids.suite = String(
    (await created('/api/suites', { name: 'suite', agent_id: 'agent-1', cases: [{ name: 'c', input: 'q' }], defaultScorers: ['contains'] })).id,
  );
  ids.prompt = String((await created('/api/prompts', { name: 'prompt-1', type: 'text', template: 'hello', labels: ['production'] })).name);
  ids.run = String(
    (await created('/api/runs', { execution: 'local', agentId: 'agent-1', dataset: { items: [{ input: 'q' }] }, scorers: ['contains'] })).run_id,
  );
  ids.comparison = String((await created('/api/feedback/comparisons', { prompt: 'p', output_a: 'a', output_b: 'b' })).id);
  ids.feedback = String((await created('/api/feedback', { type: 'rating', trace_id: ids.trace, value: 1 })).id);
  const queue = await created('/api/queues', { name: 'review', trace_ids: [ids.trace] });
  ids.queue = String(queue.id);
  const items = (await (await svc.api(`/api/queues/${ids.queue}/items`, { project: PROJECT })).json()) as { items: Array<{ id: string }> };
  ids.item = items.items[0].id;
  ids.alert = String((await created('/api/alerts/rules', { name: 'errors', metric: 'error_rate', threshold: 0.5, operator: 'gt', severity: 'info' })).id);
  ids.deletion = String((await created('/api/deletions', { user_id: 'hostile-ids-nobody' }, 202)).id);
  ids.export = String((await created('/api/exports', { kind: 'spans', format: 'jsonl', limit: 10 }, 202)).id);
  ids.onlineRule = String((await created('/api/evals/online-rules', { name: 'online', scorers: ['contains'], expected: { outputContains: ['x'] } })).id);
});

afterAll(async () => {
  await svc?.stop();
});

describe('the routes, read off the router', () => {
  it('are all of the API, with their path parameters', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(ROUTES.length).toBeGreaterThan(90);
    for (const key of [
      'POST /api/traces/ingest',
      'GET /api/traces/:traceId',
      'GET /api/runs',
      'GET /api/queues/:id/items/:itemId',
      'DELETE /api/projects/:id/keys/:keyId',
      'GET /api/judges/:name/calibration',
      'PATCH /api/evals/online-rules/:id',
      'GET /api/sessions/:sessionId',
    ]) {
      expect(keys).toContain(key);
    }
    // Every parameter has a real value to stand beside a hostile one.
    for (const r of ROUTES) for (const p of r.params) expect(() => normalParam(r, p), `${r.method} ${r.path}`).not.toThrow();
  });
});

describe('hostile ids and bodies on every route', () => {
  it('refuses a control character in any path parameter with a 4xx and the SPEC body', async () => {
    const failures: string[] = [];
    for (const route of ROUTES.filter((r) => r.params.length > 0 && r.params.some((p) => p !== 'index'))) {
      for (const param of route.params.filter((p) => p !== 'index')) {
        for (const c of HOSTILE) {
          const path = pathOf(route, { param, value: `${normalParam(route, param)}${c}` });
          const body = hasBody(route) ? JSON.stringify(bodyOf(route, undefined)?.body ?? {}) : undefined;
          const answer = await send(route.method, path, body);
          const why = notASpecRefusal(answer);
          if (why) failures.push(`${route.method} ${path}: ${why}: ${answer.text.slice(0, 200)}`);
          else if (answer.status !== 404) expect(answer.body.error, path).toMatch(/control characters/);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a control character in any query value with a 422 naming the parameter', async () => {
    const failures: string[] = [];
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      for (const [i, name] of QUERY_NAMES.entries()) {
        const c = HOSTILE[i % HOSTILE.length];
        const path = `${pathOf(route)}?${name}=${encodeURIComponent(`a${c}b`)}`;
        const answer = await send('GET', path);
        const why = notASpecRefusal(answer);
        if (why) failures.push(`GET ${path}: ${why}: ${answer.text.slice(0, 200)}`);
        else if (
          answer.status !== 422 ||
          JSON.stringify(answer.body.details) !==
            JSON.stringify([{ field: name, message: 'must not contain control characters (U+0000-U+001F, U+007F-U+009F)' }])
        ) {
          failures.push(`GET ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a control character in any id of a body, and answers every write route a 4xx for ids it does not know', async () => {
    const failures: string[] = [];
    const known: string[] = [];
    for (const route of ROUTES.filter(hasBody)) {
      for (const c of HOSTILE) {
        const spec = bodyOf(route, c);
        const answer = await send(
          route.method,
          pathOf(route),
          JSON.stringify(spec?.body ?? genericBody(c)),
          route.method === 'POST' && route.path === '/api/projects',
        );
        // A route that takes no id in its body may ignore unknown fields (a 2xx); it must never fail (5xx).
        if (!spec && answer.status < 400) continue;
        const why = notASpecRefusal(answer);
        if (why) {
          failures.push(`${route.method} ${route.path} ${show(c)}: ${why}: ${answer.text.slice(0, 200)}`);
          continue;
        }
        if (spec && answer.status === 422) {
          // The refusal names the hostile id, not some other field.
          const fields = (answer.body.details as Array<{ field: string }>).map((d) => d.field);
          if (
            !spec.idPaths.some((p) => fields.some((f) => f === p || f.startsWith(`${p}.`) || (route.path === '/api/traces/ingest' && f.startsWith('spans'))))
          ) {
            failures.push(`${route.method} ${route.path} ${show(c)}: 422 names ${fields.join(', ')}, not ${spec.idPaths.join(', ')}`);
          }
        }
      }
      if (bodyOf(route, undefined)) known.push(`${route.method} ${route.path}`);
    }
    expect(failures).toEqual([]);
    expect(known.length).toBeGreaterThan(25);
  });

  it('refuses a 5,000-deep JSON body on every write route with 400, before any route reads it', async () => {
    const failures: string[] = [];
    // The sign-in routes are outside the API's body reader: they read at most 4 KiB (413 past it), and sign-out reads none.
    for (const route of ROUTES.filter((r) => hasBody(r) && !r.path.startsWith('/api/auth/'))) {
      for (const body of [deepBody(5000), `${'['.repeat(5000)}${']'.repeat(5000)}`]) {
        const answer = await send(route.method, pathOf(route), body);
        if (notASpecRefusal(answer) || answer.status !== 400 || answer.body.error !== 'Request body is nested more than 128 levels deep') {
          failures.push(`${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('still answers a prompt whose config nests deep but within the bounds: a 422 naming the field past 64 levels', async () => {
    const answer = await send('POST', '/api/prompts', deepBody(100));
    expect(answer.status, answer.text).toBe(422);
    const details = answer.body.details as Array<{ field: string; message: string }>;
    expect(details.map((d) => d.message)).toEqual(['is nested more than 64 levels deep']);
    expect(details[0].field).toMatch(/^config\.a(\.a)+$/);
  });

  it('refuses NUL in other stored text with a 4xx naming the field (a project name)', async () => {
    const answer = await send('POST', '/api/projects', JSON.stringify({ id: 'hostile-nul', name: 'a\u0000b' }), true);
    expect(notASpecRefusal(answer), answer.text).toBeNull();
    expect(answer.body.details).toEqual([{ field: 'name', message: 'must not contain the NUL character (U+0000)' }]);
  });
});

describe('the last guard', () => {
  it('answers a value PostgreSQL itself refuses with 400, never 500, should one get past validation', async () => {
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      const refusals: unknown[] = [];
      for (const lookup of [() => metadata.agents.resolve(PROJECT, 'x\u0000y'), () => metadata.scorers.resolve(PROJECT, 's\u0000')]) {
        refusals.push(
          await lookup().then(
            () => undefined,
            (err: unknown) => err,
          ),
        );
      }
      for (const err of refusals) {
        expect(err, 'PostgreSQL refused the NUL').toBeDefined();
        const answer = classifyStoreError('metadata', 'fetch agent', err);
        expect(answer.status).toBe(400);
        expect(answer.code).toBe('UNSTORABLE_VALUE');
        expect(answer.message).toMatch(/^The request holds a value the metadata store cannot take: /);
      }
    } finally {
      await metadata.close();
    }
  });
});

describe('after the hostile requests', () => {
  it('answers every read route normally', async () => {
    const failures: string[] = [];
    // The queries some reads require.
    const required: Record<string, string> = { '/api/scores': `?trace_id=${ids.trace}`, '/api/analytics/correlation': '?score_name=accuracy' };
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      const answer = await send('GET', `${pathOf(route)}${required[route.path] ?? ''}`);
      // Run status and approvals ask the workflow engine, which this service has none of (503).
      const engine = /^\/api\/runs\/:id\/(status|approvals)$/.test(route.path) && answer.status === 503;
      // Sign-in with OpenID Connect is not configured here (404 saying so), and this project's admin is no server admin (403).
      const expected = (route.path.startsWith('/api/auth/oidc/') && answer.status === 404) || (route.path === '/api/admin/projects' && answer.status === 403);
      if (answer.status !== 200 && !engine && !expected) failures.push(`GET ${route.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });

  it('serves the resources the hostile requests named: trace, agent, queue, runs, rules, prompt', async () => {
    const ok = async (path: string) => {
      const answer = await send('GET', path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      return answer.body;
    };
    expect(await ok(`/api/traces/${ids.trace}`)).toMatchObject({ trace_id: ids.trace });
    expect(await ok(`/api/agents/${ids.agent}`)).toMatchObject({ name: 'agent-1' });
    expect(await ok(`/api/queues/${ids.queue}`)).toMatchObject({ id: ids.queue, counts: { total: 1 } });
    expect(((await ok('/api/runs')) as { runs: Array<{ run_id: string }> }).runs.map((r) => r.run_id)).toContain(ids.run);
    expect(((await ok('/api/evals/online-rules')) as { rules: Array<{ id: string }> }).rules.map((r) => r.id)).toContain(ids.onlineRule);
    expect(await ok(`/api/prompts/${ids.prompt}`)).toMatchObject({ name: 'prompt-1' });
    // No hostile id reached a store: nothing was created under one.
    const traces = ((await ok('/api/traces?limit=1000')) as { traces: Array<{ trace_id: string }> }).traces.map((t) => t.trace_id);
    expect(traces.filter((t) => /[\u0000-\u001f\u007f-\u009f]/.test(t))).toEqual([]);
    const agents = ((await ok('/api/agents')) as { agents: Array<{ name: string }> }).agents.map((a) => a.name);
    expect(agents.filter((t) => /[\u0000-\u001f\u007f-\u009f]/.test(t))).toEqual([]);
  });

  it('takes normal writes on the routes that refused hostile ones', async () => {
    const failures: string[] = [];
    for (const route of ROUTES.filter(hasBody)) {
      const spec = bodyOf(route, undefined);
      if (!spec) continue;
      const answer = await send(route.method, pathOf(route), JSON.stringify(spec.body));
      // Managed runs need the workflow engine, which this service has none of.
      const engine = answer.status === 503 && (route.path === '/api/runs' || route.path === '/api/evals/runs');
      if (answer.status >= 500 && !engine) failures.push(`${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect((await send('POST', '/api/traces/ingest', JSON.stringify(sampleTrace('after-hostile')))).status).toBe(201);
    expect((await send('GET', '/api/traces/after-hostile')).status).toBe(200);
  });
});
