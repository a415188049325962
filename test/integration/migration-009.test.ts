import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { loadCorpus } from '../helpers/corpus.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { spanRecord } from '../helpers/span-record.js';

// A store of the previous release (migrations up to 008: no sessions) is upgraded to 009: the
// traces it holds get their session and user ids from their stored spans (the backfill), by the
// same rule the collector uses, and later writes of those traces keep them.
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

const text = loadCorpus().json[0].body.spans.find((s) => typeof s.output === 'string' && s.output.includes('\n\n'))?.output as string;

describe('migration 009 on a store of the previous release', () => {
  it('finds the sessions of the traces it already holds', async () => {
    expect(text).toContain('\n\n');
    const { later, upgrade } = await clickhouseBefore(ch, '009_trace_sessions');

    const store = createAnalyticsStore(ch);
    const start = Date.now() - 600_000;
    const at = (i: number) => ({ start_time: start + i * 60_000, end_time: start + i * 60_000 + 1000, output: text });
    await store.writeRows(
      encodeRowBatch([
        // Span attributes (Langfuse), the resource (OpenInference), an unusable id, none at all.
        spanRecord({ trace_id: 't1', span_id: 'a', ...at(0), attributes: { 'langfuse.session.id': 'conv-old', 'langfuse.user.id': 'ann' } }),
        spanRecord({ trace_id: 't2', span_id: 'b', ...at(1), resource_attributes: { 'service.name': 'bot', 'session.id': 'conv-old' } }),
        spanRecord({ trace_id: 't3', span_id: 'c', ...at(2), attributes: { 'session.id': 'bad\nid' } }),
        spanRecord({ trace_id: 't4', span_id: 'd', ...at(3) }),
      ]),
    );

    const lastStored = async () =>
      await (
        await ch.client.query({
          query:
            "SELECT trace_id, toString(max(last_stored)) AS at FROM agent_eval.trace_stats WHERE trace_id IN ('t1', 't2', 't3', 't4') GROUP BY trace_id ORDER BY trace_id",
          format: 'JSONEachRow',
        })
      ).json();
    const storedBefore = await lastStored();
    expect(storedBefore).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 20));
    expect(await upgrade()).toEqual(later);
    const trace = async (id: string) => {
      const t = await store.getTrace('p', id);
      return t && { session_id: t.session_id, user_id: t.user_id, span_count: t.span_count };
    };
    expect(await trace('t1')).toEqual({ session_id: 'conv-old', user_id: 'ann', span_count: 1 });
    expect(await trace('t2')).toEqual({ session_id: 'conv-old', user_id: null, span_count: 1 });
    expect(await trace('t3')).toEqual({ session_id: null, user_id: null, span_count: 1 });
    expect(await trace('t4')).toEqual({ session_id: null, user_id: null, span_count: 1 });

    // A later turn of the old session, written after the upgrade, joins it.
    await store.writeRows(encodeRowBatch([spanRecord({ trace_id: 't5', span_id: 'e', ...at(4), attributes: { 'gen_ai.conversation.id': 'conv-old' } })]));
    const session = await store.sessions.getSession('p', 'conv-old');
    expect(session?.traces.map((t) => t.trace_id)).toEqual(['t1', 't2', 't5']);
    expect(session).toMatchObject({ trace_count: 3, user_ids: ['ann'] });
    expect(session?.traces[0].output).toBe(text.length > 4096 ? session?.traces[0].output : text);
    // The backfill did not present old traces to online rules again: their last write time is as it was.
    expect(await lastStored()).toEqual(storedBefore);
  });
});
