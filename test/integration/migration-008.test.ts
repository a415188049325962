import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../core/model/span.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { loadCorpus } from '../helpers/corpus.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { spanRecord } from '../helpers/span-record.js';

// A store of the previous release (migrations up to 007: a write's summaries pass through
// trace_stats_input) is upgraded in place to 008 (they fold straight into trace_stats). A trace
// written before the upgrade and continued after it has one summary that counts every span once,
// with the texts of real agent traffic (the corpus's multi-paragraph answers, hostile strings).
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

const corpusTexts = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .flatMap((s) => [s.input, s.output])
  .filter((v): v is string => typeof v === 'string' && v.length > 0);

function span(spanId: string, i: number, over: Partial<SpanRecord> = {}): SpanRecord {
  const start = Date.now() - 60_000 + i * 1_000;
  return spanRecord({
    trace_id: 't-upgrade',
    span_id: spanId,
    parent_span_id: i === 0 ? null : 's0',
    name: i === 0 ? 'support-agent' : `step ${i}`,
    span_type: i === 0 ? 'span' : 'generation',
    component_type: i === 0 ? null : 'generation',
    kind: 'client',
    start_time: start,
    end_time: start + 500,
    duration_ms: 500,
    model: 'gpt-4o',
    input: corpusTexts[(2 * i) % corpusTexts.length],
    output: corpusTexts[(2 * i + 1) % corpusTexts.length],
    input_tokens: 100 * (i + 1),
    output_tokens: 10 * (i + 1),
    attributes: { 'gen_ai.request.model': 'gpt-4o', 'user.id': 'u-1' },
    resource_attributes: { 'service.name': 'support-bot' },
    scope_name: 'otel',
    scope_version: '1',
    ...over,
  });
}

describe('migration 008 on a store of the previous release', () => {
  it('keeps folding a trace written before the upgrade, counting every span once', async () => {
    expect(corpusTexts.some((t) => t.includes('\n\n'))).toBe(true);
    const { later, upgrade } = await clickhouseBefore(ch, '008_trace_stats_fold_writes');

    const store = createAnalyticsStore(ch);
    // Before the upgrade: the root and one generation, through 007's views.
    await store.writeRows(encodeRowBatch([span('s0', 0), span('s1', 1)]));
    // Read as that release stored it (today's reads expect the columns of later migrations).
    const before = await (
      await ch.client.query({
        query: "SELECT length(maxMap(span_stats).1) AS spans, min(root).4 AS name FROM agent_eval.trace_stats WHERE trace_id = 't-upgrade'",
        format: 'JSONEachRow',
      })
    ).json();
    expect(before).toEqual([{ spans: 2, name: 'support-agent' }]);

    expect(await upgrade()).toEqual(later);
    const views = await (
      await ch.client.query({
        query: "SELECT name FROM system.tables WHERE database = 'agent_eval' AND engine = 'MaterializedView' ORDER BY name",
        format: 'JSONEachRow',
      })
    ).json<{ name: string }>();
    expect(views.map((v) => v.name)).toEqual(['spans_from_writes', 'trace_stats_fold_writes', 'trace_stats_from_input']);

    // After: s1 re-sent (a retry), s2 new and failed.
    await store.writeRows(encodeRowBatch([span('s1', 1), span('s2', 2, { status: 'error', status_message: 'tool timed out\n\nretrying' })]));
    const after = await store.getTrace('p', 't-upgrade');
    expect(after).toMatchObject({
      name: 'support-agent',
      status: 'error',
      span_count: 3,
      error_count: 1,
      llm_call_count: 2,
      total_input_tokens: 200 + 300,
      total_output_tokens: 20 + 30,
    });
    expect(after?.attributes).toMatchObject({ 'service.name': 'support-bot' });
    // The texts are stored whole on both sides of the upgrade.
    expect((await store.getSpan('p', 's1'))?.output).toBe(span('s1', 1).output);
    expect((await store.getSpan('p', 's2'))?.input).toBe(span('s2', 2).input);

    // The list sees the one trace, once, after its states merge.
    await ch.client.command({ query: 'OPTIMIZE TABLE agent_eval.trace_stats FINAL' });
    const list = await store.listTraces('p', { limit: 10, offset: 0 });
    expect(list.traces.map((t) => [t.trace_id, t.span_count])).toEqual([['t-upgrade', 3]]);
  });
});
