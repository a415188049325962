import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord, TraceHeader } from '../../core/model/span.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { TRACE_SUMMARIES, TRACE_SUMMARY } from '../../core/store/clickhouse/trace-stats-sql.js';
import { TRACE_ID_BLOOM } from '../../core/store/clickhouse/trace-id-bloom.js';
import { spanPageSql } from '../../core/store/clickhouse/span-page-sql.js';
import { agentStepSpan } from '../helpers/agent-step-span.js';
import { clickhouseBefore } from '../helpers/clickhouse-store.js';
import { makeDataDir } from '../helpers/data-dir.js';

// Migration 012: a bloom filter on trace_id in spans and trace_stats, so a trace's reads skip the
// parts that do not hold it. A store of the release before (traces written in many inserts, so many
// parts, merges held back) is upgraded in place: every trace reads back as before the upgrade, and
// the parts written before it get the filter (chDB runs the mutation as the migration applies it).
// Traces written after it, a part per five, are read by the trace page skipping the other parts'
// granules (what EXPLAIN says ClickHouse reads); a read of many traces leaves the filter alone.
let ch: ClickHouse;

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

const BOT = { agent: 'support-agent', service: 'support-bot' };
/** Inserts (parts) on each side of the upgrade, and traces per insert. */
const INSERTS = 12;
const PER_INSERT = 5;

/** Trace `n`: a root and three LLM calls with the corpus's texts, a header naming it; its id as random as an SDK's. */
function trace(n: number): { spans: SpanRecord[]; header: TraceHeader } {
  const id = createHash('md5').update(`trace ${n}`).digest('hex');
  const spans = [0, 1, 2, 3].map((i) => agentStepSpan(id, `s${i}`, i + n, BOT));
  return {
    spans,
    header: {
      project_id: 'p',
      trace_id: id,
      name: `ticket ${n} 🎫`,
      status: n % 5 === 0 ? 'error' : 'ok',
      start_time: Date.now() - 60_000,
      duration_ms: 4_000,
      attributes: { queue: 'billing' },
    },
  };
}

async function rows<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return (await ch.client.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
}

/** Granules ClickHouse reads for `sql` (EXPLAIN indexes = 1) after its table's primary key, and after the trace id's filter (NaN when not used). */
async function granulesRead(sql: string, params: Record<string, unknown>): Promise<{ primaryKey: number; filtered: number }> {
  const plan = (await rows<{ explain: string }>(`EXPLAIN indexes = 1 ${sql}`, params)).map((r) => r.explain.replace(/^[\s│├└─]+/, '').trim());
  const granules = (name: string) => {
    const at = plan.findIndex((l) => l === name || l === `Name: ${name}`);
    if (at < 0) return NaN;
    return Number(/Granules: (\d+)/.exec(plan.slice(at).find((l) => l.startsWith('Granules:')) ?? '')?.[1]);
  };
  return { primaryKey: granules('PrimaryKey'), filtered: granules(TRACE_ID_BLOOM) };
}

describe('migration 012 on a store of the release before', () => {
  it('keeps every trace readable, gives old parts the filter, and then reads skip the parts without the trace', async () => {
    const { later, upgrade } = await clickhouseBefore(ch, '012_trace_id_bloom');
    await ch.client.command({ query: 'SYSTEM STOP MERGES agent_eval.spans' });
    await ch.client.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });
    const store = createAnalyticsStore(ch);
    // Several traces per insert, one part each: every part's key range spans the others' ids.
    const write = async (traces: Array<ReturnType<typeof trace>>) => {
      for (let i = 0; i < traces.length; i += PER_INSERT) {
        const some = traces.slice(i, i + PER_INSERT);
        await store.writeRows(
          encodeRowBatch(
            some.flatMap((t) => t.spans),
            some.map((t) => t.header),
          ),
        );
      }
    };
    const before = [...Array(INSERTS * PER_INSERT).keys()].map(trace);
    await write(before);
    const read = async (traceId: string) => {
      const detail = await store.getTrace('p', traceId);
      return detail && { ...detail, spans: detail.spans.map((s) => ({ id: s.span_id, input: s.input, output: s.output, status: s.status })) };
    };
    const stored = await Promise.all(before.map((t) => read(t.header.trace_id)));
    expect(stored.every((d) => d?.spans.length === 4)).toBe(true);

    // chDB runs the migration's mutations (the old parts' filters) as it applies them: merges must run.
    await ch.client.command({ query: 'SYSTEM START MERGES agent_eval.spans' });
    await ch.client.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
    expect(await upgrade()).toEqual(later);
    for (const t of ['spans', 'trace_stats']) {
      expect(
        await rows(`SELECT name, type FROM system.data_skipping_indices WHERE database = 'agent_eval' AND table = {t:String} AND name = 'trace_id_bloom'`, {
          t,
        }),
      ).toEqual([{ name: 'trace_id_bloom', type: 'bloom_filter' }]);
      // Every part, the ones written before the upgrade included, has its filter.
      const unfiltered = await rows(
        `SELECT name FROM system.parts WHERE database = 'agent_eval' AND table = {t:String} AND active AND secondary_indices_uncompressed_bytes = 0`,
        { t },
      );
      expect(unfiltered, t).toEqual([]);
    }
    expect(await Promise.all(before.map((t) => read(t.header.trace_id)))).toEqual(stored);
    await ch.client.command({ query: 'SYSTEM STOP MERGES agent_eval.spans' });
    await ch.client.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });

    const after = [...Array(INSERTS * PER_INSERT).keys()].map((k) => trace(INSERTS * PER_INSERT + k));
    await write(after);
    expect(await Promise.all(before.map((t) => read(t.header.trace_id)))).toEqual(stored);
    for (const t of after) expect((await read(t.header.trace_id))?.spans.map((s) => s.id)).toEqual(['s0', 's1', 's2', 's3']);

    // What ClickHouse reads for one trace written since (a part each, merges held back): by the primary
    // key a granule in most parts; after the filter, about its own.
    const parts = await rows<{ table: string; n: string | number }>(
      `SELECT table, count() AS n FROM system.parts WHERE database = 'agent_eval' AND active AND table IN ('spans', 'trace_stats') GROUP BY table`,
    );
    for (const p of parts) expect(Number(p.n), p.table).toBeGreaterThanOrEqual(INSERTS);
    // The trace page's two reads use the filter; a read of many traces (a list page's summaries) does not.
    for (const t of [after[3], after[38]]) {
      const id = t.header.trace_id;
      for (const [what, sql, params] of [
        ['summary', TRACE_SUMMARY, { project: 'p', traces: [id] }],
        ['span page', spanPageSql('whole'), { project: 'p', trace: id, cap: 100, limit: 1001 }],
      ] as const) {
        const g = await granulesRead(sql, params);
        expect(g.primaryKey, what).toBeGreaterThanOrEqual(INSERTS / 2);
        expect(g.filtered, what).toBeLessThanOrEqual(2);
      }
      const many = await granulesRead(TRACE_SUMMARIES, { project: 'p', traces: [id, after[0].header.trace_id] });
      expect(many.primaryKey).toBeGreaterThanOrEqual(INSERTS / 2);
      expect(many.filtered).toBeNaN();
    }
    await ch.client.command({ query: 'SYSTEM START MERGES agent_eval.spans' });
    await ch.client.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
  });
});
