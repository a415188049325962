import { describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type { PromptLabels, PromptList, PromptTraceList, PromptVersion, PromptVersionList, RenderedPrompt } from '../../core/model/prompt.js';
import { sampleTrace } from '../helpers/server.js';
import { useTestApi, type ErrorBody } from '../helpers/test-service-hooks.js';

type Rendered = RenderedPrompt & { id: string; name: string; version: number };
type Traces = PromptTraceList & { id: string; name: string; version: number | null };

const OTHER = 'other-project';
const MAX_BODY_BYTES = 1024 * 1024;

// The API role alone: prompts need no workflow engine.
const svc = useTestApi({ MAX_BODY_BYTES: String(MAX_BODY_BYTES) });

function post(path: string, body: unknown, project?: string) {
  return svc.api(path, { method: 'POST', json: body, project });
}

function put(ref: string, body: unknown, project?: string) {
  return svc.api(`/api/prompts/${encodeURIComponent(ref)}`, { method: 'PUT', json: body, project });
}

/** POST with a body sent as written, for JSON that JSON.stringify would not produce. */
function postRaw(path: string, text: string) {
  return svc.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text.slice(0, 2000)).toBe(status);
  return JSON.parse(text) as T;
}

async function create(body: Record<string, unknown>): Promise<PromptVersion> {
  return json<PromptVersion>(await post('/api/prompts', body), 201);
}

async function getPrompt(ref: string, query = '', project?: string): Promise<PromptVersion> {
  return json<PromptVersion>(await svc.api(`/api/prompts/${encodeURIComponent(ref)}${query}`, { project }), 200);
}

async function setLabels(ref: string, body: unknown, project?: string) {
  return post(`/api/prompts/${encodeURIComponent(ref)}/labels`, body, project);
}

async function expectError(res: Response, status: number, error: string, code?: string) {
  const body = await json<ErrorBody>(res, status);
  expect(body.error).toBe(error);
  if (code) expect(body.code).toBe(code);
}

async function issues(res: Response): Promise<FieldIssue[]> {
  const body = await json<ErrorBody>(res, 422);
  expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
  return body.details as FieldIssue[];
}

const text = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'text', template: 'Hello {{name}}, welcome to {{ place }}!', ...extra });
const chat = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'chat',
  messages: [
    { role: 'system', content: 'You are a {{tone}} assistant.' },
    { role: 'user', content: '{{question}}' },
  ],
  ...extra,
});

describe('POST /api/prompts: the SPEC 400 messages', () => {
  it.each([
    ['no body', undefined, 'name is required'],
    ['no name', { type: 'text', template: 't' }, 'name is required'],
    ['a blank name', { name: '   ', type: 'text', template: 't' }, 'name is required'],
    ['a null name', { name: null, type: 'text', template: 't' }, 'name is required'],
    ['no type', { name: 'p', template: 't' }, 'type must be "text" or "chat"'],
    ['an unknown type', { name: 'p', type: 'completion', template: 't' }, 'type must be "text" or "chat"'],
    ['a type of the wrong case', { name: 'p', type: 'Text', template: 't' }, 'type must be "text" or "chat"'],
    ['a text prompt without template', { name: 'p', type: 'text' }, 'template is required for text prompts'],
    ['a text prompt with an empty template', { name: 'p', type: 'text', template: '' }, 'template is required for text prompts'],
    ['a chat prompt without messages', { name: 'p', type: 'chat' }, 'messages are required for chat prompts'],
    ['a chat prompt with no messages', { name: 'p', type: 'chat', messages: [] }, 'messages are required for chat prompts'],
  ])('%s -> 400 %s', async (_case, body, message) => {
    const res = await post('/api/prompts', body);
    const got = await json<ErrorBody>(res, 400);
    expect(got).toMatchObject({ error: message, status: 400 });
  });
});

describe('creating and reading prompts', () => {
  it('creates a text prompt as version 1 and reads it by id and by name', async () => {
    const created = await create(text('greeting', { description: 'Greets a user', config: { model: 'gpt-4o', temperature: 0.2 }, commit_message: 'first' }));
    expect(created).toMatchObject({
      name: 'greeting',
      type: 'text',
      version: 1,
      latest_version: 1,
      labels: [],
      template: 'Hello {{name}}, welcome to {{ place }}!',
      messages: null,
      config: { model: 'gpt-4o', temperature: 0.2 },
      description: 'Greets a user',
      commit_message: 'first',
      variables: ['name', 'place'],
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getPrompt(created.id)).toEqual(created);
    expect(await getPrompt('greeting')).toEqual(created);
  });

  it('creates a chat prompt with its messages', async () => {
    const created = await create(chat('support-chat'));
    expect(created).toMatchObject({ type: 'chat', template: null, variables: ['tone', 'question'], version: 1 });
    expect(created.messages).toEqual([
      { role: 'system', content: 'You are a {{tone}} assistant.' },
      { role: 'user', content: '{{question}}' },
    ]);
  });

  it('finds names with spaces, slashes and non-ASCII through the encoded path', async () => {
    const created = await create(text('team/onboarding mail ✉'));
    expect((await getPrompt('team/onboarding mail ✉')).id).toBe(created.id);
  });

  it('refuses a second prompt with a taken name (409) and a name shaped like an id (422)', async () => {
    await create(text('taken'));
    await expectError(await post('/api/prompts', text('taken')), 409, "A prompt named 'taken' already exists in this project", 'PROMPT_NAME_TAKEN');
    expect((await issues(await post('/api/prompts', text('0d9f3c1e-6a47-4c1b-9a55-3f0e8f7c2b11')))).map((i) => i.field)).toEqual(['name']);
  });

  it('lists prompts newest first with their labels, filtered by name and label, paged', async () => {
    await create(text('list-alpha', { labels: ['production'] }));
    await create(text('list-beta'));
    await create(text('list-gamma', { labels: ['staging'] }));
    const all = await json<PromptList>(await svc.api('/api/prompts?name=LIST-&limit=2'), 200);
    expect(all.total).toBe(3);
    expect(all.prompts.map((p) => p.name)).toEqual(['list-gamma', 'list-beta']);
    expect(all.prompts[0]).toMatchObject({ type: 'text', latest_version: 1, labels: { staging: 1 } });
    const next = await json<PromptList>(await svc.api('/api/prompts?name=list-&limit=2&offset=2'), 200);
    expect(next.prompts.map((p) => p.name)).toEqual(['list-alpha']);
    const labelled = await json<PromptList>(await svc.api('/api/prompts?name=list-&label=production'), 200);
    expect(labelled.prompts.map((p) => p.name)).toEqual(['list-alpha']);
    expect((await issues(await svc.api('/api/prompts?limit=0'))).map((i) => i.field)).toEqual(['limit']);
  });
});

describe('versions', () => {
  it('PUT writes version 2 and version 1 stays readable as it was', async () => {
    const v1 = await create(text('versioned', { config: { temperature: 0 } }));
    const v2 = await json<PromptVersion>(await put('versioned', { template: 'Hi {{name}}', commit_message: 'shorter' }), 200);
    expect(v2).toMatchObject({
      id: v1.id,
      name: 'versioned',
      version: 2,
      latest_version: 2,
      template: 'Hi {{name}}',
      config: null,
      commit_message: 'shorter',
      variables: ['name'],
    });

    expect(await getPrompt(v1.id)).toEqual(v2);
    const old = await getPrompt('versioned', '?version=1');
    expect(old).toMatchObject({ version: 1, latest_version: 2, template: v1.template, config: { temperature: 0 } });
    expect(old.version_created_at).toBe(v1.version_created_at);

    const list = await json<PromptVersionList>(await svc.api('/api/prompts/versioned/versions'), 200);
    expect(list).toMatchObject({ id: v1.id, name: 'versioned', total: 2 });
    expect(list.versions.map((v) => [v.version, v.commit_message])).toEqual([
      [2, 'shorter'],
      [1, null],
    ]);
    await expectError(await svc.api('/api/prompts/versioned?version=3'), 404, 'Prompt "versioned" has no version 3', 'PROMPT_VERSION_NOT_FOUND');
  });

  it('PUT keeps the name and the type: the SPEC 400s for the content, 422 for a change', async () => {
    await create(chat('fixed-chat'));
    await expectError(await put('fixed-chat', {}), 400, 'messages are required for chat prompts');
    await expectError(await put('fixed-chat', { type: 'voice' }), 400, 'type must be "text" or "chat"');
    expect((await issues(await put('fixed-chat', { type: 'text', template: 'x' }))).map((i) => i.field)).toContain('type');
    expect((await issues(await put('fixed-chat', { name: 'renamed', messages: [{ role: 'user', content: 'x' }] }))).map((i) => i.field)).toEqual(['name']);
    expect((await getPrompt('fixed-chat')).latest_version).toBe(1);
  });

  it('concurrent PUTs each get their own version number', async () => {
    const p = await create(text('busy'));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => put(p.id, { template: `v${i}` }).then((r) => json<PromptVersion>(r, 200))));
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    expect((await getPrompt(p.id)).latest_version).toBe(13);
  });
});

describe('labels', () => {
  it('moves with PUT, is read with ?label=, and moves back with POST /labels', async () => {
    const v1 = await create(text('labelled', { labels: ['production', 'staging'] }));
    expect(v1.labels).toEqual(['production', 'staging']);

    const v2 = await json<PromptVersion>(await put('labelled', { template: 'v2 {{x}}', labels: ['production'] }), 200);
    expect(v2.labels).toEqual(['production']);
    expect((await getPrompt('labelled', '?label=production')).version).toBe(2);
    expect((await getPrompt('labelled', '?label=staging')).version).toBe(1);
    expect((await getPrompt('labelled', '?label=latest')).version).toBe(2);

    const moved = await json<PromptLabels>(await setLabels('labelled', { label: 'production', version: 1 }), 200);
    expect(moved).toEqual({ id: v1.id, name: 'labelled', latest_version: 2, labels: { production: 1, staging: 1 } });
    expect((await getPrompt('labelled', '?label=production')).template).toBe(v1.template);
    const versions = await json<PromptVersionList>(await svc.api('/api/prompts/labelled/versions'), 200);
    expect(versions.versions.map((v) => [v.version, v.labels])).toEqual([
      [2, []],
      [1, ['production', 'staging']],
    ]);

    const removed = await json<PromptLabels>(await svc.api('/api/prompts/labelled/labels/staging', { method: 'DELETE' }), 200);
    expect(removed.labels).toEqual({ production: 1 });
    await expectError(await svc.api('/api/prompts/labelled?label=staging'), 404, 'Prompt "labelled" has no label "staging"', 'PROMPT_LABEL_NOT_FOUND');
  });

  it('refuses bad labels, unknown versions and `latest`', async () => {
    await create(text('label-rules'));
    expect((await issues(await setLabels('label-rules', { label: 'Prod!', version: 1 }))).map((i) => i.field)).toEqual(['label']);
    expect((await issues(await setLabels('label-rules', { label: 'latest', version: 1 }))).map((i) => i.field)).toEqual(['label']);
    expect((await issues(await setLabels('label-rules', { label: 'ok', version: '1' }))).map((i) => i.field)).toEqual(['version']);
    expect((await issues(await setLabels('label-rules', { version: 1 }))).map((i) => i.field)).toEqual(['label']);
    await expectError(await setLabels('label-rules', { label: 'ok', version: 2 }), 404, 'Prompt "label-rules" has no version 2', 'PROMPT_VERSION_NOT_FOUND');
    expect((await issues(await svc.api('/api/prompts/label-rules?version=1&label=ok'))).map((i) => i.field)).toEqual(['label']);
  });

  it('concurrent moves of a label pair leave both labels on one version, and every read agrees', async () => {
    const p = await create(text('contended'));
    for (let i = 2; i <= 4; i++) await json(await put(p.id, { template: `v${i}` }), 200);
    const targets = Array.from({ length: 40 }, (_, i) => (i % 4) + 1);
    const answers = await Promise.all(
      targets.map((version) => setLabels(p.id, { labels: ['production', 'staging'], version }).then((r) => json<PromptLabels>(r, 200))),
    );
    // Each answer is a state some serial order produced: the pair always together.
    for (const a of answers) expect(a.labels.production).toBe(a.labels.staging);

    const final = await json<PromptLabels>(
      await setLabels(p.id, { labels: ['production'], version: (await getPrompt(p.id, '?label=production')).version }),
      200,
    );
    expect(final.labels.production).toBe(final.labels.staging);
    const byLabel = await getPrompt(p.id, '?label=production');
    expect(byLabel.labels).toEqual(['production', 'staging']);
    const versions = await json<PromptVersionList>(await svc.api(`/api/prompts/${p.id}/versions`), 200);
    expect(versions.versions.filter((v) => v.labels.includes('production')).map((v) => v.version)).toEqual([byLabel.version]);
    expect(versions.versions.filter((v) => v.labels.includes('staging')).map((v) => v.version)).toEqual([byLabel.version]);
  });

  it('moves labels atomically with concurrent PUTs: each label ends on exactly one existing version', async () => {
    const p = await create(text('race', { labels: ['production'] }));
    await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => put(p.id, { template: `put ${i}`, labels: ['production'] }).then((r) => json(r, 200))),
      ...Array.from({ length: 8 }, () => setLabels(p.id, { label: 'production', version: 1 }).then((r) => json(r, 200))),
    ]);
    const versions = await json<PromptVersionList>(await svc.api(`/api/prompts/${p.id}/versions`), 200);
    expect(versions.total).toBe(9);
    expect(versions.versions.filter((v) => v.labels.includes('production'))).toHaveLength(1);
  });
});

describe('POST /api/prompts/{id}/render', () => {
  it('renders a text prompt, reporting missing variables and leaving them as written', async () => {
    await create(text('render-text'));
    const out = await json<Rendered>(await post('/api/prompts/render-text/render', { variables: { name: 'Ada', unused: 1 } }), 200);
    expect(out).toMatchObject({
      name: 'render-text',
      version: 1,
      type: 'text',
      text: 'Hello Ada, welcome to {{ place }}!',
      messages: null,
      used: ['name'],
      missing: ['place'],
      unused: ['unused'],
    });
  });

  it('renders a chat prompt at a label', async () => {
    await create(chat('render-chat', { labels: ['production'] }));
    await json(await put('render-chat', { messages: [{ role: 'user', content: 'v2 {{question}}' }] }), 200);
    const out = await json<Rendered>(
      await post('/api/prompts/render-chat/render', { label: 'production', variables: { tone: 'calm', question: 'Why?' } }),
      200,
    );
    expect(out).toMatchObject({
      version: 1,
      type: 'chat',
      text: null,
      messages: [
        { role: 'system', content: 'You are a calm assistant.' },
        { role: 'user', content: 'Why?' },
      ],
      missing: [],
    });
    expect((await json<Rendered>(await post('/api/prompts/render-chat/render', { version: 2 }), 200)).missing).toEqual(['question']);
    expect((await json<Rendered>(await post('/api/prompts/render-chat/render', undefined), 200)).version).toBe(2);
  });

  it('takes __proto__ as a variable name and refuses values it cannot render', async () => {
    await create(text('render-proto', { template: '[{{__proto__}}] [{{constructor}}]' }));
    const out = await json<Rendered>(await postRaw('/api/prompts/render-proto/render', '{"variables": {"__proto__": "P"}}'), 200);
    expect(out).toMatchObject({ text: '[P] [{{constructor}}]', used: ['__proto__'], missing: ['constructor'] });
    expect((await issues(await post('/api/prompts/render-proto/render', { variables: { x: { nested: true }, y: null } }))).map((i) => i.field)).toEqual([
      'variables.x',
      'variables.y',
    ]);
    expect((await issues(await post('/api/prompts/render-proto/render', { variables: 'x' }))).map((i) => i.field)).toEqual(['variables']);
    expect((await issues(await post('/api/prompts/render-proto/render', { version: 1, label: 'production' }))).map((i) => i.field)).toEqual(['label']);
  });

  it('refuses output past the rendered bound with a 422, not a 500', async () => {
    await create(text('render-big', { template: '{{v}}'.repeat(200) }));
    const res = await post('/api/prompts/render-big/render', { variables: { v: 'x'.repeat(100_000) } });
    expect((await issues(res)).map((i) => i.field)).toEqual(['variables']);
  });
});

describe('404s', () => {
  it.each([
    ['GET', '/api/prompts/missing-one', undefined],
    ['PUT', '/api/prompts/missing-one', { template: 'x' }],
    ['GET', '/api/prompts/missing-one/versions', undefined],
    ['POST', '/api/prompts/missing-one/labels', { label: 'production', version: 1 }],
    ['DELETE', '/api/prompts/missing-one/labels/production', undefined],
    ['POST', '/api/prompts/missing-one/render', { variables: {} }],
    ['GET', '/api/prompts/missing-one/traces', undefined],
  ])('%s %s -> 404 Prompt "missing-one" not found', async (method, path, body) => {
    const res = await svc.api(path, { method, json: body });
    const got = await json<ErrorBody>(res, 404);
    expect(got).toMatchObject({ error: 'Prompt "missing-one" not found', message: 'Prompt "missing-one" not found', code: 'PROMPT_NOT_FOUND' });
  });

  it('answers 404 for an unknown id', async () => {
    await expectError(
      await svc.api('/api/prompts/00000000-0000-4000-8000-000000000000'),
      404,
      'Prompt "00000000-0000-4000-8000-000000000000" not found',
      'PROMPT_NOT_FOUND',
    );
  });
});

describe('projects are isolated', () => {
  it("another project cannot see, list, change, label or render this project's prompt", async () => {
    const mine = await create(text('private-prompt', { labels: ['production'] }));
    for (const ref of [mine.id, 'private-prompt']) {
      const e = encodeURIComponent(ref);
      await expectError(await svc.api(`/api/prompts/${e}`, { project: OTHER }), 404, `Prompt "${ref}" not found`);
      await expectError(await svc.api(`/api/prompts/${e}?label=production`, { project: OTHER }), 404, `Prompt "${ref}" not found`);
      await expectError(await svc.api(`/api/prompts/${e}/versions`, { project: OTHER }), 404, `Prompt "${ref}" not found`);
      await expectError(await put(ref, { template: 'hijacked' }, OTHER), 404, `Prompt "${ref}" not found`);
      await expectError(await setLabels(ref, { label: 'production', version: 1 }, OTHER), 404, `Prompt "${ref}" not found`);
      await expectError(await post(`/api/prompts/${e}/render`, {}, OTHER), 404, `Prompt "${ref}" not found`);
      await expectError(await svc.api(`/api/prompts/${e}/traces`, { project: OTHER }), 404, `Prompt "${ref}" not found`);
    }
    const list = await json<PromptList>(await svc.api('/api/prompts?name=private-prompt', { project: OTHER }), 200);
    expect(list).toMatchObject({ prompts: [], total: 0 });

    // The other project may use the same name for its own prompt; neither sees the other's.
    const theirs = await json<PromptVersion>(await post('/api/prompts', text('private-prompt', { template: 'theirs' }), OTHER), 201);
    expect(theirs.id).not.toBe(mine.id);
    expect((await getPrompt('private-prompt')).template).toBe(mine.template);
    expect((await getPrompt('private-prompt', '', OTHER)).template).toBe('theirs');
    expect(await getPrompt(mine.id)).toMatchObject({ version: 1, labels: ['production'] });
  });
});

describe('permissions', () => {
  it('a viewer key reads and renders (prompts:read) but cannot write (403 prompts:write)', async () => {
    await create(text('guarded'));
    const created = await json<{ key: string }>(
      await post(`/api/projects/${encodeURIComponent(svc.defaultProjectId)}/keys`, { name: 'prompt viewer', role: 'viewer' }),
      201,
    );
    const viewer = (path: string, init: { method?: string; json?: unknown } = {}) => svc.api(path, { ...init, key: created.key });

    expect((await viewer('/api/prompts/guarded')).status).toBe(200);
    expect((await viewer('/api/prompts?name=guarded')).status).toBe(200);
    expect((await viewer('/api/prompts/guarded/versions')).status).toBe(200);
    expect((await viewer('/api/prompts/guarded/traces')).status).toBe(200);
    expect((await viewer('/api/prompts/guarded/render', { method: 'POST', json: { variables: { name: 'x' } } })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/prompts', text('guarded-2')],
      ['PUT', '/api/prompts/guarded', { template: 'changed' }],
      ['POST', '/api/prompts/guarded/labels', { label: 'production', version: 1 }],
      ['DELETE', '/api/prompts/guarded/labels/production', undefined],
    ] as const) {
      const got = await json<ErrorBody>(await viewer(path, { method, json: body }), 403);
      expect(got).toMatchObject({ error: 'Forbidden', details: 'missing permission prompts:write' });
    }
    expect((await getPrompt('guarded')).latest_version).toBe(1);
  });
});

describe('hostile input gets a 4xx, never a 500', () => {
  const MB = 'x'.repeat(MAX_BODY_BYTES);

  it.each([
    ['a template past 100,000 characters', text('h1', { template: 'x'.repeat(100_001) }), 422],
    ['a huge name', text('n'.repeat(10_000)), 422],
    ['a body past the size limit', text('h2', { template: MB }), 413],
    ['a number as template', text('h3', { template: 42 }), 422],
    ['an object as name', { name: { first: 'x' }, type: 'text', template: 't' }, 422],
    ['messages as an object', chat('h4', { messages: { role: 'user', content: 'x' } }), 422],
    ['a message without role', chat('h5', { messages: [{ content: 'x' }] }), 422],
    ['a message with an extra key', chat('h6', { messages: [{ role: 'user', content: 'x', name: 'n' }] }), 422],
    ['too many messages', chat('h7', { messages: Array.from({ length: 201 }, () => ({ role: 'user', content: 'x' })) }), 422],
    ['labels as a string', text('h8', { labels: 'production' }), 422],
    ['too many labels', text('h9', { labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }), 422],
    ['config as an array', text('h10', { config: [1, 2] }), 422],
    ['a deep config', text('h11', { config: JSON.parse('{"a":'.repeat(100) + '1' + '}'.repeat(100)) as unknown }), 422],
    ['a NUL in the name', text('bad\u0000name'), 422],
    ['a NUL in the template', text('h12', { template: 'a\u0000b' }), 422],
    ['a lone surrogate in the template', text('h13', { template: 'a\ud800b' }), 422],
    ['a lone surrogate in a message', chat('h14', { messages: [{ role: 'user', content: '\udc00' }] }), 422],
    ['a lone surrogate in a config key', text('h15', { config: { '\ud800': 1 } }), 422],
    ['a newline in the name', text('two\nlines'), 422],
  ])('%s -> %i', async (_case, body, status) => {
    const res = await post('/api/prompts', body);
    expect(res.status, (await res.text()).slice(0, 500)).toBe(status);
  });

  it('refuses a top-level __proto__ key and keeps one inside config as plain data', async () => {
    const proto = await postRaw('/api/prompts', '{"name": "proto-top", "type": "text", "template": "t", "__proto__": {"admin": true}}');
    expect((await issues(proto)).map((i) => i.field)).toEqual(['(body)']);
    const res = await postRaw('/api/prompts', '{"name": "proto-config", "type": "text", "template": "t", "config": {"__proto__": {"admin": true}, "t": 1}}');
    const created = await json<PromptVersion>(res, 201);
    expect(JSON.stringify(created.config)).toBe('{"t":1,"__proto__":{"admin":true}}');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses lone surrogates and NULs sent as JSON escapes', async () => {
    expect((await issues(await postRaw('/api/prompts', '{"name": "esc", "type": "text", "template": "\\ud800"}'))).map((i) => i.field)).toEqual(['template']);
    expect((await issues(await postRaw('/api/prompts', '{"name": "esc\\u0000", "type": "text", "template": "t"}'))).map((i) => i.field)).toEqual(['name']);
  });

  it.each([['/api/prompts/%00'], ['/api/prompts/a%00b/versions'], ['/api/prompts/a%1Bb']])('GET %s -> 400: no id holds a control character', async (path) => {
    const res = await svc.api(path);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'Path parameters must not contain control characters (U+0000-U+001F, U+007F-U+009F)',
      code: 'CONTROL_CHARACTERS',
      status: 400,
    });
  });

  it.each([
    ['/api/prompts/%ED%A0%80'],
    ['/api/prompts/%F0%9F'],
    [`/api/prompts/${'n'.repeat(5000)}`],
    ['/api/prompts/__proto__'],
    ['/api/prompts/constructor/versions'],
  ])('GET %s -> 404', async (path) => {
    const res = await svc.api(path);
    expect(res.status, await res.text()).toBe(404);
  });

  it.each([['?version=abc'], ['?version=0'], ['?version=1.5'], ['?version=99999999999'], ['?version=1&version=2'], ['?label=Not%20A%20Label'], ['?label=%00']])(
    'GET /api/prompts/{id}%s -> 422',
    async (query) => {
      await create(text(`query-${query.replace(/\W/g, '')}`));
      const res = await svc.api(`/api/prompts/query-${query.replace(/\W/g, '')}${query}`);
      expect(res.status, await res.text()).toBe(422);
    },
  );

  it('answers list filters it cannot use with 422', async () => {
    expect((await svc.api('/api/prompts?name=%00')).status).toBe(422);
    expect((await svc.api('/api/prompts?limit=100000')).status).toBe(422);
    expect((await svc.api('/api/prompts?label=UPPER')).status).toBe(422);
  });
});

describe('GET /api/prompts/{id}/traces', () => {
  function traceWithPrompt(traceId: string, start: number, attributes: Record<string, unknown>) {
    const body = sampleTrace(traceId, { start, spanCount: 3 });
    const generation = body.spans.find((s) => s.type === 'generation')!;
    (generation as { attributes?: Record<string, unknown> }).attributes = { model: 'gpt-4o', input_tokens: 10, output_tokens: 20, ...attributes };
    return body;
  }

  async function ingest(body: unknown, project?: string) {
    await json(await post('/api/traces/ingest', body, project), 201);
  }

  it('lists the traces whose generation spans name the prompt, newest first, by version or label', async () => {
    await create(text('linked', { labels: ['production'] }));
    await json(await put('linked', { template: 'v2 {{name}}' }), 200);
    const now = Date.now();
    await ingest(traceWithPrompt('pt-ours-v1', now - 40_000, { 'agent_eval.prompt.name': 'linked', 'agent_eval.prompt.version': 1 }));
    await ingest(traceWithPrompt('pt-langfuse-v2', now - 30_000, { 'langfuse.observation.prompt.name': 'linked', 'langfuse.observation.prompt.version': 2 }));
    await ingest(traceWithPrompt('pt-short-v2', now - 20_000, { 'langfuse.prompt.name': 'linked', 'langfuse.prompt.version': '2' }));
    await ingest(traceWithPrompt('pt-no-version', now - 10_000, { 'agent_eval.prompt.name': 'linked' }));
    await ingest(traceWithPrompt('pt-other-prompt', now - 5_000, { 'agent_eval.prompt.name': 'greeting', 'agent_eval.prompt.version': 1 }));
    await ingest(traceWithPrompt('pt-other-project', now - 1_000, { 'agent_eval.prompt.name': 'linked', 'agent_eval.prompt.version': 1 }), OTHER);

    const all = await json<Traces>(await svc.api('/api/prompts/linked/traces'), 200);
    expect(all).toMatchObject({ name: 'linked', version: null, total: 4, limit: 50, offset: 0 });
    expect(all.traces.map((t) => [t.trace_id, t.versions, t.span_count])).toEqual([
      ['pt-no-version', [], 1],
      ['pt-short-v2', [2], 1],
      ['pt-langfuse-v2', [2], 1],
      ['pt-ours-v1', [1], 1],
    ]);
    expect(all.traces[3].start_time).toBe(new Date(now - 40_000 + 10).toISOString());

    const v2 = await json<Traces>(await svc.api('/api/prompts/linked/traces?version=2&limit=1'), 200);
    expect(v2).toMatchObject({ version: 2, total: 2 });
    expect(v2.traces.map((t) => t.trace_id)).toEqual(['pt-short-v2']);
    const page2 = await json<Traces>(await svc.api('/api/prompts/linked/traces?version=2&limit=1&offset=1'), 200);
    expect(page2.traces.map((t) => t.trace_id)).toEqual(['pt-langfuse-v2']);
    const past = await json<Traces>(await svc.api('/api/prompts/linked/traces?version=2&offset=5'), 200);
    expect(past).toMatchObject({ traces: [], total: 2 });

    const production = await json<Traces>(await svc.api('/api/prompts/linked/traces?label=production'), 200);
    expect(production).toMatchObject({ version: 1 });
    expect(production.traces.map((t) => t.trace_id)).toEqual(['pt-ours-v1']);

    await expectError(await svc.api('/api/prompts/linked/traces?version=9'), 404, 'Prompt "linked" has no version 9');
  });

  it('follows a re-sent span: dropping the prompt attributes unlinks its trace', async () => {
    await create(text('relinked'));
    const start = Date.now() - 60_000;
    await ingest(traceWithPrompt('pt-resent', start, { 'agent_eval.prompt.name': 'relinked', 'agent_eval.prompt.version': 1 }));
    expect((await json<Traces>(await svc.api('/api/prompts/relinked/traces'), 200)).total).toBe(1);
    await ingest(traceWithPrompt('pt-resent', start, {}));
    expect((await json<Traces>(await svc.api('/api/prompts/relinked/traces'), 200)).traces).toEqual([]);
  });
});
