import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { SpanRecord } from '../../core/model/span.js';
import type { TraceListItem } from '../../core/model/trace.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { texts } from '../fixtures/corpus/texts.js';
import { useMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { spanRecord } from '../helpers/span-record.js';

// The traces list's newest page with no filter (GET /api/traces bare) is read from the project's
// newest summary rows instead of merging every trace (core/store/clickhouse/trace-page-sql.ts,
// newestCandidateRowsSql). A trace's rows carry the start of their own write only, so what must
// hold: a trace continued long after it started stays at its start; a trace streamed in many small
// writes (as many rows) does not crowd the others out; traces that started in the same millisecond
// keep the list's order (id) across pages; the total counts each trace once. Checked against the
// order a user expects (newest start first, then id), through every page by cursor and by offset.
const { ch, store } = useMigratedClickHouse();
const corpus = Object.values(texts);
const minute = 60_000;

interface TraceSpec {
  id: string;
  start: number;
  /** A later write of the trace: a tool span this long after its start. */
  continuedAfter?: number;
  /** The trace is streamed: this many further writes of one span each, the newest rows of the store. */
  streamed?: number;
}

function span(project: string, t: TraceSpec, spanId: string, start: number, i: number, over: Partial<SpanRecord> = {}): SpanRecord {
  return spanRecord({
    project_id: project,
    trace_id: t.id,
    span_id: spanId,
    parent_span_id: spanId === 'root' ? null : 'root',
    name: spanId === 'root' ? `research ${t.id}` : `step ${spanId}`,
    span_type: spanId === 'root' ? 'span' : 'generation',
    component_type: spanId === 'root' ? null : 'generation',
    start_time: start,
    end_time: start + 800,
    duration_ms: 800,
    model: spanId === 'root' ? null : 'gpt-4o',
    input: corpus[i % corpus.length],
    output: corpus[(i * 7 + 3) % corpus.length],
    ...over,
  });
}

/**
 * Writes the traces as agents do: roots 50 to an insert, continuations later, streamed spans one
 * write each. Merges wait meanwhile, as on a busy store, so each write stays a row of its own.
 */
async function write(project: string, traces: TraceSpec[]): Promise<void> {
  await ch.client.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });
  try {
    await writeEach(project, traces);
  } finally {
    await ch.client.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
  }
}

async function writeEach(project: string, traces: TraceSpec[]): Promise<void> {
  for (let i = 0; i < traces.length; i += 50) {
    await store.writeRows(encodeRowBatch(traces.slice(i, i + 50).map((t, j) => span(project, t, 'root', t.start, i + j))));
  }
  const continued = traces.filter((t) => t.continuedAfter !== undefined);
  for (let i = 0; i < continued.length; i += 50) {
    await store.writeRows(
      encodeRowBatch(continued.slice(i, i + 50).map((t, j) => span(project, t, 'later', t.start + t.continuedAfter!, j, { span_type: 'tool', model: null }))),
    );
  }
  for (const t of traces) {
    for (let k = 0; k < (t.streamed ?? 0); k++) await store.writeRows(encodeRowBatch([span(project, t, `stream-${k}`, Date.now() - 30_000 + k, k)]));
  }
}

/** The list's order as a user reads it: newest start first, then trace id, descending. */
function expectedOrder(traces: TraceSpec[]): string[] {
  return [...traces].sort((a, b) => b.start - a.start || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((t) => t.id);
}

async function walkByCursor(project: string, limit: number): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let last: TraceListItem | undefined;
  for (let guard = 0; guard < 1_000; guard++) {
    const page = await store.listTraces(project, {
      limit,
      offset: 0,
      ...(last ? { cursor: { startMs: Date.parse(last.start_time), traceId: last.trace_id } } : {}),
    });
    ids.push(...page.traces.map((t) => t.trace_id));
    totals.push(page.total);
    if (page.next_cursor === null) return { ids, totals };
    last = page.traces.at(-1);
  }
  throw new Error('the cursor walk did not end');
}

describe('traces list, newest first with no filter, at scale', () => {
  it('keeps continued, streamed and same-millisecond traces in order through every page', async () => {
    const project = 'newest-fixed';
    const base = Date.now() - 3 * 60 * minute;
    const traces: TraceSpec[] = Array.from({ length: 260 }, (_, i) => ({
      id: `tr-${String(i).padStart(3, '0')}`,
      // Four traces start in each millisecond.
      start: base + Math.floor(i / 4) * 1_000,
      ...(i % 10 === 0 ? { continuedAfter: 2 * 60 * minute } : {}),
    }));
    // The oldest trace, still running: 250 writes of one span each, the newest rows of all.
    traces.push({ id: 'tr-stream', start: base - 60 * minute, streamed: 250 });
    await write(project, traces);
    const expected = expectedOrder(traces);
    expect(expected.at(-1)).toBe('tr-stream');

    const first = await store.listTraces(project, { limit: 50, offset: 0, previews: true });
    expect(first.traces.map((t) => t.trace_id)).toEqual(expected.slice(0, 50));
    expect(first.total).toBe(261);
    expect(first.next_cursor).not.toBeNull();
    // The page shows each trace's own summary: the continued one counts both spans.
    expect(first.traces.find((t) => t.trace_id === 'tr-250')).toMatchObject({ span_count: 2, name: 'research tr-250' });

    for (const limit of [50, 7]) {
      const walk = await walkByCursor(project, limit);
      expect(walk.ids).toEqual(expected);
      expect(new Set(walk.totals)).toEqual(new Set([261]));
    }
    for (const offset of [50, 200, 255, 261, 400]) {
      const page = await store.listTraces(project, { limit: 50, offset });
      expect(page.traces.map((t) => t.trace_id)).toEqual(expected.slice(offset, offset + 50));
      expect(page.total).toBe(261);
    }
    const streamed = await store.listTraces(project, { limit: 1, offset: 260 });
    expect(streamed.traces[0]).toMatchObject({ trace_id: 'tr-stream', span_count: 251 });

    // Oldest first merges every trace (the general page): the same traces, reversed.
    const oldest = await store.listTraces(project, { limit: 300, offset: 0, sort: { by: 'time', order: 'asc' } });
    expect(oldest.traces.map((t) => t.trace_id)).toEqual([...expected].reverse());

    // After the parts merge, the same first page.
    await ch.client.command({ query: 'OPTIMIZE TABLE agent_eval.trace_stats FINAL' });
    expect((await store.listTraces(project, { limit: 50, offset: 0 })).traces.map((t) => t.trace_id)).toEqual(expected.slice(0, 50));
  });

  it('orders traces that all started in the same millisecond by id, more of them than the rows it reads first', async () => {
    const start = Date.now() - 10 * minute;
    // Ids in no order, so the rows that come first among equal starts are not the page's.
    const traces: TraceSpec[] = Array.from({ length: 300 }, (_, i) => ({ id: `same-${String((i * 7919) % 300).padStart(3, '0')}`, start }));
    await write('newest-ties', traces);
    const expected = expectedOrder(traces);
    const first = await store.listTraces('newest-ties', { limit: 50, offset: 0 });
    expect(first.traces.map((t) => t.trace_id)).toEqual(expected.slice(0, 50));
    expect(first.total).toBe(300);
    expect((await walkByCursor('newest-ties', 64)).ids).toEqual(expected);
  });

  it('pages any mix of starts, continuations and streamed traces in the order a user expects (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            second: fc.integer({ min: 0, max: 40 }),
            continued: fc.boolean(),
            streamed: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
          }),
          {
            minLength: 150,
            maxLength: 230,
          },
        ),
        fc.integer({ min: 1, max: 60 }),
        async (shape, limit) => {
          const project = `newest-prop-${run++}`;
          const base = Date.now() - 2 * 60 * minute;
          const traces: TraceSpec[] = shape.map((s, i) => ({
            id: `t-${i}`,
            start: base + s.second * 1_000,
            ...(s.continued ? { continuedAfter: 90 * minute } : {}),
            ...(s.streamed ? { streamed: s.streamed } : {}),
          }));
          await write(project, traces);
          const walk = await walkByCursor(project, limit);
          expect(walk.ids).toEqual(expectedOrder(traces));
          expect(new Set(walk.totals)).toEqual(new Set([traces.length]));
        },
      ),
      { numRuns: 3 },
    );
  });
});
