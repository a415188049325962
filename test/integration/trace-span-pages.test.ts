import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { texts as corpus } from '../fixtures/corpus/texts.js';

interface PageSpan {
  span_id: string;
  start_time: string;
  input: string;
  output: string;
  input_truncated?: boolean;
  output_truncated?: boolean;
}
interface TracePage {
  trace_id: string;
  name: string;
  span_count: number;
  spans: PageSpan[];
  spans_next_cursor: string | null;
}
interface ValidationBody {
  error: string;
  code: string;
  message: string;
  details: Array<{ field: string; message: string }>;
}

const SPANS = 12_000;
const TRACE = 'huge-trace';
const base = Date.now() - 3_600_000;

let svc: TestApi;

/** Span i starts at base + floor(i / 3) ms: three spans share each start, so span_id breaks ties. */
function span(i: number, start = base + Math.floor(i / 3)) {
  // Ids run against i within a tie, so ordering by id is visible.
  const id = `s-${String(SPANS - i).padStart(5, '0')}`;
  return { span_id: id, parent_span_id: i === 0 ? undefined : 's-12000', name: `step ${i}`, type: 'tool', start_time: start, end_time: start + 1 };
}

async function getPage(query: string): Promise<{ status: number; ms: number; body: TracePage }> {
  const t0 = performance.now();
  const res = await svc.api(`/api/traces/${TRACE}${query}`);
  const body = (await res.json()) as TracePage;
  return { status: res.status, ms: performance.now() - t0, body };
}

beforeAll(async () => {
  svc = await startTestApi();
  const all = Array.from({ length: SPANS }, (_, i) => span(i));
  // 10,000 spans is the most one request may carry: two requests, as a long-running agent would send.
  const first = await svc.api('/api/traces/ingest', {
    method: 'POST',
    json: { trace_id: TRACE, name: 'long-agent-run', status: 'ok', duration_ms: 5000, start_time: base, spans: all.slice(0, 6000) },
  });
  expect(first.status).toBe(201);
  const second = await svc.api('/api/spans', { method: 'POST', json: { trace_id: TRACE, spans: all.slice(6000) } });
  expect(second.status).toBe(201);
  // Re-sent spans 0..49 moved to after every other span: only their newest rows may count and place them.
  const moved = Array.from({ length: 50 }, (_, k) => span(k, base + SPANS + k));
  expect((await svc.api('/api/spans', { method: 'POST', json: { trace_id: TRACE, spans: moved } })).status).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

/** Every span once, in (start_time, span_id) order, as the server must page them. */
function expectedOrder(): string[] {
  const latest = new Map<string, number>();
  for (let i = 0; i < SPANS; i++) latest.set(span(i).span_id, span(i).start_time);
  for (let k = 0; k < 50; k++) latest.set(span(k).span_id, base + SPANS + k);
  return [...latest.entries()].sort(([a, ta], [b, tb]) => ta - tb || (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id);
}

describe('GET /api/traces/{id} on a trace of 12,000 spans', () => {
  it('answers fast with the first 1,000 spans, the span count and a cursor to the next page', async () => {
    await getPage(''); // warm-up: the first query of a fresh chDB loads its metadata
    const { status, ms, body } = await getPage('');
    expect(status).toBe(200);
    expect(body).toMatchObject({ trace_id: TRACE, name: 'long-agent-run', span_count: SPANS });
    expect(body.spans).toHaveLength(1000);
    expect(body.spans.map((s) => s.span_id)).toEqual(expectedOrder().slice(0, 1000));
    expect(typeof body.spans_next_cursor).toBe('string');
    console.info(`first page of ${SPANS} spans in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1000);
  });

  it('walks every span exactly once, in (start_time, span_id) order, with re-sent spans at their newest place', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?spans_limit=4000${cursor ? `&spans_cursor=${cursor}` : ''}`;
      const { status, body } = await getPage(query);
      expect(status).toBe(200);
      expect(body.spans.length).toBeLessThanOrEqual(4000);
      seen.push(...body.spans.map((s) => s.span_id));
      cursor = body.spans_next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    // 12,000 spans in pages of 4,000: the third page is full and still the last one.
    expect(pages).toBe(3);
    expect(seen).toEqual(expectedOrder());
    expect(new Set(seen).size).toBe(SPANS);
    expect(seen.slice(-50)).toEqual(Array.from({ length: 50 }, (_, k) => span(k).span_id));
  });

  it('serves the largest page, 10,000 spans, in one response', async () => {
    const { status, body } = await getPage('?spans_limit=10000');
    expect(status).toBe(200);
    expect(body.spans).toHaveLength(10_000);
    const rest = await getPage(`?spans_limit=10000&spans_cursor=${body.spans_next_cursor}`);
    expect(rest.body.spans).toHaveLength(SPANS - 10_000);
    expect(rest.body.spans_next_cursor).toBeNull();
  });

  it('rejects a page size outside 1..10000 and a cursor it did not issue with the SPEC 422 body', async () => {
    for (const [query, field] of [
      ['?spans_limit=0', 'spans_limit'],
      ['?spans_limit=10001', 'spans_limit'],
      ['?spans_limit=many', 'spans_limit'],
      ['?spans_cursor=not-a-cursor', 'spans_cursor'],
      [`?spans_cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'spans_cursor'],
    ]) {
      const res = await svc.api(`/api/traces/${TRACE}${query}`);
      expect(res.status, query).toBe(422);
      const body = (await res.json()) as ValidationBody;
      expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
      expect(body.details.map((d) => d.field)).toEqual([field]);
    }
  });
});

describe('span input and output in the trace view', () => {
  const CAP = 16_384;
  const at = base + 60_000;
  const io = (span_id: string, input: string, output = 'ok') => ({
    span_id,
    name: span_id,
    type: 'generation',
    start_time: at,
    end_time: at + 5,
    input,
    output,
  });

  beforeAll(async () => {
    const spans = [
      io('a-long-input', 'x'.repeat(20_000)),
      io('b-long-output', 'question', 'y'.repeat(100_000)),
      io('c-exactly-cap', 'z'.repeat(CAP)),
      // The cap falls right after a character outside the BMP: it is kept whole, never halved.
      io('d-emoji-at-cap', `${'e'.repeat(CAP - 1)}😀 and more`),
    ];
    const res = await svc.api('/api/traces/ingest', {
      method: 'POST',
      json: { trace_id: 'big-io', name: 'rag', status: 'ok', duration_ms: 5, start_time: at, spans },
    });
    expect(res.status).toBe(201);
  });

  it('cuts input and output longer than 16,384 characters and flags the cut', async () => {
    const res = await svc.api('/api/traces/big-io');
    const { spans } = (await res.json()) as TracePage;
    const byId = Object.fromEntries(spans.map((s) => [s.span_id, s]));
    expect(byId['a-long-input']).toMatchObject({ input: 'x'.repeat(CAP), input_truncated: true, output: 'ok', output_truncated: false });
    expect(byId['b-long-output']).toMatchObject({ input: 'question', input_truncated: false, output: 'y'.repeat(CAP), output_truncated: true });
    expect(byId['c-exactly-cap']).toMatchObject({ input: 'z'.repeat(CAP), input_truncated: false });
    expect(byId['d-emoji-at-cap']).toMatchObject({ input: `${'e'.repeat(CAP - 1)}😀`, input_truncated: true });
  });

  it('GET /api/spans/{id} returns the span whole', async () => {
    const long = (await (await svc.api('/api/spans/a-long-input')).json()) as PageSpan;
    expect(long.input).toBe('x'.repeat(20_000));
    expect(long).not.toHaveProperty('input_truncated');
    const output = (await (await svc.api('/api/spans/b-long-output')).json()) as PageSpan;
    expect(output.output).toHaveLength(100_000);
  });
});

describe('GET /api/traces/{id} on a trace that fits in one page', () => {
  const SMALL = 'support-run';
  const at = Date.now() - 1_800_000;
  const texts = [corpus.supportSystemPrompt, corpus.supportQuestion, corpus.orderLookupResult, corpus.supportAnswer, corpus.policyRefundsHebrew];
  const step = (i: number, start: number, output: string) => ({
    span_id: `step-${i}`,
    parent_span_id: i === 0 ? undefined : 'step-0',
    name: i === 0 ? 'support-agent' : `step ${i}`,
    type: i === 0 ? 'span' : 'tool',
    start_time: start,
    end_time: start + 50,
    input: texts[i],
    output,
  });

  beforeAll(async () => {
    const spans = Array.from({ length: 5 }, (_, i) => step(i, at + i * 100, texts[(i + 1) % texts.length]));
    const res = await svc.api('/api/traces/ingest', {
      method: 'POST',
      json: { trace_id: SMALL, name: 'support-agent', status: 'ok', duration_ms: 900, start_time: at, spans },
    });
    expect(res.status).toBe(201);
    // Steps 1 and 2 re-sent: moved after step 4, with new outputs. Only their newest rows may count.
    const resent = [step(1, at + 1_000, `${corpus.supportAnswer}\n\n(revised)`), step(2, at + 1_100, '')];
    expect((await svc.api('/api/spans', { method: 'POST', json: { trace_id: SMALL, spans: resent } })).status).toBe(201);
  });

  async function pageOf(query: string): Promise<TracePage> {
    const res = await svc.api(`/api/traces/${SMALL}${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as TracePage;
  }

  it('reads every span in one page, each at its newest place with its newest texts, and no cursor', async () => {
    for (const query of ['', '?spans_limit=5']) {
      const page = await pageOf(query);
      expect(page.span_count).toBe(5);
      expect(page.spans.map((s) => s.span_id)).toEqual(['step-0', 'step-3', 'step-4', 'step-1', 'step-2']);
      expect(page.spans_next_cursor).toBeNull();
      const byId = Object.fromEntries(page.spans.map((s) => [s.span_id, s]));
      expect(byId['step-1'].output).toBe(`${corpus.supportAnswer}\n\n(revised)`);
      expect(byId['step-2'].output).toBe('');
      expect(byId['step-4'].input).toBe(corpus.policyRefundsHebrew);
      expect(byId['step-0']).toMatchObject({ input: corpus.supportSystemPrompt, input_truncated: false, output_truncated: false });
    }
  });

  it('gives the same spans page by page as in one page', async () => {
    const whole = await pageOf('?spans_limit=5');
    const paged: PageSpan[] = [];
    let cursor: string | null = null;
    do {
      const page: TracePage = await pageOf(`?spans_limit=2${cursor ? `&spans_cursor=${cursor}` : ''}`);
      paged.push(...page.spans);
      cursor = page.spans_next_cursor;
    } while (cursor !== null && paged.length < 10);
    expect(paged).toEqual(whole.spans);
    // One span fewer than the trace holds: a cursor to the last one.
    const four = await pageOf('?spans_limit=4');
    expect(four.spans).toEqual(whole.spans.slice(0, 4));
    expect((await pageOf(`?spans_limit=4&spans_cursor=${four.spans_next_cursor}`)).spans).toEqual(whole.spans.slice(4));
  });
});
