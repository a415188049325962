import { describe, expect, it } from 'vitest';
import type { SpanRecord, SpanType, TraceHeader } from '../../core/model/span.js';
import { createBatchWriter } from '../../core/store/clickhouse/batch-writer.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { useMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { spanRecord } from '../helpers/span-record.js';

// Trace-level fields are derived inside ClickHouse (chDB), so this runs against the real engine.
const { ch, store } = useMigratedClickHouse();

// Recent: rows older than the retention (TTL) are dropped by ClickHouse on insert.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

function span(trace: string, id: string, parent: string | null, type: SpanType, start: number, end: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  return spanRecord({
    trace_id: trace,
    span_id: id,
    parent_span_id: parent,
    name: `op-${id}`,
    span_type: type,
    component_type: type === 'span' ? null : type,
    convention: 'spec',
    start_time: T0 + start,
    end_time: T0 + end,
    duration_ms: end - start,
    input_tokens: type === 'generation' ? 100 : 0,
    output_tokens: type === 'generation' ? 10 : 0,
    resource_attributes: { 'service.name': 'agent' },
    ...extra,
  });
}

const rows = (spans: SpanRecord[], traces: TraceHeader[] = []) => encodeRowBatch(spans, traces);
const write = (spans: SpanRecord[]) => store.writeRows(rows(spans));

describe('trace derivation', () => {
  it('derives name, times, counts and tokens whatever order spans arrive in', async () => {
    await write([span('d1', 'tool', 'root', 'tool', 300, 400)]);
    await write([span('d1', 'llm2', 'root', 'generation', 500, 900, { status: 'error', status_message: 'rate limited' })]);
    await write([span('d1', 'root', null, 'span', 0, 1000), span('d1', 'llm1', 'root', 'generation', 100, 200)]);
    const trace = await store.getTrace('p', 'd1');
    expect(trace).toMatchObject({
      name: 'op-root',
      status: 'error',
      duration_ms: 1000,
      span_count: 4,
      error_count: 1,
      llm_call_count: 2,
      tool_call_count: 1,
      total_input_tokens: 200,
      total_output_tokens: 20,
      attributes: { 'service.name': 'agent' },
    });
    expect(trace?.start_time).toBe(new Date(T0).toISOString());
  });

  it('counts a span delivered twice once, and takes its newest version', async () => {
    const first = span('d2', 'llm', null, 'generation', 0, 100);
    await write([first]);
    await write([first, { ...first, output_tokens: 55 }]);
    const trace = await store.getTrace('p', 'd2');
    expect(trace).toMatchObject({ span_count: 1, llm_call_count: 1, total_input_tokens: 100 });
    expect(trace?.spans).toHaveLength(1);
  });

  it("does not count wrapper spans' tokens: only generation spans add up", async () => {
    await write([span('d3', 'wrapper', null, 'span', 0, 100, { input_tokens: 100, output_tokens: 10 }), span('d3', 'call', 'wrapper', 'generation', 10, 90)]);
    expect(await store.getTrace('p', 'd3')).toMatchObject({ total_input_tokens: 100, total_output_tokens: 10, llm_call_count: 1 });
  });

  it('combines an explicit trace header with spans: header name wins, the time range widens', async () => {
    await store.writeRows(
      rows(
        [span('d4', 'root', null, 'span', 100, 300)],
        [{ project_id: 'p', trace_id: 'd4', name: 'checkout', status: 'ok', start_time: T0, duration_ms: 2000, attributes: { user: 'u7' } }],
      ),
    );
    expect(await store.getTrace('p', 'd4')).toMatchObject({
      name: 'checkout',
      duration_ms: 2000,
      span_count: 1,
      attributes: { 'service.name': 'agent', user: 'u7' },
    });
  });

  it("takes the newest explicit header, by the store's clock, whatever the spans say", async () => {
    const header = (name: string, status: 'ok' | 'error') => ({
      project_id: 'p',
      trace_id: 'd5',
      name,
      status,
      start_time: T0,
      duration_ms: 100,
      attributes: { v: name },
    });
    await store.writeRows(rows([span('d5', 'root', null, 'span', 0, 50)], [header('first', 'error')]));
    await store.writeRows(rows([], [header('second', 'ok')]));
    expect(await store.getTrace('p', 'd5')).toMatchObject({
      name: 'second',
      status: 'ok',
      duration_ms: 100,
      span_count: 1,
      attributes: { 'service.name': 'agent', v: 'second' },
    });
  });

  it('keeps projects apart', async () => {
    await write([span('shared-id', 'a', null, 'span', 0, 10)]);
    await store.writeRows(rows([{ ...span('shared-id', 'b', null, 'span', 0, 10), project_id: 'q' }]));
    expect((await store.getTrace('p', 'shared-id'))?.spans.map((s) => s.span_id)).toEqual(['a']);
    expect((await store.getTrace('q', 'shared-id'))?.spans.map((s) => s.span_id)).toEqual(['b']);
    expect(await store.getTrace('r', 'shared-id')).toBeNull();
  });

  it('two writers interleaving batches of one trace, one of them late with an older subset, converge on the whole trace', async () => {
    // Two independent batch writers, as two collectors or ingesters on one store. Nothing they
    // write carries a version: the summary is a merge of states, so no order can lose a span.
    const [a, b] = [createBatchWriter(ch), createBatchWriter(ch)];
    const all = Array.from({ length: 40 }, (_, i) =>
      i === 0
        ? span('w1', 'root', null, 'span', 0, 5000)
        : span('w1', `s${i}`, 'root', i % 2 ? 'generation' : 'tool', i * 10, i * 10 + 5, i === 7 ? { status: 'error' } : {}),
    );
    const batches = Array.from({ length: 8 }, (_, k) => all.filter((_, i) => i % 8 === k));
    await Promise.all(batches.map((batch, k) => (k % 2 ? a : b).writeRows(rows(batch))));
    // The late writer re-sends what it had seen long ago: the first three batches only.
    await a.writeRows(rows(batches.slice(0, 3).flat()));
    expect(await store.getTrace('p', 'w1')).toMatchObject({
      name: 'op-root',
      status: 'error',
      duration_ms: 5000,
      span_count: 40,
      error_count: 1,
      llm_call_count: 20,
      tool_call_count: 19,
      total_input_tokens: 2000,
      total_output_tokens: 200,
    });
  });
});
