import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import { TRACE_SEARCH_WINDOW, type TraceList } from '../../core/model/trace.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * GET /api/traces' filters beyond the SPEC's (docs/api.md): model, component_type,
 * min_duration_ms, has_errors, score_name + score_below, search; the scores of each listed trace;
 * the keyset cursor under every filter; 422 for bad values.
 */
let svc: TestApi;
const project = 'project-filters';
const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

interface SpanSpec {
  type: string;
  model?: string;
  input?: unknown;
  output?: unknown;
  status?: 'ok' | 'error';
  name?: string;
}

/** A trace of a root span and the given children, starting `minute` minutes after `base`. */
function trace(id: string, minute: number, durationMs: number, children: SpanSpec[], opts: { name?: string; status?: 'ok' | 'error' } = {}) {
  const start = base + minute * 60_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    trace_id: id,
    name: opts.name ?? `run ${id}`,
    status: opts.status ?? 'ok',
    duration_ms: durationMs,
    start_time: iso(start),
    spans: [
      { span_id: `${id}-root`, name: 'agent', type: 'span', start_time: iso(start), end_time: iso(start + durationMs) },
      ...children.map((c, i) => ({
        span_id: `${id}-${i + 1}`,
        parent_span_id: `${id}-root`,
        name: c.name ?? `${c.type} ${i + 1}`,
        type: c.type,
        start_time: iso(start + 10 * (i + 1)),
        end_time: iso(start + 10 * (i + 1) + 5),
        ...(c.status ? { status: c.status } : {}),
        ...(c.model ? { model: c.model, input_tokens: 5, output_tokens: 7 } : {}),
        ...(c.input === undefined ? {} : { input: c.input }),
        ...(c.output === undefined ? {} : { output: c.output }),
      })),
    ],
  };
}

// Newest first in the list: d, c, b, a.
const TRACES = [
  trace('f-a', 1, 1000, [{ type: 'generation', model: 'gpt-4o', input: [{ role: 'user', content: 'hello there' }] }, { type: 'tool' }], {
    name: 'checkout-flow',
  }),
  trace(
    'f-b',
    2,
    5000,
    [
      { type: 'generation', model: 'claude-3' },
      { type: 'retrieval', output: 'three documents' },
    ],
    { name: 'search-flow' },
  ),
  trace(
    'f-c',
    3,
    200,
    [
      { type: 'planning', input: { note: 'Look out for the Zebra crossing' } },
      { type: 'tool', status: 'error' },
    ],
    { name: 'search-flow' },
  ),
  // An error by the body's own status, with no span errored.
  trace('f-d', 4, 300, [{ type: 'memory', name: 'recall zebra facts' }], { name: 'memory-flow', status: 'error' }),
];

interface ErrorBody {
  error: string;
  code: string;
  details: FieldIssue[];
}

async function list(query: string): Promise<TraceList> {
  const res = await svc.api(`/api/traces${query}`, { project });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as TraceList;
}
const ids = async (query: string) => (await list(query)).traces.map((t) => t.trace_id);

async function score(traceId: string, name: string, value: number): Promise<void> {
  const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: traceId, name, value }, project });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  svc = await startTestApi();
  for (const t of TRACES) {
    const res = await svc.api('/api/traces/ingest', { method: 'POST', json: t, project });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  // f-a: 0.2, then 0.9 (the latest); f-b: 0.3; f-c: another name only.
  await score('f-a', 'quality', 0.2);
  await new Promise((r) => setTimeout(r, 20));
  await score('f-a', 'quality', 0.9);
  await score('f-b', 'quality', 0.3);
  await score('f-c', 'helpfulness', 0.1);
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /api/traces filters', () => {
  it('lists every trace without filters, newest first', async () => {
    expect(await ids('')).toEqual(['f-d', 'f-c', 'f-b', 'f-a']);
  });

  it('model: traces with a span of exactly that model', async () => {
    expect(await ids('?model=gpt-4o')).toEqual(['f-a']);
    expect(await ids('?model=claude-3')).toEqual(['f-b']);
    expect(await ids('?model=gpt')).toEqual([]);
    expect((await list('?model=gpt-4o')).total).toBe(1);
  });

  it('component_type: traces with a span of that component type', async () => {
    expect(await ids('?component_type=retrieval')).toEqual(['f-b']);
    expect(await ids('?component_type=planning')).toEqual(['f-c']);
    expect(await ids('?component_type=generation')).toEqual(['f-b', 'f-a']);
    expect(await ids('?component_type=tool')).toEqual(['f-c', 'f-a']);
    expect(await ids('?component_type=routing')).toEqual([]);
  });

  it('model and component_type together: each may be met by another span of the trace', async () => {
    expect(await ids('?model=gpt-4o&component_type=tool')).toEqual(['f-a']);
    expect(await ids('?model=claude-3&component_type=tool')).toEqual([]);
    expect(await ids('?model=claude-3&component_type=retrieval')).toEqual(['f-b']);
  });

  it('min_duration_ms: traces lasting at least that long', async () => {
    expect(await ids('?min_duration_ms=1000')).toEqual(['f-b', 'f-a']);
    expect(await ids('?min_duration_ms=1001')).toEqual(['f-b']);
    expect(await ids('?min_duration_ms=0')).toEqual(['f-d', 'f-c', 'f-b', 'f-a']);
  });

  it("has_errors: a span errored (true) or none did (false); status=error also counts the body's own status", async () => {
    expect(await ids('?has_errors=true')).toEqual(['f-c']);
    expect(await ids('?has_errors=1')).toEqual(['f-c']);
    expect(await ids('?has_errors=false')).toEqual(['f-d', 'f-b', 'f-a']);
    expect(await ids('?status=error')).toEqual(['f-d', 'f-c']);
  });

  it('score_name + score_below: the latest score of that name is below the threshold', async () => {
    expect(await ids('?score_name=quality&score_below=0.5')).toEqual(['f-b']);
    expect(await ids('?score_name=quality&score_below=0.95')).toEqual(['f-b', 'f-a']);
    expect(await ids('?score_name=quality&score_below=0.3')).toEqual([]);
    expect(await ids('?score_name=helpfulness&score_below=0.5')).toEqual(['f-c']);
    expect(await ids('?score_name=nothing&score_below=1')).toEqual([]);
  });

  it('search: case-insensitive over trace names and ids, and span names, inputs and outputs', async () => {
    const byName = await list('?search=CHECKOUT');
    expect(byName.traces.map((t) => t.trace_id)).toEqual(['f-a']);
    expect(byName.search_truncated).toBe(false);
    expect(await ids('?search=f-b')).toEqual(['f-b']);
    // Span input (JSON text), a span's name, a span's output, chat content.
    expect(await ids('?search=zebra')).toEqual(['f-d', 'f-c']);
    expect(await ids('?search=THREE%20DOCUMENTS')).toEqual(['f-b']);
    expect(await ids('?search=hello%20there')).toEqual(['f-a']);
    expect(await ids('?search=no-such-text-anywhere')).toEqual([]);
    // With the other filters.
    expect(await ids('?search=zebra&has_errors=true')).toEqual(['f-c']);
    expect(await ids('?search=zebra&model=gpt-4o')).toEqual([]);
    // Nothing matches the other filters: the window is empty.
    expect(await list('?search=zebra&model=none')).toMatchObject({ traces: [], total: 0, search_truncated: false });
    // No search: no search_truncated field.
    expect((await list('')).search_truncated).toBeUndefined();
  });

  it('every filter combines with the others', async () => {
    expect(await ids('?name=search&min_duration_ms=1000')).toEqual(['f-b']);
    expect(await ids('?component_type=tool&has_errors=false')).toEqual(['f-a']);
    expect(await ids(`?score_name=quality&score_below=0.95&start_time=${new Date(base + 2 * 60_000).toISOString()}`)).toEqual(['f-b']);
    expect(await ids(`?model=gpt-4o&start_time=${new Date(base + 2 * 60_000).toISOString()}`)).toEqual([]);
    expect(await ids(`?model=claude-3&start_time=${new Date(base + 2 * 60_000).toISOString()}`)).toEqual(['f-b']);
  });

  it('pages by keyset cursor under each filter', async () => {
    for (const query of [
      'component_type=tool',
      'has_errors=false',
      'min_duration_ms=250',
      'score_name=quality&score_below=0.95',
      'search=flow',
      'model=gpt-4o',
    ]) {
      const all = await ids(`?${query}`);
      const walked: string[] = [];
      let page = await list(`?${query}&limit=1`);
      for (;;) {
        expect(page.total).toBe(all.length);
        walked.push(...page.traces.map((t) => t.trace_id));
        if (!page.next_cursor) break;
        page = await list(`?${query}&limit=1&cursor=${page.next_cursor}`);
      }
      expect(walked, query).toEqual(all);
    }
  });

  it('lists each trace with its scores: the latest value and the count per name', async () => {
    const page = await list('');
    const byId = new Map(page.traces.map((t) => [t.trace_id, t.scores]));
    expect(byId.get('f-a')).toEqual([{ name: 'quality', value: 0.9, count: 2 }]);
    expect(byId.get('f-b')).toEqual([{ name: 'quality', value: 0.3, count: 1 }]);
    expect(byId.get('f-c')).toEqual([{ name: 'helpfulness', value: 0.1, count: 1 }]);
    expect(byId.get('f-d')).toEqual([]);
  });

  it('rejects bad filter values with 422 naming each parameter', async () => {
    const cases: Array<[string, string[]]> = [
      ['component_type=widget', ['component_type']],
      ['min_duration_ms=-1', ['min_duration_ms']],
      ['min_duration_ms=1.5', ['min_duration_ms']],
      ['has_errors=maybe', ['has_errors']],
      ['score_name=quality', ['score_below']],
      ['score_below=0.5', ['score_name']],
      ['score_name=quality&score_below=2', ['score_below']],
      ['search=', ['search']],
      [`search=${'x'.repeat(257)}`, ['search']],
      [`model=${'m'.repeat(257)}`, ['model']],
    ];
    for (const [query, fields] of cases) {
      const res = await svc.api(`/api/traces?${query}`, { project });
      expect(res.status, query).toBe(422);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.details.map((d) => d.field).sort(), query).toEqual(fields);
    }
  });
});

describe('search over many traces', () => {
  const many = 'project-search-window';
  it(`reads span contents of the newest ${TRACE_SEARCH_WINDOW} traces only, says so, and still matches older traces by name`, async () => {
    // The oldest trace has the word in a span's input; its name matches another word.
    const old = trace('w-old', 0, 100, [{ type: 'tool', input: 'needle in the oldest trace' }], { name: 'oldest-haystack' });
    expect((await svc.api('/api/traces/ingest', { method: 'POST', json: old, project: many })).status).toBe(201);
    const bodies = Array.from({ length: TRACE_SEARCH_WINDOW }, (_, i) =>
      trace(`w-${i}`, 1 + i / 1000, 10, [{ type: 'tool', input: i === 7 ? 'a needle here' : 'hay' }]),
    );
    for (let i = 0; i < bodies.length; i += 25) {
      const chunk = bodies.slice(i, i + 25);
      const answers = await Promise.all(chunk.map((b) => svc.api('/api/traces/ingest', { method: 'POST', json: b, project: many })));
      for (const res of answers) expect(res.status).toBe(201);
    }
    const res = await svc.api('/api/traces?search=needle', { project: many });
    const found = (await res.json()) as TraceList;
    // w-old is the 1,001st newest: its spans are not read.
    expect(found.traces.map((t) => t.trace_id)).toEqual(['w-7']);
    expect(found.search_truncated).toBe(true);
    // By name it is found, wherever it is.
    const byName = (await (await svc.api('/api/traces?search=haystack', { project: many })).json()) as TraceList;
    expect(byName.traces.map((t) => t.trace_id)).toEqual(['w-old']);
    // Narrowed by time, the window reaches it.
    const narrowed = (await (
      await svc.api(`/api/traces?search=needle&end_time=${new Date(base + 30_000).toISOString()}`, { project: many })
    ).json()) as TraceList;
    expect(narrowed.traces.map((t) => t.trace_id)).toEqual(['w-old']);
    expect(narrowed.search_truncated).toBe(false);
  }, 180_000);
});
