import { describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type { Feedback } from '../../core/model/feedback.js';
import type { ItemList, QueueItem, QueueList, ReviewQueue, SuiteCaseRef } from '../../core/model/queue.js';
import type { Score } from '../../core/model/score.js';
import type { SuiteSummary, SuiteVersion } from '../../core/model/suite.js';
import { apiCaller, useTestApi, type ErrorBody } from '../helpers/test-service-hooks.js';
import { oneSpanTrace } from '../helpers/server.js';

type CreatedQueue = ReviewQueue & { truncated: boolean };
type Completed = { item: QueueItem; feedback: Feedback | null; score_ids: string[] };

// The API role alone: queues need no workflow engine.
const svc = useTestApi();

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

const { call, ok } = apiCaller(svc);

async function createQueue(body: Record<string, unknown>, project?: string): Promise<CreatedQueue> {
  return ok<CreatedQueue>(await call('/api/queues', body, project), 201);
}

async function next(queueId: string, reviewer: string, extra = '', project?: string): Promise<QueueItem | null> {
  return (await ok<{ item: QueueItem | null }>(await call(`/api/queues/${queueId}/next?reviewer=${reviewer}${extra}`, undefined, project))).item;
}

async function expectError(res: Response, status: number, error: string | RegExp) {
  expect(res.status, await res.clone().text()).toBe(status);
  const body = (await res.json()) as ErrorBody;
  expect(body.error).toMatch(error);
  return body;
}

async function issues(res: Response): Promise<FieldIssue[]> {
  expect(res.status, await res.clone().text()).toBe(422);
  return ((await res.json()) as ErrorBody).details as FieldIssue[];
}

async function scoresOf(traceId: string, project?: string): Promise<Score[]> {
  return (await ok<{ scores: Score[] }>(await call(`/api/scores?trace_id=${encodeURIComponent(traceId)}`, undefined, project))).scores;
}

/** Ingests a trace whose root span has `input` and `output` (oneSpanTrace), into `project` when given. */
async function ingest(traceId: string, opts: Parameters<typeof oneSpanTrace>[1] & { project?: string } = {}) {
  await ok(await call('/api/traces/ingest', oneSpanTrace(traceId, opts), opts.project), 201);
}

describe('POST /api/queues', () => {
  it('creates a queue from explicit trace ids, with counts and items in order', async () => {
    const q = await createQueue({ name: 'explicit', description: 'hand-picked', score_names: ['accuracy'], trace_ids: ['ex-1', 'ex-2', 'ex-3', 'ex-2'] });
    expect(q).toMatchObject({
      name: 'explicit',
      description: 'hand-picked',
      lock_seconds: 600,
      filter: null,
      score_names: [{ name: 'accuracy', type: 'numeric', min: 0, max: 1, categories: null, description: null }],
      counts: { pending: 3, locked: 0, completed: 0, skipped: 0, total: 3 },
      truncated: false,
    });
    const items = await ok<ItemList>(await call(`/api/queues/${q.id}/items`));
    expect(items.items.map((i) => [i.trace_id, i.status])).toEqual([
      ['ex-1', 'pending'],
      ['ex-2', 'pending'],
      ['ex-3', 'pending'],
    ]);
    expect(await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).toMatchObject({ id: q.id, counts: { total: 3 } });

    const added = await ok<{ added: number; counts: ReviewQueue['counts'] }>(await call(`/api/queues/${q.id}/items`, { trace_ids: ['ex-3', 'ex-4'] }));
    expect(added).toMatchObject({ added: 1, counts: { pending: 4, total: 4 } });
    const list = await ok<QueueList>(await call('/api/queues'));
    expect(list.queues.find((x) => x.id === q.id)?.counts.total).toBe(4);
  });

  it('materializes a queue from a filter on name, status, attributes, time and a low score', async () => {
    const project = 'queues-filter';
    const now = Date.now();
    await ingest('f-1', { project, name: 'Checkout flow', status: 'error', attributes: { env: 'prod' }, startMs: now - 50_000 });
    await ingest('f-2', { project, name: 'checkout retry', status: 'error', attributes: { env: 'prod' }, startMs: now - 40_000 });
    await ingest('f-3', { project, name: 'checkout', status: 'ok', attributes: { env: 'prod' }, startMs: now - 30_000 });
    await ingest('f-4', { project, name: 'checkout', status: 'error', attributes: { env: 'dev' }, startMs: now - 20_000 });
    await ingest('f-5', { project, name: 'search', status: 'error', attributes: { env: 'prod' }, startMs: now - 10_000 });
    await ingest('f-old', { project, name: 'checkout', status: 'error', attributes: { env: 'prod' }, startMs: now - 10 * 86_400_000 });

    const q = await createQueue(
      {
        name: 'checkout errors',
        score_names: ['quality'],
        filter: { trace_name: 'checkout', status: 'error', attributes: { env: 'prod' }, since: new Date(now - 3_600_000).toISOString() },
      },
      project,
    );
    expect(q.filter).toMatchObject({ trace_name: 'checkout', status: 'error', attributes: { env: 'prod' } });
    const items = await ok<ItemList>(await call(`/api/queues/${q.id}/items`, undefined, project));
    // Newest first, as GET /api/traces lists them.
    expect(items.items.map((i) => i.trace_id)).toEqual(['f-2', 'f-1']);

    await ok(await call('/api/scores', { trace_id: 'f-3', name: 'quality', value: 0.2 }, project), 201);
    await ok(await call('/api/scores', { trace_id: 'f-5', name: 'quality', value: 0.9 }, project), 201);
    await ok(await call('/api/scores', { trace_id: 'f-4', name: 'other', value: 0.1 }, project), 201);
    const low = await createQueue({ name: 'low quality', filter: { score_below: { name: 'quality', value: 0.5 } } }, project);
    expect((await ok<ItemList>(await call(`/api/queues/${low.id}/items`, undefined, project))).items.map((i) => i.trace_id)).toEqual(['f-3']);

    const capped = await createQueue({ name: 'capped', filter: { trace_name: 'checkout' }, max_items: 2 }, project);
    expect(capped).toMatchObject({ truncated: true, counts: { total: 2 } });
    const none = await createQueue({ name: 'nothing', filter: { trace_name: 'no such name' } }, project);
    expect(none).toMatchObject({ truncated: false, counts: { total: 0 } });
    const more = await ok<{ added: number }>(await call(`/api/queues/${none.id}/items`, { filter: { trace_name: 'search' } }, project));
    expect(more.added).toBe(1);
  });

  it('answers name is required, 422 for malformed bodies and 409 for a taken name', async () => {
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: null, trace_ids: ['x'] }, [], 'q'])
      await expectError(await call('/api/queues', body), 400, 'name is required');
    expect((await issues(await call('/api/queues', { name: 'both', filter: {}, trace_ids: ['a'] }))).map((i) => i.field)).toEqual(['trace_ids']);
    expect((await issues(await call('/api/queues', { name: 'dup-score', score_names: ['a', { name: 'a' }] }))).map((i) => i.field)).toEqual(['score_names[1]']);
    expect((await issues(await call('/api/queues', { name: 'bad-range', score_names: [{ name: 'a', min: 5, max: 1 }] }))).map((i) => i.field)).toEqual([
      'score_names[0].max',
    ]);
    expect((await issues(await call('/api/queues', { name: 'no-cats', score_names: [{ name: 'a', type: 'categorical' }] }))).map((i) => i.field)).toEqual([
      'score_names[0].categories',
    ]);
    expect((await issues(await call('/api/queues', { name: 'bad-filter', filter: { status: 'broken' } }))).map((i) => i.field)).toEqual(['filter.status']);
    expect((await issues(await call('/api/queues', { name: 'bad-lock', lock_seconds: 0 }))).map((i) => i.field)).toEqual(['lock_seconds']);
    expect((await issues(await call('/api/queues', { name: 'typo', filters: {} })))[0].message).toMatch(/filters/);
    await createQueue({ name: 'taken' });
    const clash = await call('/api/queues', { name: 'taken' });
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as ErrorBody).code).toBe('QUEUE_NAME_TAKEN');
  });
});

describe('next, locks and skip', () => {
  it('never hands the same item to two concurrent next calls', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `conc-${i}`);
    const q = await createQueue({ name: 'concurrent', trace_ids: ids });
    const got = await Promise.all(Array.from({ length: 16 }, (_, i) => next(q.id, `reviewer-${i}`)));
    const handed = got.filter((i): i is QueueItem => i !== null);
    expect(handed).toHaveLength(12);
    expect(new Set(handed.map((i) => i.id)).size).toBe(12);
    expect(got.filter((i) => i === null)).toHaveLength(4);
    for (const item of handed) expect(item).toMatchObject({ status: 'locked', locked_by: expect.stringMatching(/^reviewer-/) as unknown });
    expect((await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).counts).toEqual({ pending: 0, locked: 12, completed: 0, skipped: 0, total: 12 });
    expect((await ok<ItemList>(await call(`/api/queues/${q.id}/items?status=locked`))).total).toBe(12);
  });

  it('locks for the requested time and hands an item out again once its lock expires', async () => {
    const q = await createQueue({ name: 'expiring', trace_ids: ['exp-1'], lock_seconds: 120 });
    const first = await next(q.id, 'alice', '&lock_seconds=1');
    expect(first).toMatchObject({ trace_id: 'exp-1', status: 'locked', locked_by: 'alice' });
    const lockedFor = Date.parse(first!.locked_until!) - Date.parse(first!.created_at);
    expect(lockedFor).toBeLessThan(5_000);
    expect(await next(q.id, 'bob')).toBeNull();
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).counts).toMatchObject({ pending: 1, locked: 0 });
    const again = await next(q.id, 'bob');
    expect(again).toMatchObject({ id: first!.id, locked_by: 'bob' });
    // The queue's own lock time applies without lock_seconds (POST form of next).
    const posted = await ok<{ item: QueueItem | null; lock_seconds: number }>(await call(`/api/queues/${q.id}/next`, { reviewer: 'carol' }));
    expect(posted).toMatchObject({ item: null, lock_seconds: 120 });
    expect(Date.parse(again!.locked_until!) - Date.now()).toBeGreaterThan(100_000);
    // Alice's lock expired: completing now would need Bob's lock.
    await expectError(
      await call(`/api/queues/${q.id}/items/${first!.id}/complete`, { reviewer: 'alice', correction: { corrected: 'x' } }),
      409,
      /locked by another reviewer/,
    );
  });

  it('skip releases the lock; the item goes behind pending ones and not back to who skipped it', async () => {
    const q = await createQueue({ name: 'skipping', trace_ids: ['sk-1', 'sk-2'] });
    const a = await next(q.id, 'alice');
    expect(a?.trace_id).toBe('sk-1');
    await expectError(await call(`/api/queues/${q.id}/items/${a!.id}/skip`, { reviewer: 'bob' }), 409, /locked by another reviewer/);
    const skipped = await ok<QueueItem>(await call(`/api/queues/${q.id}/items/${a!.id}/skip`, { reviewer: 'alice' }));
    expect(skipped).toMatchObject({ status: 'skipped', locked_by: null, locked_until: null, skipped_by: ['alice'] });
    expect((await ok<ItemList>(await call(`/api/queues/${q.id}/items?status=skipped`))).items.map((i) => i.id)).toEqual([a!.id]);
    expect((await next(q.id, 'alice'))?.trace_id).toBe('sk-2');
    expect(await next(q.id, 'alice')).toBeNull();
    expect((await next(q.id, 'bob'))?.trace_id).toBe('sk-1');
  });
});

describe('complete', () => {
  it('writes annotation scores (ranges and categories mapped to 0..1) and a correction feedback', async () => {
    const q = await createQueue({
      name: 'scoring',
      score_names: ['accuracy', { name: 'stars', min: 1, max: 5 }, { name: 'tone', categories: ['bad', 'ok', 'good'] }, { name: 'safe', type: 'boolean' }],
      trace_ids: ['sc-1'],
    });
    const item = (await next(q.id, 'alice'))!;
    await expectError(
      await call(`/api/queues/${q.id}/items/${item.id}/complete`, { reviewer: 'bob', scores: { accuracy: 1 } }),
      409,
      /locked by another reviewer/,
    );
    expect(
      (
        await issues(
          await call(`/api/queues/${q.id}/items/${item.id}/complete`, {
            reviewer: 'alice',
            scores: { accuracy: 2, stars: 9, tone: 'great', safe: 'yes', nope: 1 },
          }),
        )
      )
        .map((i) => i.field)
        .sort(),
    ).toEqual(['scores.accuracy', 'scores.nope', 'scores.safe', 'scores.stars', 'scores.tone'].sort());
    expect((await issues(await call(`/api/queues/${q.id}/items/${item.id}/complete`, { reviewer: 'alice' }))).map((i) => i.field)).toEqual(['scores']);

    const body = {
      reviewer: 'alice',
      scores: { accuracy: 0.75, stars: 4, tone: 'ok', safe: true },
      comment: 'decent',
      correction: { original: 'old', corrected: 'The better answer.' },
    };
    const done = await ok<Completed>(await call(`/api/queues/${q.id}/items/${item.id}/complete`, body));
    expect(done.item).toMatchObject({
      status: 'completed',
      completed_by: 'alice',
      scores: body.scores,
      comment: 'decent',
      correction: { original: 'old', corrected: 'The better answer.' },
      locked_by: null,
    });
    expect(done.feedback).toMatchObject({
      type: 'correction',
      trace_id: 'sc-1',
      user_id: 'alice',
      queue_item_id: item.id,
      correction: { original: 'old', corrected: 'The better answer.' },
    });
    expect(done.item.feedback_id).toBe(done.feedback!.id);

    const scores = await scoresOf('sc-1');
    const byName = Object.fromEntries(scores.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['accuracy', 'correction', 'safe', 'stars', 'tone']);
    for (const s of scores) expect(s.source).toBe('annotation');
    expect(byName.accuracy).toMatchObject({ value: 0.75, score_type: 'numeric', scorer_name: 'alice', reason: 'decent' });
    expect(byName.stars).toMatchObject({ value: 0.75, evidence: expect.arrayContaining(['raw:4']) as unknown });
    expect(byName.tone).toMatchObject({ value: 0.5, score_type: 'categorical', evidence: expect.arrayContaining(['category:ok']) as unknown });
    expect(byName.safe).toMatchObject({ value: 1, score_type: 'boolean' });
    expect(byName.correction).toMatchObject({ value: 0, reason: 'The better answer.' });
    expect(done.score_ids.sort()).toEqual(scores.map((s) => s.id).sort());

    // A retry is the same completion: no new scores; anything else is a conflict.
    const retry = await call(`/api/queues/${q.id}/items/${item.id}/complete`, body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await scoresOf('sc-1')).toHaveLength(5);
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}/complete`, { ...body, comment: 'changed my mind' }), 409, /already completed/);
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}/skip`, { reviewer: 'alice' }), 409, /already completed/);
    expect((await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).counts).toMatchObject({ completed: 1, pending: 0, locked: 0 });
    expect(await next(q.id, 'alice')).toBeNull();
    const feedback = await ok<{ feedback: Feedback[] }>(await call('/api/feedback?trace_id=sc-1&type=correction'));
    expect(feedback.feedback.map((f) => f.id)).toEqual([done.feedback!.id]);
  });
});

describe('to-suite', () => {
  it('appends the corrected output as a case of a new suite version', async () => {
    await ingest('ts-1', { input: '{"query": "Weather in Paris?"}', output: 'Sunny in Lyon' });
    const suite = await ok<SuiteSummary>(
      await call('/api/suites', {
        name: 'from-reviews',
        defaultScorers: ['contains'],
        cases: [{ name: 'seed', input: { query: 'hi' }, expected: { outputContains: ['hi'] } }],
      }),
      201,
    );
    const q = await createQueue({ name: 'corrections', trace_ids: ['ts-1', 'ts-2'] });
    const [first, second] = (await ok<ItemList>(await call(`/api/queues/${q.id}/items`))).items;

    await expectError(await call(`/api/queues/${q.id}/items/${first.id}/to-suite`, { suite_id: suite.id }), 409, /no corrected output/);
    await ok(await call(`/api/queues/${q.id}/items/${first.id}/complete`, { reviewer: 'alice', correction: { corrected: 'Sunny in Paris' } }));
    expect((await issues(await call(`/api/queues/${q.id}/items/${first.id}/to-suite`, {}))).map((i) => i.field)).toEqual(['suite_id']);
    await expectError(await call(`/api/queues/${q.id}/items/${first.id}/to-suite`, { suite_name: 'no-such-suite' }), 404, 'Suite not found');

    const res = await call(`/api/queues/${q.id}/items/${first.id}/to-suite`, { suite_name: 'from-reviews', case_name: 'paris weather' });
    const added = await ok<{ suite_case: SuiteCaseRef; suite: SuiteSummary; item: QueueItem }>(res, 201);
    expect(added.suite_case).toEqual({ suite_id: suite.id, suite_name: 'from-reviews', version: 2, case_name: 'paris weather' });
    expect(added.suite).toMatchObject({ id: suite.id, version: 2, case_count: 2 });
    expect(added.item.suite_case).toEqual(added.suite_case);
    const v2 = await ok<SuiteVersion>(await call(`/api/suites/${suite.id}`));
    expect(v2.definition.cases.at(-1)).toEqual({
      name: 'paris weather',
      input: { query: 'Weather in Paris?' },
      expected: { output: 'Sunny in Paris' },
      source: { trace_id: 'ts-1' },
      weight: 1,
    });
    expect(v2.definition.cases[0].name).toBe('seed');

    // Sent again: the case is there already; no new version.
    const again = await call(`/api/queues/${q.id}/items/${first.id}/to-suite`, { suite_id: suite.id });
    expect(again.status).toBe(200);
    expect((await ok<SuiteVersion>(await call(`/api/suites/${suite.id}`))).latest_version).toBe(2);

    // A trace the store does not have: 404 with the SPEC's trace text.
    await ok(await call(`/api/queues/${q.id}/items/${second.id}/complete`, { reviewer: 'alice', correction: { corrected: 'x' } }));
    await expectError(await call(`/api/queues/${q.id}/items/${second.id}/to-suite`, { suite_id: suite.id }), 404, "Trace with ID 'ts-2' not found");
  });

  it('gives concurrent to-suite calls on one suite distinct versions that keep every case', async () => {
    const suite = await ok<SuiteSummary>(
      await call('/api/suites', { name: 'concurrent-cases', cases: [{ name: 'seed', input: 'x', scorers: ['exactMatch'], expected: { output: 'x' } }] }),
      201,
    );
    const traces = ['cc-1', 'cc-2', 'cc-3', 'cc-4'];
    for (const t of traces) await ingest(t, { input: `question ${t}` });
    const q = await createQueue({ name: 'concurrent-suite', trace_ids: traces });
    const items = (await ok<ItemList>(await call(`/api/queues/${q.id}/items`))).items;
    for (const item of items)
      await ok(await call(`/api/queues/${q.id}/items/${item.id}/complete`, { reviewer: 'r', correction: { corrected: `answer ${item.trace_id}` } }));
    const results = await Promise.all(items.map((item) => call(`/api/queues/${q.id}/items/${item.id}/to-suite`, { suite_id: suite.id })));
    for (const r of results) expect(r.status).toBe(201);
    const latest = await ok<SuiteVersion>(await call(`/api/suites/${suite.id}`));
    expect(latest.version).toBe(5);
    const names = latest.definition.cases.map((c) => c.name).sort();
    expect(names).toEqual(['seed', ...traces.map((t) => `concurrent-suite: ${t}`)].sort());
    // The suite has no defaultScorers, so each added case is judged by exactMatch on the correction.
    expect(latest.definition.cases.find((c) => c.name === 'concurrent-suite: cc-1')).toMatchObject({
      input: 'question cc-1',
      expected: { output: 'answer cc-1' },
      scorers: [{ name: 'exactMatch', config: {} }],
    });
  });
});

describe('project isolation', () => {
  it("answers 404 for another project's queue and items, and leaves it out of lists", async () => {
    const q = await createQueue({ name: 'private-queue', score_names: ['a'], trace_ids: ['iso-1'] });
    const [item] = (await ok<ItemList>(await call(`/api/queues/${q.id}/items`))).items;
    const project = 'other-project';
    const notFound = 'Queue not found';
    await expectError(await call(`/api/queues/${q.id}`, undefined, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/items`, undefined, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/items`, { trace_ids: ['x'] }, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/next?reviewer=eve`, undefined, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}`, undefined, project), 404, 'Queue item not found');
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}/complete`, { reviewer: 'eve', scores: { a: 1 } }, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}/skip`, {}, project), 404, notFound);
    await expectError(await call(`/api/queues/${q.id}/items/${item.id}/to-suite`, { suite_name: 'x' }, project), 404, notFound);
    const list = await ok<QueueList>(await call('/api/queues', undefined, project));
    expect(list.queues.find((x) => x.id === q.id)).toBeUndefined();
    // Untouched at home.
    expect((await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).counts).toMatchObject({ pending: 1, locked: 0 });
    for (const id of ['not-a-uuid', NO_SUCH_ID]) {
      await expectError(await call(`/api/queues/${id}`), 404, notFound);
      await expectError(await call(`/api/queues/${q.id}/items/${id}`), 404, 'Queue item not found');
      await expectError(await call(`/api/queues/${q.id}/items/${id}/complete`, { scores: { a: 1 } }), 404, 'Queue item not found');
    }
  });

  it('needs feedback:write for next (it takes a lock): a viewer gets 403', async () => {
    const project = 'queues-roles';
    const admin = await svc.keyFor(project);
    const q = await createQueue({ name: 'roles', trace_ids: ['r-1'] }, project);
    const res = await svc.api(`/api/projects/${project}/keys`, { method: 'POST', project, key: admin, json: { name: 'viewer', role: 'viewer' } });
    const viewer = ((await res.json()) as { key: string }).key;
    expect((await svc.api(`/api/queues/${q.id}`, { project, key: viewer })).status).toBe(200);
    const denied = await svc.api(`/api/queues/${q.id}/next`, { project, key: viewer });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: 'Forbidden', details: 'missing permission feedback:write' });
  });
});

describe('hostile input', () => {
  it('answers odd strings and shapes with 4xx, never 5xx', async () => {
    const q = await createQueue({ name: 'hostile', score_names: ['a', { name: 'c', categories: ['x', 'y'] }], trace_ids: ['h-1'] });
    const [item] = (await ok<ItemList>(await call(`/api/queues/${q.id}/items`))).items;
    const huge = 'x'.repeat(1_100_000);
    const cases: Array<[string, unknown]> = [
      ['/api/queues', { name: huge }],
      ['/api/queues', { name: 'lone \ud800' }],
      ['/api/queues', { name: 'nul \u0000' }],
      ['/api/queues', { name: 'ok', description: 'd\u0000' }],
      ['/api/queues', { name: 'ok', trace_ids: ['\ud800'] }],
      ['/api/queues', { name: 'ok', trace_ids: ['t\u0000'] }],
      ['/api/queues', { name: 'ok', trace_ids: 'abc' }],
      ['/api/queues', { name: 'ok', trace_ids: Array.from({ length: 10_001 }, (_, i) => `t${i}`) }],
      ['/api/queues', { name: 'ok', filter: { attributes: { ['k\ud800']: 'v' } } }],
      ['/api/queues', { name: 'ok', filter: { attributes: { k: 1 } } }],
      ['/api/queues', { name: 'ok', filter: { score_below: { name: 'q', value: 'low' } } }],
      ['/api/queues', { name: 'ok', filter: { since: 'yesterday' } }],
      ['/api/queues', { name: 'ok', score_names: [{ name: 'c', categories: { ['\u0000']: 0.5 } }] }],
      ['/api/queues', { name: 'ok', score_names: 'a' }],
      ['/api/queues', { name: ['array'] }],
      [`/api/queues/${q.id}/items`, { trace_ids: [1, 2] }],
      [`/api/queues/${q.id}/items`, {}],
      [`/api/queues/${q.id}/next`, { reviewer: 'r\u0000' }],
      [`/api/queues/${q.id}/next`, { lock_seconds: 10 ** 9 }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { scores: { a: '\ud800' } }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { scores: { c: 'z' } }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { scores: [1] }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { scores: { a: 1 }, comment: huge }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { correction: { corrected: 'x\u0000' } }],
      [`/api/queues/${q.id}/items/${item.id}/complete`, { correction: 'fixed' }],
      [`/api/queues/${q.id}/items/${item.id}/skip`, { reviewer: 5 }],
      [`/api/queues/${q.id}/items/${item.id}/to-suite`, { suite_id: 'not-a-uuid' }],
      [`/api/queues/${q.id}/items/${item.id}/to-suite`, { suite_name: '\ud800' }],
    ];
    for (const [path, body] of cases) {
      const res = await call(path, body);
      const label = `${path} ${JSON.stringify(body).slice(0, 100)}`;
      expect(res.status, label).toBeGreaterThanOrEqual(400);
      expect(res.status, label).toBeLessThan(500);
    }
    const raw = (path: string, text: string) => svc.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    for (const [path, text] of [
      ['/api/queues', '{"__proto__": {"name": "x"}, "name": "proto"}'],
      ['/api/queues', '{"name": "proto2", "filter": {"__proto__": {"status": "ok"}}}'],
      ['/api/queues', '{"name": "proto3", "filter": {"attributes": {"__proto__": "x"}}}'],
      [`/api/queues/${q.id}/items/${item.id}/complete`, '{"scores": {"__proto__": 1}}'],
      [`/api/queues/${q.id}/items/${item.id}/complete`, '{"scores": {"a": 1e400}}'],
      [`/api/queues/${q.id}/next`, '{"__proto__": {"reviewer": "x"}}'],
    ]) {
      const res = await raw(path, text);
      expect(res.status, `${path} ${text}`).toBe(422);
    }
    for (const q2 of ['status=done', 'limit=0', 'limit=abc']) expect((await call(`/api/queues/${q.id}/items?${q2}`)).status, q2).toBe(422);
    for (const extra of ['reviewer=%00', 'lock_seconds=-1', 'lock_seconds=1.5', 'bogus=1'])
      expect((await call(`/api/queues/${q.id}/next?${extra}`)).status, extra).toBe(422);
    // Nothing above changed the queue.
    expect((await ok<ReviewQueue>(await call(`/api/queues/${q.id}`))).counts).toMatchObject({ pending: 1, completed: 0 });
  });
});
