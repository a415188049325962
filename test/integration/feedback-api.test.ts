import { describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type {
  Comparison,
  ComparisonList,
  CorrectionData,
  Feedback as FeedbackUnion,
  FeedbackList,
  PreferenceData,
  RatingData,
} from '../../core/model/feedback.js';
import type { Score } from '../../core/model/score.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { useTestApi, type ErrorBody } from '../helpers/test-service-hooks.js';
import { oneSpanTrace } from '../helpers/server.js';

/** A feedback of any type, for assertions on whichever type's field it has. */
type Feedback = FeedbackUnion & { preference?: PreferenceData; correction?: CorrectionData; rating?: RatingData };

// The API role alone: feedback needs no workflow engine.
const svc = useTestApi();

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

function post(body: unknown, opts: { project?: string; headers?: Record<string, string> } = {}) {
  return svc.api('/api/feedback', { method: 'POST', json: body, ...opts });
}

async function created(body: unknown, project?: string): Promise<Feedback> {
  const res = await post(body, { project });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Feedback;
}

async function expectError(res: Response, status: number, error: string) {
  expect(res.status, `${error}: ${await res.clone().text()}`).toBe(status);
  const body = (await res.json()) as ErrorBody;
  expect(body.error).toBe(error);
  return body;
}

async function issues(res: Response): Promise<FieldIssue[]> {
  expect(res.status, await res.clone().text()).toBe(422);
  const body = (await res.json()) as ErrorBody;
  expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
  return body.details as FieldIssue[];
}

async function scoresOf(traceId: string, project?: string): Promise<Score[]> {
  const res = await svc.api(`/api/scores?trace_id=${encodeURIComponent(traceId)}`, { project });
  expect(res.status).toBe(200);
  return ((await res.json()) as { scores: Score[] }).scores;
}

/** A trace whose root span has `input` and `output`. */
async function ingestTrace(traceId: string, input: string, output: string, project?: string) {
  const body = oneSpanTrace(traceId, { name: 'answer', input, output, startMs: Date.now() - 5_000 });
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe('POST /api/feedback: the SPEC 400 texts', () => {
  it('answers Feedback type is required when the type is missing', async () => {
    for (const body of [{}, { type: '' }, { type: '  ' }, { type: null }, { chosen: 'a', rejected: 'b' }, [1, 2], 'preference', 42]) {
      const err = await expectError(await post(body), 400, 'Feedback type is required');
      expect(err).toMatchObject({ status: 400, code: 'FEEDBACK_TYPE_REQUIRED' });
    }
    await expectError(await svc.api('/api/feedback', { method: 'POST' }), 400, 'Feedback type is required');
  });

  it('answers Preference data is required for preference feedback', async () => {
    for (const body of [
      { type: 'preference' },
      { type: 'preference', trace_id: 't', prompt: 'p' },
      { type: 'preference', preference: null },
      { type: 'preference', preference: {} },
      { type: 'preference', preference: { prompt: 'p' } },
    ]) {
      await expectError(await post(body), 400, 'Preference data is required for preference feedback');
    }
  });

  it('answers Correction data is required for correction feedback', async () => {
    for (const body of [
      { type: 'correction' },
      { type: 'correction', trace_id: 't' },
      { type: 'correction', trace_id: 't', correction: {} },
      { type: 'correction', correction: null },
    ]) {
      await expectError(await post(body), 400, 'Correction data is required for correction feedback');
    }
  });

  it('names every other problem with a 422', async () => {
    expect(await issues(await post({ type: 'thumbs' }))).toEqual([{ field: 'type', message: 'must be one of: preference, correction, rating' }]);
    expect(await issues(await post({ type: 7 }))).toEqual([{ field: 'type', message: 'must be one of: preference, correction, rating' }]);
    expect((await issues(await post({ type: 'preference', chosen: 'a' }))).map((i) => i.field)).toEqual(['rejected']);
    expect((await issues(await post({ type: 'preference', preference: { chosen: 'a' } }))).map((i) => i.field)).toEqual(['preference.rejected']);
    expect((await issues(await post({ type: 'preference', preference: 'a over b' })))[0].field).toBe('preference');
    expect(await issues(await post({ type: 'preference', chosen: 'a', preference: { chosen: 'b', rejected: 'c' } }))).toEqual([
      { field: 'preference.chosen', message: 'give either chosen or preference.chosen, not both' },
    ]);
    expect((await issues(await post({ type: 'correction', original: 'a', corrected: 'b' }))).map((i) => i.field)).toEqual(['trace_id']);
    expect((await issues(await post({ type: 'correction', trace_id: 't', original: 'a' }))).map((i) => i.field)).toEqual(['corrected']);
    expect((await issues(await post({ type: 'rating', trace_id: 't' }))).map((i) => i.field)).toEqual(['value']);
    expect((await issues(await post({ type: 'rating', trace_id: 't', value: 1.5 }))).map((i) => i.field)).toEqual(['value']);
    expect((await issues(await post({ type: 'rating', trace_id: 't', value: 'meh' }))).map((i) => i.field)).toEqual(['value']);
    expect((await issues(await post({ type: 'rating', trace_id: 't', value: 1, thumbs: 'up' }))).map((i) => i.field)).toEqual(['thumbs']);
    expect((await issues(await post({ type: 'rating', value: 1 }))).map((i) => i.field)).toEqual(['trace_id']);
    expect((await issues(await post({ type: 'rating', trace_id: 't', value: 1, colour: 'red' })))[0].message).toMatch(/colour/);
    expect((await issues(await post({ type: 'rating', trace_id: 't', value: 1, user_id: 5 }))).map((i) => i.field)).toEqual(['user_id']);
  });
});

describe('POST /api/feedback: each type', () => {
  it('stores a preference, flat or nested under "preference", and writes no score for a bare trace_id', async () => {
    const flat = await created({
      type: 'preference',
      trace_id: 'pref-trace',
      prompt: 'Capital of France?',
      chosen: 'Paris',
      rejected: 'Lyon',
      reason: 'correct',
      user_id: 'u1',
      source: 'web-ui',
    });
    expect(flat).toMatchObject({
      type: 'preference',
      trace_id: 'pref-trace',
      span_id: null,
      user_id: 'u1',
      source: 'web-ui',
      preference: {
        prompt: 'Capital of France?',
        chosen: 'Paris',
        rejected: 'Lyon',
        reason: 'correct',
        tie: false,
        chosen_trace_id: null,
        rejected_trace_id: null,
      },
      score_ids: [],
    });
    expect(flat.id).toMatch(/^[0-9a-f-]{36}$/);
    const nested = await created({ type: 'preference', preference: { prompt: 'Capital of France?', chosen: 'Paris', rejected: 'Lyon' } });
    expect(nested.preference).toEqual({
      prompt: 'Capital of France?',
      chosen: 'Paris',
      rejected: 'Lyon',
      reason: null,
      tie: false,
      chosen_trace_id: null,
      rejected_trace_id: null,
    });
    expect(await scoresOf('pref-trace')).toEqual([]);

    const got = await svc.api(`/api/feedback/${flat.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(flat);
  });

  it('scores the chosen and rejected traces of a preference with source annotation', async () => {
    const fb = await created({
      type: 'preference',
      chosen: 'A',
      rejected: 'B',
      chosen_trace_id: 'pref-chosen',
      rejected_trace_id: 'pref-rejected',
      reason: 'clearer',
      user_id: 'judge-1',
    });
    expect(fb.score_ids).toHaveLength(2);
    const [chosen] = await scoresOf('pref-chosen');
    const [rejected] = await scoresOf('pref-rejected');
    expect(chosen).toMatchObject({
      name: 'preference',
      value: 1,
      source: 'annotation',
      scorer_name: 'judge-1',
      reason: 'clearer',
      evidence: [`feedback:${fb.id}`],
    });
    expect(rejected).toMatchObject({ name: 'preference', value: 0, source: 'annotation' });
    expect(fb.score_ids.sort()).toEqual([chosen.id, rejected.id].sort());
  });

  it('stores a correction and writes a correction score of 0 carrying the corrected text', async () => {
    const fb = await created({
      type: 'correction',
      trace_id: 'corr-trace',
      span_id: 'corr-span',
      original: 'Lyon',
      corrected: 'Paris is the capital of France.',
    });
    expect(fb).toMatchObject({
      type: 'correction',
      trace_id: 'corr-trace',
      span_id: 'corr-span',
      correction: { original: 'Lyon', corrected: 'Paris is the capital of France.' },
    });
    const nested = await created({ type: 'correction', correction: { trace_id: 'corr-trace-2', original: 'x', corrected: 'y' } });
    expect(nested).toMatchObject({ trace_id: 'corr-trace-2', correction: { original: 'x', corrected: 'y' } });
    const scores = await scoresOf('corr-trace');
    expect(scores).toHaveLength(1);
    expect(scores[0]).toMatchObject({
      id: fb.score_ids[0],
      name: 'correction',
      value: 0,
      score_type: 'boolean',
      source: 'annotation',
      span_id: 'corr-span',
      reason: 'Paris is the capital of France.',
    });
  });

  it('stores ratings: a number, "up"/"down" as value, or thumbs, each as an annotation score', async () => {
    const numeric = await created({ type: 'rating', trace_id: 'rate-num', value: 0.8, comment: 'mostly right', name: 'helpfulness' });
    expect(numeric.rating).toEqual({ name: 'helpfulness', value: 0.8, thumbs: null, comment: 'mostly right' });
    expect(await scoresOf('rate-num')).toMatchObject([
      { name: 'helpfulness', value: 0.8, score_type: 'numeric', source: 'annotation', reason: 'mostly right' },
    ]);

    const up = await created({ type: 'rating', trace_id: 'rate-up', value: 'up' });
    expect(up.rating).toEqual({ name: 'rating', value: 1, thumbs: 'up', comment: null });
    expect(await scoresOf('rate-up')).toMatchObject([{ name: 'rating', value: 1, score_type: 'boolean', source: 'annotation' }]);

    const down = await created({ type: 'rating', rating: { trace_id: 'rate-down', thumbs: 'down' } });
    expect(down.rating).toMatchObject({ value: 0, thumbs: 'down' });
    expect(await scoresOf('rate-down')).toMatchObject([{ name: 'rating', value: 0, source: 'annotation' }]);
  });

  it('makes a retry with the same Idempotency-Key one feedback and one score', async () => {
    const body = { type: 'rating', trace_id: 'rate-retry', value: 0.4 };
    const headers = { 'idempotency-key': 'retry-key-1' };
    const first = await post(body, { headers });
    expect(first.status).toBe(201);
    const fb = (await first.json()) as Feedback;
    // The first answer again, status and body (docs/api.md, "Retries: Idempotency-Key").
    const again = await post(body, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(fb);
    expect(await scoresOf('rate-retry')).toHaveLength(1);
    const list = (await (await svc.api('/api/feedback?trace_id=rate-retry')).json()) as FeedbackList;
    expect(list.total).toBe(1);

    const other = await post({ ...body, value: 0.9 }, { headers });
    expect(other.status).toBe(422);
    expect(((await other.json()) as ErrorBody).code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The same key in another project is another feedback.
    expect((await post(body, { headers, project: 'feedback-key-elsewhere' })).status).toBe(201);
    expect((await issues(await post(body, { headers: { 'idempotency-key': 'k'.repeat(300) } })))[0].field).toBe('Idempotency-Key');
  });
});

describe('GET /api/feedback', () => {
  it('lists newest first with type, trace and time filters, offset and keyset paging', async () => {
    const project = 'feedback-listing';
    const ids: string[] = [];
    const before = Date.now();
    for (let i = 0; i < 5; i++) {
      const body =
        i % 2 === 0
          ? { type: 'rating', trace_id: `list-${i % 3}`, value: i / 10 }
          : { type: 'correction', trace_id: `list-${i % 3}`, original: 'o', corrected: `c${i}` };
      ids.push((await created(body, project)).id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const newestFirst = [...ids].reverse();
    const all = (await (await svc.api('/api/feedback', { project })).json()) as FeedbackList;
    expect(all).toMatchObject({ total: 5, limit: 50, offset: 0, next_cursor: null });
    expect(all.feedback.map((f) => f.id)).toEqual(newestFirst);

    const ratings = (await (await svc.api('/api/feedback?type=rating', { project })).json()) as FeedbackList;
    expect(ratings.feedback.map((f) => f.id)).toEqual([ids[4], ids[2], ids[0]]);
    const byTrace = (await (await svc.api('/api/feedback?trace_id=list-1', { project })).json()) as FeedbackList;
    expect(byTrace.feedback.map((f) => f.id)).toEqual([ids[4], ids[1]]);

    const page = (await (await svc.api('/api/feedback?limit=2&offset=2', { project })).json()) as FeedbackList;
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.feedback.map((f) => f.id)).toEqual(newestFirst.slice(2, 4));

    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res = await svc.api(`/api/feedback?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { project });
      const body = (await res.json()) as FeedbackList;
      seen.push(...body.feedback.map((f) => f.id));
      cursor = body.next_cursor;
    }
    expect(seen).toEqual(newestFirst);

    const third = all.feedback.find((f) => f.id === ids[2])!;
    const from = (await (await svc.api(`/api/feedback?from=${encodeURIComponent(third.created_at)}`, { project })).json()) as FeedbackList;
    expect(from.feedback.map((f) => f.id)).toEqual(newestFirst.slice(0, 3));
    const to = (await (await svc.api(`/api/feedback?to=${encodeURIComponent(third.created_at)}`, { project })).json()) as FeedbackList;
    expect(to.feedback.map((f) => f.id)).toEqual(newestFirst.slice(3));
    const window = (await (await svc.api(`/api/feedback?from=${before - 60_000}&to=${before - 1}`, { project })).json()) as FeedbackList;
    expect(window.total).toBe(0);

    for (const q of [
      'limit=0',
      'limit=1001',
      'offset=-1',
      'type=thumbs',
      'from=yesterday',
      'cursor=abc',
      `cursor=${Buffer.from(JSON.stringify([Date.now(), 'x'])).toString('base64url')}`,
    ]) {
      expect((await svc.api(`/api/feedback?${q}`, { project })).status, q).toBe(422);
    }
  });

  it('answers 404 Feedback not found for an unknown or malformed id', async () => {
    for (const id of [NO_SUCH_ID, 'not-a-uuid']) {
      const res = await svc.api(`/api/feedback/${id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'Feedback not found', code: 'FEEDBACK_NOT_FOUND' });
    }
  });
});

describe('comparisons', () => {
  function compare(body: unknown, project?: string) {
    return svc.api('/api/feedback/comparisons', { method: 'POST', json: body, project });
  }
  function answer(id: string, body: unknown, project?: string) {
    return svc.api(`/api/feedback/comparisons/${id}/answer`, { method: 'POST', json: body, project });
  }

  it('answers Prompt is required whenever the prompt is missing, in either form', async () => {
    for (const body of [
      {},
      { prompt: '' },
      { prompt: '   ' },
      { prompt: null },
      { output_a: 'a', output_b: 'b' },
      { trace_a: 't1', trace_b: 't2' },
      [],
      'prompt',
    ]) {
      const err = await expectError(await compare(body), 400, 'Prompt is required');
      expect(err.code).toBe('PROMPT_REQUIRED');
    }
    await expectError(await svc.api('/api/feedback/comparisons', { method: 'POST' }), 400, 'Prompt is required');
    expect((await issues(await compare({ prompt: 'p', output_a: 'a' }))).map((i) => i.field)).toEqual(['output_b']);
    expect((await issues(await compare({ prompt: 'p', output_a: 'a', trace_b: 'no-such-trace' }))).map((i) => i.field)).toEqual(['trace_b']);
  });

  it('stores a pending comparison, lists it by status, and records the answer as a preference once', async () => {
    const project = 'feedback-comparisons';
    const res = await compare({ prompt: 'Summarize', output_a: 'short', output_b: 'long' }, project);
    expect(res.status).toBe(201);
    const c = (await res.json()) as Comparison;
    expect(c).toMatchObject({ prompt: 'Summarize', output_a: 'short', output_b: 'long', status: 'pending', preferred: null, feedback_id: null });

    const pending = (await (await svc.api('/api/feedback/comparisons?status=pending', { project })).json()) as ComparisonList;
    expect(pending.comparisons.map((x) => x.id)).toEqual([c.id]);

    expect((await issues(await answer(c.id, { preferred: 'c' }, project))).map((i) => i.field)).toEqual(['preferred']);
    const answered = await answer(c.id, { preferred: 'b', reason: 'more complete', user_id: 'rater-7' }, project);
    expect(answered.status).toBe(201);
    const result = (await answered.json()) as { comparison: Comparison; feedback: Feedback };
    expect(result.comparison).toMatchObject({
      status: 'answered',
      preferred: 'b',
      reason: 'more complete',
      answered_by: 'rater-7',
      feedback_id: result.feedback.id,
    });
    expect(result.feedback).toMatchObject({
      type: 'preference',
      comparison_id: c.id,
      user_id: 'rater-7',
      preference: { prompt: 'Summarize', chosen: 'long', rejected: 'short', reason: 'more complete', tie: false },
    });

    const again = await answer(c.id, { preferred: 'b' }, project);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { feedback: Feedback }).feedback.id).toBe(result.feedback.id);
    const changed = await answer(c.id, { preferred: 'a' }, project);
    expect(changed.status).toBe(409);

    expect(((await (await svc.api('/api/feedback/comparisons?status=pending', { project })).json()) as ComparisonList).total).toBe(0);
    expect(((await (await svc.api('/api/feedback/comparisons?status=answered', { project })).json()) as ComparisonList).comparisons.map((x) => x.id)).toEqual([
      c.id,
    ]);
    expect(((await (await svc.api('/api/feedback?type=preference', { project })).json()) as FeedbackList).total).toBe(1);
    expect((await svc.api('/api/feedback/comparisons?status=closed', { project })).status).toBe(422);
    expect((await svc.api(`/api/feedback/comparisons/${c.id}`, { project })).status).toBe(200);
  });

  it('takes the outputs from traces and scores both traces when answered (0.5 each for a tie)', async () => {
    await ingestTrace('cmp-a', 'What is 2+2?', 'four');
    await ingestTrace('cmp-b', 'What is 2+2?', '5');
    const res = await compare({ prompt: 'What is 2+2?', trace_a: 'cmp-a', trace_b: 'cmp-b' });
    expect(res.status, await res.clone().text()).toBe(201);
    const c = (await res.json()) as Comparison;
    expect(c).toMatchObject({ output_a: 'four', output_b: '5', trace_a: 'cmp-a', trace_b: 'cmp-b' });
    const answered = (await (await answer(c.id, { preferred: 'a' })).json()) as { feedback: Feedback };
    expect(answered.feedback).toMatchObject({ trace_id: 'cmp-a', preference: { chosen_trace_id: 'cmp-a', rejected_trace_id: 'cmp-b' } });
    expect(await scoresOf('cmp-a')).toMatchObject([{ name: 'preference', value: 1, source: 'annotation' }]);
    expect(await scoresOf('cmp-b')).toMatchObject([{ name: 'preference', value: 0, source: 'annotation' }]);

    await ingestTrace('cmp-c', 'q', 'x');
    await ingestTrace('cmp-d', 'q', 'y');
    const tie = (await (await compare({ prompt: 'q', trace_a: 'cmp-c', trace_b: 'cmp-d' })).json()) as Comparison;
    expect((await answer(tie.id, { preferred: 'tie' })).status).toBe(201);
    expect(await scoresOf('cmp-c')).toMatchObject([{ name: 'preference', value: 0.5 }]);
    expect(await scoresOf('cmp-d')).toMatchObject([{ name: 'preference', value: 0.5 }]);
    // Another project's traces cannot be compared.
    expect((await issues(await compare({ prompt: 'q', trace_a: 'cmp-c', trace_b: 'cmp-d' }, 'feedback-intruder'))).map((i) => i.field)).toEqual(['trace_a']);
  });

  it('answers 404 Comparison not found for unknown ids', async () => {
    for (const id of [NO_SUCH_ID, 'nope']) {
      await expectError(await svc.api(`/api/feedback/comparisons/${id}`), 404, 'Comparison not found');
      await expectError(await answer(id, { preferred: 'a' }), 404, 'Comparison not found');
    }
  });
});

describe('project isolation', () => {
  it("hides one project's feedback and comparisons from another (404, empty lists)", async () => {
    const fb = await created({ type: 'rating', trace_id: 'iso-trace', value: 0.3 });
    const c = (await (
      await svc.api('/api/feedback/comparisons', { method: 'POST', json: { prompt: 'p', output_a: 'a', output_b: 'b' } })
    ).json()) as Comparison;
    const project = 'other-project';
    await expectError(await svc.api(`/api/feedback/${fb.id}`, { project }), 404, 'Feedback not found');
    await expectError(await svc.api(`/api/feedback/comparisons/${c.id}`, { project }), 404, 'Comparison not found');
    await expectError(
      await svc.api(`/api/feedback/comparisons/${c.id}/answer`, { method: 'POST', json: { preferred: 'a' }, project }),
      404,
      'Comparison not found',
    );
    const list = (await (await svc.api('/api/feedback?trace_id=iso-trace', { project })).json()) as FeedbackList;
    expect(list).toMatchObject({ feedback: [], total: 0 });
    const comparisons = (await (await svc.api('/api/feedback/comparisons', { project })).json()) as ComparisonList;
    expect(comparisons.comparisons.find((x) => x.id === c.id)).toBeUndefined();
    expect(await scoresOf('iso-trace', project)).toEqual([]);
    // Still pending in its own project.
    expect(((await (await svc.api(`/api/feedback/comparisons/${c.id}`)).json()) as Comparison).status).toBe('pending');
  });
});

describe('hostile input', () => {
  it('answers odd strings and shapes with 4xx, never 5xx', async () => {
    const huge = 'x'.repeat(1_100_000);
    const bodies: unknown[] = [
      { type: 'preference', chosen: huge, rejected: 'b' },
      { type: 'correction', trace_id: 't', original: 'a', corrected: huge },
      { type: 'rating', trace_id: 't'.repeat(10_000), value: 1 },
      { type: 'rating', trace_id: 't', value: 1, comment: 'c'.repeat(100_000) },
      { type: 'preference', chosen: 'lone \ud800', rejected: 'b' },
      { type: 'preference', chosen: 'a', rejected: 'nul \u0000' },
      { type: 'correction', trace_id: 'trace\u0000', original: 'a', corrected: 'b' },
      { type: 'rating', trace_id: '\udc00', value: 1 },
      { type: 'rating', trace_id: 't', value: 1, user_id: 'u\u0000' },
      { type: 'rating', trace_id: 't', value: 1, ['key\ud800']: 1 },
      { type: 'preference', preference: { chosen: 'a', rejected: 'b', ['\u0000']: 1 } },
      { type: 'rating', trace_id: 't', value: [1] },
      { type: 'rating', trace_id: 't', value: { up: true } },
      { type: 'rating', trace_id: 42, value: 1 },
      { type: 'correction', trace_id: 't', original: 1, corrected: true },
      { type: ['rating'] },
      { type: { $ne: null } },
      { type: 'preference', chosen: 'a', rejected: 'b', tie: 'yes' },
      { type: 'preference', preference: [1, 2] },
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBeLessThan(500);
    }
    const raw = (text: string, path = '/api/feedback') => svc.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    const proto = await raw('{"__proto__": {"type": "rating"}, "type": "rating", "trace_id": "t", "value": 1}');
    expect((await issues(proto))[0].message).toMatch(/__proto__/);
    const nestedProto = await raw('{"type": "preference", "preference": {"__proto__": {"x": 1}, "chosen": "a", "rejected": "b"}}');
    expect((await issues(nestedProto))[0].field).toBe('preference.__proto__');
    expect((await issues(await raw('{"type": "rating", "trace_id": "t", "value": 1e400}')))[0].message).toBe('must be a finite number');
    const deep = `{"type": "preference", "chosen": "a", "rejected": "b", "x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const tooDeep = await raw(deep);
    expect(tooDeep.status).toBe(400);
    expect(await tooDeep.json()).toMatchObject({ code: 'BODY_TOO_DEEP' });
    expect((await raw('{"type": ')).status).toBe(400);

    for (const body of [
      { prompt: huge, output_a: 'a', output_b: 'b' },
      { prompt: 'p\u0000', output_a: 'a', output_b: 'b' },
      { prompt: 'p', output_a: '\ud800', output_b: 'b' },
      { prompt: 'p', output_a: 1, output_b: 'b' },
      { prompt: ['p'], output_a: 'a', output_b: 'b' },
      { prompt: 'p', output_a: 'a', output_b: 'b', extra: 1 },
    ]) {
      const res = await svc.api('/api/feedback/comparisons', { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect(
      (await issues(await raw('{"__proto__": {"x": 1}, "prompt": "p", "output_a": "a", "output_b": "b"}', '/api/feedback/comparisons')))[0].message,
    ).toMatch(/__proto__/);
    const c = (await (
      await svc.api('/api/feedback/comparisons', { method: 'POST', json: { prompt: 'p', output_a: 'a', output_b: 'b' } })
    ).json()) as Comparison;
    for (const body of [{ preferred: 'a', reason: '\ud800' }, { preferred: 'a', user_id: 'x\u0000' }, { preferred: 1 }, {}, { preferred: 'a', extra: true }]) {
      const res = await svc.api(`/api/feedback/comparisons/${c.id}/answer`, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await issues(await raw('{"__proto__": {"preferred": "a"}}', `/api/feedback/comparisons/${c.id}/answer`)))[0].message).toMatch(/__proto__/);
    for (const q of ['trace_id=%00', 'trace_id=%ED%A0%80', `user_id=${'u'.repeat(300)}`, 'from=99999999999999999']) {
      const res = await svc.api(`/api/feedback?${q}`);
      expect(res.status, q).toBeGreaterThanOrEqual(200);
      expect(res.status, q).toBeLessThan(500);
    }
  });
});

describe('store failures', () => {
  it('answers the SPEC 500 texts Failed to submit feedback and Failed to fetch feedback', async () => {
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      // A constraint no row meets: every feedback insert fails inside PostgreSQL.
      await metadata.pool.query('ALTER TABLE feedback ADD CONSTRAINT test_refuse_all CHECK (length(type) < 0) NOT VALID');
      const submit = await post({ type: 'rating', trace_id: 'fail-trace', value: 1 });
      expect(submit.status).toBe(500);
      expect(await submit.json()).toMatchObject({
        error: 'Failed to submit feedback',
        status: 500,
        details: expect.stringMatching(/test_refuse_all/) as unknown,
      });
      await metadata.pool.query('ALTER TABLE feedback DROP CONSTRAINT test_refuse_all');

      await metadata.pool.query('ALTER TABLE feedback RENAME COLUMN data TO data_hidden');
      for (const path of ['/api/feedback', `/api/feedback/${NO_SUCH_ID}`]) {
        const res = await svc.api(path);
        expect(res.status, path).toBe(500);
        expect(((await res.json()) as ErrorBody).error).toBe('Failed to fetch feedback');
      }
    } finally {
      await metadata.pool.query('ALTER TABLE feedback DROP CONSTRAINT IF EXISTS test_refuse_all');
      await metadata.pool.query('ALTER TABLE feedback RENAME COLUMN data_hidden TO data').catch(() => undefined);
      await metadata.close();
    }
    expect((await post({ type: 'rating', trace_id: 'fail-trace', value: 1 })).status).toBe(201);
  });
});

describe('permissions', () => {
  it('lets a viewer read feedback and refuses its writes with 403 missing permission feedback:write', async () => {
    const project = 'feedback-roles';
    const admin = await svc.keyFor(project);
    const res = await svc.api(`/api/projects/${project}/keys`, { method: 'POST', project, key: admin, json: { name: 'viewer', role: 'viewer' } });
    expect(res.status).toBe(201);
    const viewer = ((await res.json()) as { key: string }).key;
    expect((await svc.api('/api/feedback', { project, key: viewer })).status).toBe(200);
    expect((await svc.api('/api/feedback/comparisons', { project, key: viewer })).status).toBe(200);
    for (const [path, json] of [
      ['/api/feedback', { type: 'rating', trace_id: 't', value: 1 }],
      ['/api/feedback/comparisons', { prompt: 'p', output_a: 'a', output_b: 'b' }],
      [`/api/feedback/comparisons/${NO_SUCH_ID}/answer`, { preferred: 'a' }],
    ] as const) {
      const denied = await svc.api(path, { method: 'POST', project, key: viewer, json });
      expect(denied.status, path).toBe(403);
      expect(await denied.json()).toMatchObject({ error: 'Forbidden', details: 'missing permission feedback:write' });
    }
  });
});
