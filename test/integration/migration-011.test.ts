import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord, TraceHeader } from '../../core/model/span.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import type { RowBatch } from '../../core/model/span.js';
import { agentStepSpan } from '../helpers/agent-step-span.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';

// Migration 011: a write's summaries fold into trace_stats row by row, without the view's GROUP BY.
// What the GROUP BY did must still hold when one insert carries several summaries of one trace (the
// batcher puts many requests in one insert, and a trace's spans arrive over several of them): one
// summary that counts every span once, the newest header wins, a retried span counts once. Tried on
// a store of the release before (upgraded in place) with the corpus's texts.
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

const BOT = { agent: 'research-agent', service: 'research-bot' };

/** Span `i` of trace `traceId` (test/helpers/agent-step-span.ts), in session conv-7 unless `over` says otherwise. */
const span = (traceId: string, spanId: string, i: number, over: Partial<SpanRecord> = {}): SpanRecord =>
  agentStepSpan(traceId, spanId, i, BOT, { attributes: { 'gen_ai.request.model': 'gpt-4o', 'session.id': 'conv-7', 'user.id': 'u-1' }, ...over });

function header(traceId: string, name: string, status: TraceHeader['status']): TraceHeader {
  return { project_id: 'p', trace_id: traceId, name, status, start_time: Date.now() - 60_000, duration_ms: 9_000, attributes: { release: name } };
}

/** Several requests' rows in one insert, as the batcher joins them. */
function oneInsert(...batches: RowBatch[]): RowBatch {
  return { spans: batches.flatMap((b) => b.spans), stats: batches.flatMap((b) => b.stats) };
}

describe('migration 011: summaries folded row by row', () => {
  it('folds several summaries of one trace in one insert, before and after the upgrade, into one that counts every span once', async () => {
    const { later, upgrade } = await clickhouseBefore(ch, '011_trace_stats_fold_per_row');
    const store = createAnalyticsStore(ch);
    // Before the upgrade: the root and a generation (the view still groups).
    await store.writeRows(encodeRowBatch([span('t-a', 's0', 0), span('t-a', 's1', 1)], [header('t-a', 'first name', 'ok')]));

    expect(await upgrade()).toEqual(later);
    const [{ query }] = await (
      await ch.client.query({
        query: "SELECT create_table_query AS query FROM system.tables WHERE database = 'agent_eval' AND name = 'trace_stats_fold_writes'",
        format: 'JSONEachRow',
      })
    ).json<{ query: string }>();
    expect(query).not.toMatch(/GROUP BY/);

    // After: one insert carries three requests' rows for t-a (a retried s1, a failed s2, a newer
    // header) and one for t-b, interleaved as the batcher would.
    const failed = span('t-a', 's2', 2, { status: 'error', status_message: 'tool timed out\n\nretrying' });
    await store.writeRows(
      oneInsert(
        encodeRowBatch([span('t-a', 's1', 1)]),
        encodeRowBatch([span('t-b', 'b0', 0, { attributes: { 'session.id': 'conv-8' } })]),
        encodeRowBatch([failed], [header('t-a', 'second name', 'error')]),
        encodeRowBatch([span('t-a', 's3', 3)]),
      ),
    );

    const a = await store.getTrace('p', 't-a');
    expect(a).toMatchObject({
      name: 'second name',
      status: 'error',
      span_count: 4,
      error_count: 1,
      llm_call_count: 3,
      total_input_tokens: 200 + 300 + 400,
      total_output_tokens: 20 + 30 + 40,
      session_id: 'conv-7',
      user_id: 'u-1',
    });
    expect(a?.attributes).toMatchObject({ release: 'second name' });
    expect(a?.spans.find((s) => s.span_id === 's2')?.status_message).toBe('tool timed out\n\nretrying');
    expect((await store.getSpan('p', 's3'))?.output).toBe(span('t-a', 's3', 3).output);
    expect(await store.getTrace('p', 't-b')).toMatchObject({ name: 'research-agent', span_count: 1, session_id: 'conv-8' });

    // The list, before and after the parts merge: each trace once, with its counts.
    const listed = async () => (await store.listTraces('p', { limit: 10, offset: 0 })).traces.map((t) => [t.trace_id, t.span_count, t.name]).sort();
    const expected = [
      ['t-a', 4, 'second name'],
      ['t-b', 1, 'research-agent'],
    ];
    expect(await listed()).toEqual(expected);
    await ch.client.command({ query: 'OPTIMIZE TABLE agent_eval.trace_stats FINAL' });
    expect(await listed()).toEqual(expected);
  });
});
