import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../collector/batcher.js';
import { createLogger } from '../../core/logger.js';
import type { RowBatch, SpanRecord } from '../../core/model/span.js';
import { SPAN_ROWS } from '../../core/store/clickhouse/rows.js';
import { createBatchWriter } from '../../core/store/clickhouse/batch-writer.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { useMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { chatSpan } from '../helpers/span-record.js';

// All or nothing (issue 25): a write's spans and its trace summaries are stored together or not at
// all, against the real store. A refusal of either table leaves nothing of the write behind: no
// list entry, no span count, no spans a later write of the trace would bring to light.
const { ch, store } = useMigratedClickHouse();

let seq = 0;
function span(trace: string, fields: Partial<SpanRecord> = {}): SpanRecord {
  seq++;
  return chatSpan(Date.now() - 60_000, {
    trace_id: trace,
    span_id: `s-${seq}`,
    name: 'chat gpt-4o',
    input: 'What is the capital of France?\n\nAnswer briefly.',
    output: 'Paris.\n\nIt has been the capital since 987.',
    input_tokens: 12,
    output_tokens: 9,
    attributes: { 'gen_ai.system': 'openai' },
    resource_attributes: { 'service.name': 'bot' },
    ...fields,
  });
}

/** A row the store refuses for its data: one column short. */
const BROKEN_SPAN_ROW = 'p\tbroken-trace\tbroken-span';
const BROKEN_STATS_ROW = '{"project_id":"p","trace_id":"x","min_start":"not a time"}';

async function failure(p: Promise<unknown>): Promise<{ status?: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { status?: number; message: string };
  }
  throw new Error('expected the write to fail');
}

describe('a write is stored whole or not at all', () => {
  it('stores no summary when the store refuses the spans', async () => {
    const s = span('t-spans-refused');
    const rows = encodeRowBatch([s]);
    const err = await failure(store.writeRows({ spans: [...rows.spans, BROKEN_SPAN_ROW], stats: rows.stats }));
    expect(err.status).toBe(400);
    expect(await store.getTrace('p', 't-spans-refused')).toBeNull();
    expect(await store.getSpan('p', s.span_id)).toBeNull();
    const list = await store.listTraces('p', { limit: 100, offset: 0 });
    expect(list.traces.map((t) => t.trace_id)).not.toContain('t-spans-refused');
  });

  it('removes the spans it stored when the store then refuses their summaries', async () => {
    const spans = [span('t-stats-refused'), span('t-stats-refused', { parent_span_id: 'x' })];
    const rows = encodeRowBatch(spans);
    const err = await failure(store.writeRows({ spans: rows.spans, stats: [...rows.stats, BROKEN_STATS_ROW] }));
    expect(err.status).toBe(400);
    for (const s of spans) expect(await store.getSpan('p', s.span_id)).toBeNull();
    // A later good write of another span of the trace brings nothing of the refused write to light.
    const later = span('t-stats-refused');
    await store.writeRows(encodeRowBatch([later]));
    const trace = (await store.getTrace('p', 't-stats-refused'))!;
    expect(trace.span_count).toBe(1);
    expect(trace.spans.map((x) => x.span_id)).toEqual([later.span_id]);
  });

  it('keeps the version of a span stored before when a refused write of it is undone', async () => {
    const first = span('t-undo-keeps', { output: 'First answer.\n\nStored.' });
    await store.writeRows(encodeRowBatch([first]));
    const again = encodeRowBatch([{ ...first, output: 'Second answer, refused.' }]);
    expect((await failure(store.writeRows({ spans: again.spans, stats: [...again.stats, BROKEN_STATS_ROW] }))).status).toBe(400);
    expect((await store.getSpan('p', first.span_id))?.output).toBe('First answer.\n\nStored.');
    expect((await store.getTrace('p', 't-undo-keeps'))?.span_count).toBe(1);
  });

  it('refuses insert data with an empty line whole, instead of storing the rows before it', async () => {
    const [a, b] = [span('t-empty-line'), span('t-empty-line')];
    const rows = encodeRowBatch([a, b]);
    const body = Buffer.from(`${rows.spans[0]}\n\n${rows.spans[1]}`);
    const err = await failure(ch.insertRows('agent_eval.spans', SPAN_ROWS, body));
    expect(err.message).toMatch(/empty line/);
    expect(await store.getSpan('p', a.span_id)).toBeNull();
    expect(await store.getSpan('p', b.span_id)).toBeNull();
  });

  it('fails only the write at fault in a shared batch, and leaves nothing of it', async () => {
    const sink = createBatcher({ writer: store, maxSpans: 10_000, maxWaitMs: 50, maxPendingBytes: 1 << 24, logger: createLogger('silent') });
    const good = Array.from({ length: 5 }, (_, i) => span(`t-shared-good-${i}`));
    const bad = span('t-shared-bad');
    const badRows: RowBatch = encodeRowBatch([bad]);
    const results = await Promise.allSettled([
      ...good.map((s) => sink.write(encodeRowBatch([s]))),
      sink.write({ spans: badRows.spans, stats: [...badRows.stats, BROKEN_STATS_ROW] }),
    ]);
    await sink.close();
    expect(results.slice(0, 5).map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    expect(results[5].status).toBe('rejected');
    for (const s of good) expect((await store.getTrace('p', s.trace_id))?.span_count).toBe(1);
    expect(await store.getTrace('p', 't-shared-bad')).toBeNull();
    expect(await store.getSpan('p', bad.span_id)).toBeNull();
  });
});

describe('a write in parts', () => {
  it('removes the spans of the parts it stored when the store refuses a later part for its data', async () => {
    const writer = createBatchWriter(ch, { maxInsertBytes: 600, logger: createLogger('silent') });
    const spans = Array.from({ length: 4 }, () => span('t-parts-refused'));
    const rows = encodeRowBatch(spans);
    const err = await failure(writer.writeRows({ spans: [...rows.spans, BROKEN_SPAN_ROW], stats: rows.stats }));
    expect(err.status).toBe(400);
    for (const s of spans) expect(await store.getSpan('p', s.span_id)).toBeNull();
    expect(await store.getTrace('p', 't-parts-refused')).toBeNull();
  });

  it('stores a write cut into parts whole, with its summary', async () => {
    const writer = createBatchWriter(ch, { maxInsertBytes: 600, logger: createLogger('silent') });
    const spans = Array.from({ length: 4 }, (_, i) => span('t-parts-stored', i ? { parent_span_id: 'root' } : {}));
    await writer.writeRows(encodeRowBatch(spans));
    const trace = (await store.getTrace('p', 't-parts-stored'))!;
    expect(trace.span_count).toBe(4);
    expect(trace.spans.map((s) => s.output)).toEqual(Array(4).fill('Paris.\n\nIt has been the capital since 987.'));
  });
});
