import { describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type { Agent } from '../../core/model/agent.js';
import type { SuiteList, SuiteSummary, SuiteVersion, SuiteVersionInfo } from '../../core/model/suite.js';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { useTestApi, type ErrorBody } from '../helpers/test-service-hooks.js';

// The API role alone: suites need no workflow engine (its address is only dialled by runs).
const svc = useTestApi();

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

/** A small valid suite named `name`. */
function suite(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: 'Weather questions',
    defaultScorers: ['contains'],
    cases: [
      { name: 'paris', input: { query: 'Weather in Paris?' }, expected: { outputContains: ['Paris'] } },
      {
        name: 'tools',
        input: { query: 'Forecast for Rome' },
        expected: { toolCalls: ['get_forecast'] },
        scorers: ['toolSelection', { name: 'latency', config: { maxMs: 2000 } }],
      },
    ],
    ...extra,
  };
}

function post(body: unknown, project?: string) {
  return svc.api('/api/suites', { method: 'POST', json: body, project });
}

function put(id: string, body: unknown, project?: string) {
  return svc.api(`/api/suites/${id}`, { method: 'PUT', json: body, project });
}

function sendYaml(pathname: string, method: 'POST' | 'PUT', text: string, type = 'application/yaml') {
  return svc.api(pathname, { method, headers: { 'content-type': type }, body: text });
}

async function created(body: unknown): Promise<SuiteSummary> {
  const res = await post(body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as SuiteSummary;
}

async function getSuite(id: string, query = ''): Promise<SuiteVersion> {
  const res = await svc.api(`/api/suites/${id}${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as SuiteVersion;
}

async function issues(res: Response): Promise<FieldIssue[]> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as ErrorBody;
  expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
  return body.details as FieldIssue[];
}

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(((await res.json()) as ErrorBody).error).toBe(error);
}

describe('POST /api/suites and GET /api/suites/{id}', () => {
  it('creates version 1 and returns the whole definition with defaults filled', async () => {
    const summary = await created(suite('weather'));
    expect(summary).toMatchObject({ name: 'weather', description: 'Weather questions', version: 1, case_count: 2, agent_id: null });
    expect(summary.id).toMatch(/^[0-9a-f-]{36}$/);

    const got = await getSuite(summary.id);
    expect(got).toMatchObject({ id: summary.id, name: 'weather', version: 1, latest_version: 1, created_at: summary.created_at });
    expect(got.definition).toEqual({
      name: 'weather',
      description: 'Weather questions',
      defaultScorers: [{ name: 'contains', config: {} }],
      defaultMinScore: 0.7,
      aggregation: 'mean',
      cases: [
        { name: 'paris', input: { query: 'Weather in Paris?' }, expected: { outputContains: ['Paris'] }, weight: 1 },
        {
          name: 'tools',
          input: { query: 'Forecast for Rome' },
          expected: { toolCalls: ['get_forecast'] },
          scorers: [
            { name: 'toolSelection', config: {} },
            { name: 'latency', config: { maxMs: 2000 } },
          ],
          weight: 1,
        },
      ],
    });
  });

  it('answers the SPEC texts: name is required, Invalid suite ID format, Suite not found', async () => {
    for (const body of [{}, { cases: [] }, { name: '' }, { name: null }]) await expectError(await post(body), 400, 'name is required');
    await expectError(await svc.api('/api/suites', { method: 'POST' }), 400, 'name is required');
    await expectError(await sendYaml('/api/suites', 'POST', 'description: no name\ncases: []\n'), 400, 'name is required');
    await expectError(await sendYaml('/api/suites', 'POST', ''), 400, 'name is required');

    for (const bad of ['not-a-uuid', '123', `${NO_SUCH_ID}x`, 'weather']) {
      await expectError(await svc.api(`/api/suites/${bad}`), 400, 'Invalid suite ID format');
      await expectError(await svc.api(`/api/suites/${bad}/versions`), 400, 'Invalid suite ID format');
      await expectError(await put(bad, suite('x')), 400, 'Invalid suite ID format');
      await expectError(await svc.api(`/api/suites/${bad}`, { method: 'DELETE' }), 400, 'Invalid suite ID format');
    }

    const notFound = await svc.api(`/api/suites/${NO_SUCH_ID}`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: 'Suite not found', message: 'Suite not found', code: 'SUITE_NOT_FOUND' });
    await expectError(await svc.api(`/api/suites/${NO_SUCH_ID}/versions`), 404, 'Suite not found');
    await expectError(await put(NO_SUCH_ID, suite('x')), 404, 'Suite not found');
    await expectError(await svc.api(`/api/suites/${NO_SUCH_ID}`, { method: 'DELETE' }), 404, 'Suite not found');
  });

  it('names the field of every problem with 422 details', async () => {
    const dup = await issues(
      await post(
        suite('dup', {
          cases: [
            { name: 'a', input: 1 },
            { name: 'b', input: 2 },
            { name: 'a', input: 3 },
          ],
        }),
      ),
    );
    expect(dup).toEqual([{ field: 'cases[2].name', message: "case names must be unique in a suite: 'a' is also cases[0].name" }]);

    const unknown = await issues(await post(suite('unknown-scorer', { defaultScorers: ['contains', 'telepathy'] })));
    expect(unknown).toHaveLength(1);
    expect(unknown[0].field).toBe('defaultScorers[1]');
    expect(unknown[0].message).toMatch(/unknown scorer 'telepathy' \(known: .*exactMatch/);

    const config = await issues(
      await post(suite('bad-config', { cases: [{ name: 'a', input: 1, scorers: ['contains', { name: 'regex', config: { flags: 'gx' } }] }] })),
    );
    expect(config.map((i) => i.field)).toEqual(['cases[0].scorers[1]']);
    expect(config[0].message).toMatch(/regex.*flags/);

    const noScorer = await issues(await post({ name: 'no-scorer', cases: [{ name: 'a', input: 1 }] }));
    expect(noScorer).toEqual([{ field: 'cases[0].scorers', message: 'a case needs at least one scorer: list scorers here or in the suite defaultScorers' }]);

    const shapes = await issues(
      await post({
        name: 'shapes',
        defaultScorers: ['contains'],
        defaultMinScore: 1.5,
        aggregation: 'median',
        cases: [{ name: '', input: 1, minScore: -1 }, { input: 2 }, { name: 'x' }, 'not a case'],
      }),
    );
    expect(Object.fromEntries(shapes.map((i) => [i.field, i.message]))).toMatchObject({
      defaultMinScore: 'must be between 0 and 1',
      aggregation: 'must be one of: mean, min, max, weighted',
      'cases[0].minScore': 'must be between 0 and 1',
      'cases[1].name': 'is required',
      'cases[2].input': 'is required',
    });
    expect(shapes.some((i) => i.field === 'cases[3]')).toBe(true);

    expect(await issues(await post({ name: 'empty', defaultScorers: ['contains'], cases: [] }))).toEqual([
      { field: 'cases', message: 'a suite needs at least one case' },
    ]);
    expect((await issues(await post(suite('typo', { defaultScorer: ['contains'] }))))[0].message).toMatch(/defaultScorer/);
  });

  it('refuses a second live suite with the same name with 409', async () => {
    await created(suite('unique-name'));
    const res = await post(suite('unique-name'));
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: "A suite named 'unique-name' already exists in this project", code: 'SUITE_NAME_TAKEN' });
  });

  it('holds up to 10,000 cases', async () => {
    const cases = Array.from({ length: 10_000 }, (_, i) => ({ name: `case ${i}`, input: { n: i } }));
    const big = await created({ name: 'big', defaultScorers: ['exactMatch'], cases });
    expect(big.case_count).toBe(10_000);
    expect((await getSuite(big.id)).definition.cases[9_999].name).toBe('case 9999');
    const tooMany = await issues(await post({ name: 'too-big', defaultScorers: ['exactMatch'], cases: [...cases, { name: 'one more', input: 1 }] }));
    expect(tooMany[0].field).toBe('cases');
  });
});

describe('agents named by a suite', () => {
  it('resolves agent_id (an id or a name) to the agent id, and refuses an unknown agent', async () => {
    const res = await svc.api('/api/agents', { method: 'POST', json: { name: 'suite-agent', endpoint: 'https://agent.example.com' } });
    const agent = (await res.json()) as Agent;
    const byName = await created(suite('with-agent-name', { agent_id: 'suite-agent' }));
    expect(byName.agent_id).toBe(agent.id);
    expect((await getSuite(byName.id)).definition.agent_id).toBe(agent.id);
    const byId = await created(suite('with-agent-id', { agentId: agent.id }));
    expect(byId.agent_id).toBe(agent.id);
    expect(await issues(await post(suite('with-ghost', { agent: 'ghost-agent' })))).toEqual([
      { field: 'agent_id', message: 'no agent with this id or name in the project' },
    ]);
    // Renaming the agent does not break the suite: it holds the id.
    await svc.api(`/api/agents/${agent.id}`, { method: 'PUT', json: { name: 'renamed-agent', endpoint: 'https://agent.example.com' } });
    expect((await getSuite(byName.id)).definition.agent_id).toBe(agent.id);
  });
});

describe('YAML bodies', () => {
  const FILE = `name: yaml-suite
description: Weather questions
scorers: [contains]
minScore: 0.8
cases:
  - name: paris
    input: {query: "Weather in Paris?"}
    expected:
      outputContains: [Paris]
  - name: tools
    input: {query: Forecast for Rome}
    expected: {toolCalls: [get_forecast]}
    scorers:
      - toolSelection
      - name: latency
        config: {maxMs: 2000}
`;

  it('creates the same suite as the equivalent JSON body, for every YAML content type', async () => {
    const fromJson = await created(suite('yaml-suite', { defaultMinScore: 0.8 }));
    const jsonDef = (await getSuite(fromJson.id)).definition;
    expect((await svc.api(`/api/suites/${fromJson.id}`, { method: 'DELETE' })).status).toBe(204);

    for (const type of ['application/yaml', 'text/yaml', 'application/x-yaml; charset=utf-8']) {
      const res = await sendYaml('/api/suites', 'POST', FILE, type);
      expect(res.status, await res.clone().text()).toBe(201);
      const summary = (await res.json()) as SuiteSummary;
      expect(summary).toMatchObject({ name: 'yaml-suite', version: 1, case_count: 2 });
      expect((await getSuite(summary.id)).definition).toEqual(jsonDef);
      expect((await svc.api(`/api/suites/${summary.id}`, { method: 'DELETE' })).status).toBe(204);
    }
  });

  it('updates a suite from YAML, and never reads one format as the other', async () => {
    const { id } = await created(suite('yaml-update'));
    const res = await sendYaml(`/api/suites/${id}`, 'PUT', FILE.replace('name: yaml-suite', 'name: yaml-update'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, version: 2 });
    expect((await getSuite(id)).definition.defaultMinScore).toBe(0.8);

    // YAML text sent as JSON is malformed JSON; a YAML type is never parsed as JSON by the body reader.
    const asJson = await svc.api('/api/suites', { method: 'POST', headers: { 'content-type': 'application/json' }, body: FILE });
    await expectError(asJson, 400, 'Malformed JSON in request body');
    // Only the suite routes take YAML.
    const elsewhere = await sendYaml('/api/agents', 'POST', 'name: x\nendpoint: https://e.com\n');
    expect(elsewhere.status).toBe(415);
    const other = await svc.api('/api/suites', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: FILE });
    expect(other.status).toBe(415);
  });

  it('answers a syntax error with 400 naming the line and column', async () => {
    const res = await sendYaml('/api/suites', 'POST', 'name: broken\ncases:\n  - name: a\n   input: 1\n');
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.code).toBe('INVALID_SUITE_FILE');
    expect(body.error).toMatch(/^Invalid suite file: .* at line 4, column \d+/);
  });

  it('refuses a billion-laughs file, hostile nesting and a 10 MB file, and keeps serving', async () => {
    const laughs = ['name: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `l${i}: &${'a'.repeat(i + 1)} [${Array(10)
          .fill(`*${'a'.repeat(i)}`)
          .join(', ')}]`,
      );
    laughs.push('cases: [*aaaaaaaaa]');
    const bomb = await sendYaml('/api/suites', 'POST', laughs.join('\n'));
    expect(bomb.status).toBe(400);
    expect(((await bomb.json()) as ErrorBody).error).toMatch(/aliases expand more than 100 times/);

    const started = Date.now();
    const nesting = await sendYaml('/api/suites', 'POST', '{a: '.repeat(500_000));
    expect(nesting.status).toBe(400);
    expect(((await nesting.json()) as ErrorBody).error).toMatch(/nested more than 64 levels/);

    const tenMb = `name: huge\ncases:\n${'  - {name: c, input: &x [lol, lol, lol]}\n'.repeat(250_000)}`;
    expect(tenMb.length).toBeGreaterThan(10_000_000);
    const huge = await sendYaml('/api/suites', 'POST', tenMb).catch((err: unknown) => err);
    // Refused before it is read whole: 413 (or the connection closed mid-upload, which fetch reports as an error).
    if (huge instanceof Response) expect(huge.status).toBe(413);
    else expect(huge).toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await svc.api('/api/suites')).status).toBe(200);
  });
});

describe('versions', () => {
  it('makes a new immutable version on every PUT; ?version=N reads an old one', async () => {
    const { id, created_at } = await created(suite('versioned'));
    const v2 = await put(id, suite('versioned', { description: 'second' }));
    expect(v2.status).toBe(200);
    expect(await v2.json()).toMatchObject({ id, name: 'versioned', version: 2, description: 'second', created_at });
    // The same definition again is still a new version.
    expect(((await (await put(id, suite('versioned', { description: 'second' }))).json()) as SuiteSummary).version).toBe(3);

    const latest = await getSuite(id);
    expect(latest).toMatchObject({ version: 3, latest_version: 3 });
    expect(latest.definition.description).toBe('second');
    const first = await getSuite(id, '?version=1');
    expect(first).toMatchObject({ version: 1, latest_version: 3 });
    expect(first.definition.description).toBe('Weather questions');

    await expectError(await svc.api(`/api/suites/${id}?version=4`), 404, 'Suite not found');
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999']) expect((await svc.api(`/api/suites/${id}?version=${bad}`)).status).toBe(422);

    const versions = (await (await svc.api(`/api/suites/${id}/versions`)).json()) as { id: string; versions: SuiteVersionInfo[] };
    expect(versions.id).toBe(id);
    expect(versions.versions.map((v) => [v.version, v.case_count])).toEqual([
      [3, 2],
      [2, 2],
      [1, 2],
    ]);
    expect(Date.parse(versions.versions[0].created_at)).toBeGreaterThanOrEqual(Date.parse(versions.versions[2].created_at));
  });

  it('renames with a PUT, keeping old versions under their old name', async () => {
    const { id } = await created(suite('old-name'));
    const renamed = (await (await put(id, suite('new-name'))).json()) as SuiteSummary;
    expect(renamed).toMatchObject({ name: 'new-name', version: 2 });
    const first = await getSuite(id, '?version=1');
    expect(first.name).toBe('new-name');
    expect(first.definition.name).toBe('old-name');
    // The old name is free again, the new one is taken.
    await created(suite('old-name'));
    const clash = await put(id, suite('old-name'));
    expect(clash.status).toBe(409);
    expect((await getSuite(id)).latest_version).toBe(2);
  });

  it('gives concurrent PUTs distinct versions', async () => {
    const { id } = await created(suite('concurrent'));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => put(id, suite('concurrent', { description: `writer ${i}` }))));
    const versions = await Promise.all(results.map(async (r) => ((await r.json()) as SuiteSummary).version));
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    const list = (await (await svc.api(`/api/suites/${id}/versions`)).json()) as { versions: SuiteVersionInfo[] };
    expect(list.versions).toHaveLength(13);
  });
});

describe('DELETE /api/suites/{id}', () => {
  it('hides the suite and its versions from the API, frees the name, and keeps the versions for runs', async () => {
    const { id } = await created(suite('doomed'));
    await put(id, suite('doomed', { description: 'v2' }));
    expect((await svc.api(`/api/suites/${id}`, { method: 'DELETE' })).status).toBe(204);

    await expectError(await svc.api(`/api/suites/${id}`), 404, 'Suite not found');
    await expectError(await svc.api(`/api/suites/${id}?version=1`), 404, 'Suite not found');
    await expectError(await svc.api(`/api/suites/${id}/versions`), 404, 'Suite not found');
    await expectError(await put(id, suite('doomed')), 404, 'Suite not found');
    await expectError(await svc.api(`/api/suites/${id}`, { method: 'DELETE' }), 404, 'Suite not found');
    const list = (await (await svc.api('/api/suites?name=doomed')).json()) as SuiteList;
    expect(list.suites).toEqual([]);

    const again = await created(suite('doomed'));
    expect(again.id).not.toBe(id);
    expect(again.version).toBe(1);

    const metadata = openServiceMetadata(svc.dataDir);
    try {
      expect(await metadata.suites.get(svc.defaultProjectId, id)).toBeNull();
      const pinned = await metadata.suites.get(svc.defaultProjectId, id, 1, { includeDeleted: true });
      expect(pinned).toMatchObject({ id, version: 1, latest_version: 2 });
      expect(pinned?.definition.description).toBe('Weather questions');
      expect(await metadata.suites.getByName(svc.defaultProjectId, 'doomed')).toMatchObject({ id: again.id, version: 1 });
      expect(await metadata.suites.getByName(svc.defaultProjectId, 'doomed', 2)).toBeNull();
    } finally {
      await metadata.close();
    }
  });
});

describe('GET /api/suites', () => {
  it('lists a project newest first with summaries, paging and a name filter', async () => {
    const project = 'suites-listing';
    const ids: string[] = [];
    for (const name of ['Alpha checks', 'beta checks', 'gamma']) {
      const res = await post(suite(name), project);
      ids.push(((await res.json()) as SuiteSummary).id);
    }
    await put(ids[0], suite('Alpha checks', { description: 'v2', cases: [{ name: 'only', input: 1 }] }), project);

    const all = (await (await svc.api('/api/suites', { project })).json()) as SuiteList;
    expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.suites.map((s) => s.name)).toEqual(['gamma', 'beta checks', 'Alpha checks']);
    expect(all.suites[2]).toMatchObject({ id: ids[0], description: 'v2', version: 2, case_count: 1, agent_id: null });
    expect(Object.keys(all.suites[2]).sort()).toEqual(['agent_id', 'case_count', 'created_at', 'description', 'id', 'name', 'updated_at', 'version']);

    const page = (await (await svc.api('/api/suites?limit=1&offset=1', { project })).json()) as SuiteList;
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.suites.map((s) => s.name)).toEqual(['beta checks']);

    const filtered = (await (await svc.api('/api/suites?name=CHECKS', { project })).json()) as SuiteList;
    expect(filtered.total).toBe(2);
    expect(filtered.suites.map((s) => s.name)).toEqual(['beta checks', 'Alpha checks']);
    const percent = (await (await svc.api('/api/suites?name=%25', { project })).json()) as SuiteList;
    expect(percent.total).toBe(0);

    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'name=']) expect((await svc.api(`/api/suites?${q}`, { project })).status).toBe(422);
  });

  it('keeps projects apart', async () => {
    const { id } = await created(suite('private-suite'));
    const project = 'suites-intruder';
    const list = (await (await svc.api('/api/suites?name=private-suite', { project })).json()) as SuiteList;
    expect(list).toMatchObject({ suites: [], total: 0 });
    for (const path of [`/api/suites/${id}`, `/api/suites/${id}?version=1`, `/api/suites/${id}/versions`])
      await expectError(await svc.api(path, { project }), 404, 'Suite not found');
    await expectError(await put(id, suite('private-suite'), project), 404, 'Suite not found');
    await expectError(await svc.api(`/api/suites/${id}`, { method: 'DELETE', project }), 404, 'Suite not found');
    // The name is free in the other project, and the agent of another project cannot be named.
    expect((await post(suite('private-suite'), project)).status).toBe(201);
    await svc.api('/api/agents', { method: 'POST', json: { name: 'home-agent', endpoint: 'https://e.com' } });
    expect((await issues(await post(suite('borrowing', { agent_id: 'home-agent' }), project)))[0].field).toBe('agent_id');
    expect((await getSuite(id)).version).toBe(1);
  });
});

describe('hostile input', () => {
  it('answers odd strings and shapes with 4xx, never 5xx', async () => {
    const bodies: unknown[] = [
      suite('lone \ud800 surrogate'),
      suite('nul \u0000 name'),
      suite('x'.repeat(1_000_000)),
      suite('ok', { description: 'd'.repeat(100_000) }),
      suite('ok', { cases: [{ name: 'c\udc00', input: 1 }] }),
      suite('ok', { cases: [{ name: 'c', input: { text: 'bad \ud83d' } }] }),
      suite('ok', { cases: [{ name: 'c', input: { ['key\u0000']: 1 } }] }),
      suite('ok', { cases: [{ name: 'c', input: 'x', expected: { outputContains: ['\u0000'] } }] }),
      suite('ok', { defaultScorers: [{ name: 'contains', config: { ['\ud800']: 1 } }] }),
      suite('ok', { defaultScorers: 'contains' }),
      suite('ok', { cases: 'many' }),
      suite('ok', { name: ['array'] }),
      [1, 2, 3],
      'a string',
      42,
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBeLessThan(500);
    }
    const numbers = await svc.api('/api/suites', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "n", "defaultScorers": ["contains"], "cases": [{"name": "c", "input": 1e400}]}',
    });
    expect(await issues(numbers)).toEqual([{ field: 'cases[0].input', message: 'must be a finite number' }]);

    // Built as text: JSON.stringify itself would overflow the stack on this.
    const deep = `${'{"d":'.repeat(100_000)}"bottom"${'}'.repeat(100_000)}`;
    const deepBody = JSON.stringify(suite('deep', { cases: [{ name: 'c', input: '@DEEP@' }] })).replace('"@DEEP@"', deep);
    // Past the body's own bound (128 levels, api/middleware/json-body.ts) it is refused before any schema sees it.
    const nested = await svc.api('/api/suites', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deepBody });
    expect(nested.status).toBe(400);
    expect(await nested.json()).toEqual({ code: 'BODY_TOO_DEEP', error: 'Request body is nested more than 128 levels deep', status: 400 });
    // Within it, the suite's own bound on case values (64 levels) names the field.
    const deep100 = `${'{"d":'.repeat(100)}"bottom"${'}'.repeat(100)}`;
    const body100 = JSON.stringify(suite('deep', { cases: [{ name: 'c', input: '@DEEP@' }] })).replace('"@DEEP@"', deep100);
    const nested100 = await issues(await svc.api('/api/suites', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body100 }));
    expect(nested100[0].message).toMatch(/nested more than 64 levels/);

    const proto = await svc.api('/api/suites', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(suite('proto')).replace('{', '{"__proto__": {"name": "polluted"}, '),
    });
    expect((await issues(proto))[0].message).toMatch(/__proto__/);
    expect((await svc.api('/api/suites?name=polluted')).status).toBe(200);
  });

  it('answers 503 Database not available when the metadata store is down', async () => {
    const api = await startApiOnStores({ clickhouseUrl: 'http://127.0.0.1:9', postgresUrl: 'postgres://u:p@127.0.0.1:9/db', clickhouseTimeoutMs: 1_000 });
    try {
      const headers = { 'x-project-id': 'p', 'content-type': 'application/json' };
      const calls: Array<[string, RequestInit]> = [
        ['/api/suites', { method: 'POST', headers, body: JSON.stringify(suite('down')) }],
        ['/api/suites', { headers }],
        [`/api/suites/${NO_SUCH_ID}`, { headers }],
        [`/api/suites/${NO_SUCH_ID}`, { method: 'PUT', headers, body: JSON.stringify(suite('down')) }],
        [`/api/suites/${NO_SUCH_ID}`, { method: 'DELETE', headers }],
        ['/api/agents', { headers }],
      ];
      for (const [path, init] of calls) {
        const res = await fetch(`${api.base}${path}`, init);
        expect(res.status, `${init.method ?? 'GET'} ${path}`).toBe(503);
        const body = (await res.json()) as ErrorBody;
        expect(body.error).toBe('Database not available');
        expect(res.headers.get('retry-after')).toBe('5');
      }
    } finally {
      await api.close();
    }
  });

  it('answers a store failure that is not an outage with the SPEC 500 texts', async () => {
    const metadata = openServiceMetadata(svc.dataDir);
    const { id } = await created(suite('will-fail'));
    try {
      // A constraint no row meets: every version insert fails inside PostgreSQL.
      await metadata.pool.query('ALTER TABLE suite_versions ADD CONSTRAINT test_refuse_all CHECK (case_count < 0) NOT VALID');
      const create = await post(suite('never-stored'));
      expect(create.status).toBe(500);
      expect(await create.json()).toMatchObject({ error: 'Failed to create suite', status: 500, details: expect.stringMatching(/test_refuse_all/) as unknown });
      const update = await put(id, suite('will-fail'));
      expect(update.status).toBe(500);
      expect(((await update.json()) as ErrorBody).error).toBe('Failed to update suite');
    } finally {
      await metadata.pool.query('ALTER TABLE suite_versions DROP CONSTRAINT IF EXISTS test_refuse_all');
      await metadata.close();
    }
    expect((await getSuite(id)).version).toBe(1);
    expect((await post(suite('never-stored'))).status).toBe(201);
  });
});
