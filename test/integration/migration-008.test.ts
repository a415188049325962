import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../core/model/span.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { agentStepSpan, corpusSpanTexts } from '../helpers/agent-step-span.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';

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

const BOT = { agent: 'support-agent', service: 'support-bot' };

/** Span `i` of the upgraded trace (test/helpers/agent-step-span.ts). */
const span = (spanId: string, i: number, over: Partial<SpanRecord> = {}): SpanRecord => agentStepSpan('t-upgrade', spanId, i, BOT, over);

describe('migration 008 on a store of the previous release', () => {
  it('keeps folding a trace written before the upgrade, counting every span once', async () => {
    expect(corpusSpanTexts.some((t) => t.includes('\n\n'))).toBe(true);
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
