import { describe, expect, it } from 'vitest';
import type { Score } from '../../core/model/score.js';
import type { SpanView, TraceDetail } from '../../core/model/trace.js';
import { sampleTrace } from '../helpers/server.js';
import { useTestService, type ValidationErrorBody as ErrorBody } from '../helpers/test-service-hooks.js';

const svc = useTestService({ MAX_BODY_BYTES: String(64 * 1024) });

const post = (path: string, json: unknown) => svc.api(path, { method: 'POST', json });

describe('bad input to POST /api/traces/ingest', () => {
  it('gives the SPEC 422 body for missing fields, wrong types and bad enums, with nested field names', async () => {
    const body = sampleTrace('bad-1', { spanCount: 4 }) as Record<string, unknown>;
    delete body.name;
    body.duration_ms = 'slow';
    (body.spans as Array<Record<string, unknown>>)[2].type = 'banana';
    const res = await post('/api/traces/ingest', body);
    expect(res.status).toBe(422);
    const out = (await res.json()) as ErrorBody;
    expect(out).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
    const byField = Object.fromEntries(out.details.map((d) => [d.field, d.message]));
    expect(byField.name).toBe('is required');
    expect(byField.duration_ms).toMatch(/number/i);
    expect(byField['spans[2].type']).toMatch(/must be one of/);
    expect((await svc.api('/api/traces/bad-1')).status).toBe(404);
  });

  it('answers malformed JSON with 400 and an oversize body with 413', async () => {
    const malformed = await svc.api('/api/traces/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"trace_id": "x", ' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ErrorBody).error).toMatch(/Malformed JSON/);
    const huge = sampleTrace('too-big') as Record<string, unknown>;
    huge.attributes = { blob: 'x'.repeat(100 * 1024) };
    const tooBig = await post('/api/traces/ingest', huge);
    expect(tooBig.status).toBe(413);
    expect((await svc.api('/api/traces/too-big')).status).toBe(404);
  });

  it('answers a non-JSON content type with 415 and a JSON array body with 422', async () => {
    const res = await svc.api('/api/traces/ingest', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
    expect((await post('/api/traces/ingest', [1, 2])).status).toBe(422);
  });

  it('keeps serving after bad input', async () => {
    expect((await post('/api/traces/ingest', sampleTrace('after-bad'))).status).toBe(201);
  });
});

describe('scores', () => {
  it('creates a score and lists it by trace', async () => {
    await post('/api/traces/ingest', sampleTrace('scored'));
    // What the list shows of the score again (its evidence aside).
    const sent = { trace_id: 'scored', name: 'accuracy', value: 0.85, source: 'eval', scorer_name: 'exactMatch', reason: 'close' };
    const res = await post('/api/scores', { ...sent, evidence: ['a', 'b'] });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Score;
    expect(created).toMatchObject({ trace_id: 'scored', name: 'accuracy', value: 0.85 });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(created.created_at)).not.toBeNaN();

    const listed = (await (await svc.api('/api/scores?trace_id=scored')).json()) as { scores: Score[] };
    expect(listed.scores).toEqual([expect.objectContaining({ id: created.id, ...sent })]);
    const otherProject = (await (await svc.api('/api/scores?trace_id=scored', { project: 'someone-else' })).json()) as { scores: Score[] };
    expect(otherProject.scores).toEqual([]);
  });

  it('rejects a missing trace_id with 400 and values outside 0..1 or a bad source with 422', async () => {
    const missing = await post('/api/scores', { name: 'x', value: 0.5 });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).error).toBe('trace_id is required');
    const outOfRange = await post('/api/scores', { trace_id: 't', name: 'x', value: 1.5 });
    expect(outOfRange.status).toBe(422);
    expect(((await outOfRange.json()) as ErrorBody).details).toEqual([{ field: 'value', message: 'must be between 0 and 1' }]);
    const badSource = await post('/api/scores', { trace_id: 't', name: 'x', value: 0.1, source: 'robot' });
    expect(((await badSource.json()) as ErrorBody).details[0].field).toBe('source');
  });
});

describe('spans', () => {
  it('adds spans to a trace and reads one back by id', async () => {
    await post('/api/traces/ingest', sampleTrace('with-spans', { spanCount: 1 }));
    const res = await post('/api/spans', {
      trace_id: 'with-spans',
      spans: [
        {
          span_id: 'extra-1',
          parent_span_id: 'with-spans-root',
          name: 'lookup',
          type: 'retrieval',
          start_time: new Date().toISOString(),
          attributes: { query: 'q' },
        },
      ],
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ trace_id: 'with-spans', span_ids: ['extra-1'], ingested: true });
    const span = (await (await svc.api('/api/spans/extra-1')).json()) as SpanView;
    expect(span).toMatchObject({ span_id: 'extra-1', trace_id: 'with-spans', type: 'retrieval', component_type: 'retrieval', attributes: { query: 'q' } });
    const trace = (await (await svc.api('/api/traces/with-spans')).json()) as TraceDetail;
    expect(trace.span_count).toBe(2);
  });

  it("answers Span not found for a missing span and another project's span", async () => {
    const res = await svc.api('/api/spans/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).message).toBe('Span not found');
    expect((await svc.api('/api/spans/extra-1', { project: 'intruder' })).status).toBe(404);
  });

  it('validates the span body', async () => {
    const res = await post('/api/spans', { trace_id: 'with-spans', spans: [{ span_id: 'x', name: 'n', type: 'tool' }] });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorBody).details).toEqual([{ field: 'spans[0].start_time', message: 'is required' }]);
  });
});

describe('GET /api/health', () => {
  it('reports healthy with the version and each service, the embedded workflow engine included', async () => {
    const res = await svc.api('/api/health', { project: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'healthy',
      version: expect.any(String) as string,
      services: { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'ok' },
    });
  });
});
