import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceDetail, TraceList } from '../../core/model/trace.js';
import { sampleTrace } from '../helpers/server.js';
import { useTestApi, type ValidationErrorBody as ErrorBody } from '../helpers/test-service-hooks.js';

const svc = useTestApi({ MAX_BODY_BYTES: String(256 * 1024) });

async function ingest(body: unknown, project?: string) {
  return svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
}

describe('POST /api/traces/ingest then GET /api/traces/{id}', () => {
  it('answers 201 and the trace is readable at once, with spans, parent links and derived totals', async () => {
    const body = sampleTrace('trace-read-1', { spanCount: 5 });
    const res = await ingest(body);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ trace_id: 'trace-read-1', ingested: true });

    const got = await svc.api('/api/traces/trace-read-1');
    expect(got.status).toBe(200);
    const trace = (await got.json()) as TraceDetail;
    expect(trace).toMatchObject({
      trace_id: 'trace-read-1',
      name: 'agent-run',
      status: 'ok',
      duration_ms: 1000,
      start_time: body.start_time,
      span_count: 5,
      llm_call_count: 2,
      tool_call_count: 2,
      total_input_tokens: 20,
      total_output_tokens: 40,
    });
    expect(trace.spans).toHaveLength(5);
    const root = trace.spans.find((s) => s.span_id === 'trace-read-1-root');
    expect(root?.parent_span_id).toBeNull();
    const llm = trace.spans.find((s) => s.span_id === 'trace-read-1-1');
    expect(llm).toMatchObject({
      parent_span_id: 'trace-read-1-root',
      type: 'generation',
      component_type: 'generation',
      model: 'gpt-4o',
      input_tokens: 10,
      output_tokens: 20,
      duration_ms: 5,
      convention: 'spec',
    });
    const tool = trace.spans.find((s) => s.span_id === 'trace-read-1-2');
    expect(tool).toMatchObject({ type: 'tool', component_type: 'tool' });
  });

  it('never counts a re-sent trace twice', async () => {
    const body = sampleTrace('trace-resent', { spanCount: 4 });
    for (let i = 0; i < 3; i++) expect((await ingest(body)).status).toBe(201);
    const trace = (await (await svc.api('/api/traces/trace-resent')).json()) as TraceDetail;
    expect(trace.spans).toHaveLength(4);
    expect(trace).toMatchObject({ span_count: 4, llm_call_count: 2, total_input_tokens: 20 });
    const list = (await (await svc.api('/api/traces?name=trace-resent-unique-name')).json()) as TraceList;
    expect(list.total).toBe(0);
  });

  it('assembles a trace from spans posted in several batches, children before the root', async () => {
    const start = Date.now() - 60_000;
    const child = {
      span_id: 'late-child',
      parent_span_id: 'late-root',
      name: 'llm',
      type: 'generation',
      start_time: start + 100,
      end_time: start + 300,
      attributes: { model: 'claude', input_tokens: 7, output_tokens: 3 },
    };
    expect((await svc.api('/api/spans', { method: 'POST', json: { trace_id: 'trace-batches', spans: [child] } })).status).toBe(201);
    const root = { trace_id: 'trace-batches', span_id: 'late-root', name: 'root-op', type: 'span', start_time: start, end_time: start + 500 };
    expect((await svc.api('/api/spans', { method: 'POST', json: root })).status).toBe(201);
    const trace = (await (await svc.api('/api/traces/trace-batches')).json()) as TraceDetail;
    expect(trace).toMatchObject({ name: 'root-op', duration_ms: 500, span_count: 2, llm_call_count: 1, total_input_tokens: 7, total_output_tokens: 3 });
    expect(trace.start_time).toBe(new Date(start).toISOString());
  });

  it('marks a trace errored when any span errored', async () => {
    const body = sampleTrace('trace-err', { spanCount: 2 });
    (body.spans[1] as Record<string, unknown>).status = 'error';
    await ingest(body);
    const trace = (await (await svc.api('/api/traces/trace-err')).json()) as TraceDetail;
    expect(trace.status).toBe('error');
    expect(trace.spans.find((s) => s.span_id === 'trace-err-1')?.status).toBe('error');
  });

  it("returns the reference 404 body for a missing trace and for another project's trace", async () => {
    const missing = await svc.api('/api/traces/no-such-trace');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'TRACE_NOT_FOUND', message: "Trace with ID 'no-such-trace' not found" });

    await ingest(sampleTrace('trace-private'), 'project-a');
    expect((await svc.api('/api/traces/trace-private', { project: 'project-a' })).status).toBe(200);
    const other = await svc.api('/api/traces/trace-private', { project: 'project-b' });
    expect(other.status).toBe(404);
    expect(((await other.json()) as ErrorBody).code).toBe('TRACE_NOT_FOUND');
  });
});

describe('GET /api/traces', () => {
  const project = 'project-list';
  const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const body = sampleTrace(`list-${i}`, {
        start: base + i * 60_000,
        name: i % 3 === 0 ? 'checkout-flow' : 'search-flow',
        status: i % 4 === 0 ? 'error' : 'ok',
      });
      expect((await ingest(body, project)).status).toBe(201);
    }
  });

  const list = async (query: string) => {
    const res = await svc.api(`/api/traces${query}`, { project });
    expect(res.status).toBe(200);
    return (await res.json()) as TraceList;
  };

  it('lists newest first with defaults limit 50, offset 0 and the total', async () => {
    const page = await list('');
    expect(page).toMatchObject({ total: 12, limit: 50, offset: 0 });
    expect(page.traces.map((t) => t.trace_id)).toEqual(Array.from({ length: 12 }, (_, i) => `list-${11 - i}`));
    expect(page.traces[0]).toMatchObject({ trace_id: 'list-11', name: 'search-flow', span_count: 3, duration_ms: 1000 });
    expect(Object.keys(page.traces[0])).toEqual(
      expect.arrayContaining(['trace_id', 'name', 'status', 'duration_ms', 'start_time', 'span_count', 'attributes']),
    );
  });

  it('pages with limit and offset, keeping the total', async () => {
    const page = await list('?limit=5&offset=10');
    expect(page).toMatchObject({ total: 12, limit: 5, offset: 10 });
    expect(page.traces.map((t) => t.trace_id)).toEqual(['list-1', 'list-0']);
    const past = await list('?limit=5&offset=40');
    expect(past).toMatchObject({ total: 12, traces: [] });
  });

  it('pages by keyset cursor: each trace once, in order, the total kept, and new traces do not shift the pages after the cursor', async () => {
    const first = await list('?limit=5');
    expect(first).toMatchObject({ total: 12, limit: 5 });
    expect(first.traces.map((t) => t.trace_id)).toEqual(['list-11', 'list-10', 'list-9', 'list-8', 'list-7']);
    expect(first.next_cursor).toEqual(expect.any(String));
    // A newer trace arrives mid-walk: it would shift offset pages, not cursor pages.
    expect((await ingest(sampleTrace('list-late', { start: base + 20 * 60_000 }), project)).status).toBe(201);
    const second = await list(`?limit=5&cursor=${first.next_cursor}`);
    expect(second.traces.map((t) => t.trace_id)).toEqual(['list-6', 'list-5', 'list-4', 'list-3', 'list-2']);
    expect(second.total).toBe(13);
    const third = await list(`?limit=5&cursor=${second.next_cursor}`);
    expect(third.traces.map((t) => t.trace_id)).toEqual(['list-1', 'list-0']);
    expect(third.next_cursor).toBeNull();
    // The filters apply along the way.
    const errors = await list('?status=error&limit=2');
    const more = await list(`?status=error&limit=2&cursor=${errors.next_cursor}`);
    expect([...errors.traces, ...more.traces].map((t) => t.trace_id)).toEqual(['list-8', 'list-4', 'list-0']);
    const bad = await svc.api('/api/traces?cursor=not-a-cursor', { project });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as ErrorBody).details[0].field).toBe('cursor');
  });

  it('filters by status, name and time range', async () => {
    const errors = await list('?status=error');
    expect(errors.traces.map((t) => t.trace_id).sort()).toEqual(['list-0', 'list-4', 'list-8']);
    expect(errors.total).toBe(3);
    const checkout = await list('?name=checkout');
    expect(checkout.total).toBe(4);
    const window = await list(`?start_time=${new Date(base + 5 * 60_000).toISOString()}&end_time=${new Date(base + 7 * 60_000).toISOString()}`);
    expect(window.traces.map((t) => t.trace_id)).toEqual(['list-7', 'list-6', 'list-5']);
  });

  it('rejects bad query values with 422 naming the parameter', async () => {
    const res = await svc.api('/api/traces?limit=abc&status=maybe', { project });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body.details.map((d) => d.field).sort()).toEqual(['limit', 'status']);
  });
});

describe('project context', () => {
  it("uses the key's project when the request names none", async () => {
    await ingest(sampleTrace('trace-own'));
    expect((await svc.api('/api/traces/trace-own', { project: null })).status).toBe(200);
  });

  it('accepts X-Workspace-Id and the project_id / workspace_id query parameters', async () => {
    await ingest(sampleTrace('trace-ws'), 'ws-1');
    const key = await svc.keyFor('ws-1');
    expect((await svc.api('/api/traces/trace-ws', { project: null, key, headers: { 'X-Workspace-Id': 'ws-1' } })).status).toBe(200);
    expect((await svc.api('/api/traces/trace-ws?project_id=ws-1', { project: null, key })).status).toBe(200);
    expect((await svc.api('/api/traces/trace-ws?workspace_id=ws-1', { project: null, key })).status).toBe(200);
  });
});
