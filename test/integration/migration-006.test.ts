import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../core/model/span.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { SPAN_ROWS, STATS_ROWS } from '../../core/store/clickhouse/rows.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { chatSpan } from '../helpers/span-record.js';

// A store of the previous release (migrations up to 005: attribute keys LowCardinality) is
// upgraded in place: the spans it holds keep their attributes (read whole and by key,
// `attributes['k']`), and new spans are written with the new key type.
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

function span(traceId: string, spanId: string, attributes: Record<string, string>): SpanRecord {
  return chatSpan(Date.now() - 60_000, {
    trace_id: traceId,
    span_id: spanId,
    attributes,
    resource_attributes: { 'service.name': 'support-bot', 'deployment.environment.name': 'prod' },
  });
}

const columnTypes = async () =>
  Object.fromEntries(
    (
      await (
        await ch.client.query({
          query: "SELECT name, type FROM system.columns WHERE database = 'agent_eval' AND table = 'spans' AND name IN ('attributes', 'resource_attributes')",
          format: 'JSONEachRow',
        })
      ).json<{ name: string; type: string }>()
    ).map((c) => [c.name, c.type]),
  );

describe('migration 006 on a store of the previous release', () => {
  it('changes the attribute keys to String and keeps every stored attribute readable', async () => {
    const { later, upgrade } = await clickhouseBefore(ch, '006_span_attribute_keys');
    expect(await columnTypes()).toEqual({ attributes: 'Map(LowCardinality(String), String)', resource_attributes: 'Map(LowCardinality(String), String)' });

    const store = createAnalyticsStore(ch);
    const old = { 'gen_ai.request.model': 'gpt-4o', 'user.id': 'u-old', 'ключ ✓': 'значение' };
    // Written as the previous release wrote: span rows, then their summaries (write_rows came with 007).
    const previous = encodeRowBatch([span('t-old', 's-old', old)]);
    await ch.insertRows('agent_eval.spans', SPAN_ROWS, Buffer.from(previous.spans.join('\n')));
    await ch.insertRows('agent_eval.trace_stats_input', STATS_ROWS, Buffer.from(previous.stats.join('\n')));

    expect(await upgrade()).toEqual(later);
    expect(await columnTypes()).toEqual({ attributes: 'Map(String, String)', resource_attributes: 'Map(String, String)' });

    await store.writeRows(encodeRowBatch([span('t-new', 's-new', { 'gen_ai.request.model': 'gpt-4o', 'user.id': 'u-new' })]));
    expect((await store.getSpan('p', 's-old'))?.attributes).toEqual(old);
    expect((await store.getSpan('p', 's-old'))?.resource_attributes).toEqual({ 'service.name': 'support-bot', 'deployment.environment.name': 'prod' });
    expect((await store.getSpan('p', 's-new'))?.attributes).toEqual({ 'gen_ai.request.model': 'gpt-4o', 'user.id': 'u-new' });
    // A trace's attributes come from its root span's resource, through the summary states.
    expect((await store.getTrace('p', 't-old'))?.attributes).toMatchObject({ 'service.name': 'support-bot' });

    // Old and new parts merge into one of the new type, with nothing lost.
    await ch.client.command({ query: 'OPTIMIZE TABLE agent_eval.spans FINAL' });
    const rows = await (
      await ch.client.query({ query: "SELECT span_id, attributes['user.id'] AS user FROM agent_eval.spans ORDER BY span_id", format: 'JSONEachRow' })
    ).json();
    expect(rows).toEqual([
      { span_id: 's-new', user: 'u-new' },
      { span_id: 's-old', user: 'u-old' },
    ]);
  });
});
