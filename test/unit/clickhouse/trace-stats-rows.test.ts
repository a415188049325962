import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../../core/model/span.js';
import { createTraceStatsRows } from '../../../core/store/clickhouse/trace-stats-rows.js';
import { agentText, wellFormed } from '../../helpers/corpus.js';
import { spanRecord } from '../../helpers/span-record.js';

const T = 1_700_000_000_000;

const span = (id: string, extra: Partial<SpanRecord> = {}): SpanRecord =>
  spanRecord({
    span_id: id,
    parent_span_id: 'root',
    name: `op-${id}`,
    start_time: T,
    end_time: T + 10,
    duration_ms: 10,
    model: 'm',
    input_tokens: 3,
    output_tokens: 1,
    resource_attributes: { 'service.name': 'svc' },
    ...extra,
  });

type StatsRow = {
  root: [number, number, string, string, string];
  span_stats: [string[], number[], number[], number[]];
  min_start: number;
  max_end: number;
  has_error: number;
};
const parse = (rows: string[]) => rows.map((r) => JSON.parse(r) as StatsRow);

describe('trace_stats_input rows', () => {
  it('sum up a write per trace: time range, error, the root that names it, and each span keyed by id', () => {
    const stats = createTraceStatsRows();
    stats.add(span('b', { start_time: T + 5, status: 'error', span_type: 'tool', input_tokens: 0, output_tokens: 0 }));
    stats.add(span('root', { parent_span_id: null, start_time: T + 1, end_time: T + 99, name: 'agent' }));
    stats.add(span('a'));
    const [row] = parse(stats.rows());
    expect(row).toMatchObject({ min_start: T, max_end: T + 99, has_error: 1 });
    expect(row.root).toEqual([0, T + 1, 'root', 'agent', '{"service.name":"svc"}']);
    expect(row.span_stats).toEqual([
      ['b', 'root', 'a'],
      [1 | 2 | 4, 1 | 8, 1 | 8],
      [0, 3, 3],
      [0, 1, 1],
    ]);
  });

  it('stay small whatever the spans hold: long ids split a trace over rows, a huge resource keeps its service attributes', () => {
    const stats = createTraceStatsRows();
    const huge = { 'service.name': 'svc', 'process.command_args': 'x'.repeat(100_000) };
    for (let i = 0; i < 300; i++)
      stats.add(span(`${'s'.repeat(100)}${i}`, { parent_span_id: i === 0 ? null : 'root', name: 'n'.repeat(50_000), resource_attributes: huge }));
    const rows = stats.rows();
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows) expect(Buffer.byteLength(r)).toBeLessThan(16_384);
    expect(parse(rows).flatMap((r) => r.span_stats[0])).toHaveLength(300);
    const [first] = parse(rows);
    expect(first.root[3]).toHaveLength(1024);
    expect(first.root[4]).toBe('{"service.name":"svc"}');
  });
  it("stay small and keep the root's name and service for any text agents send (corpus, fast-check)", () => {
    fc.assert(
      fc.property(agentText(), agentText(), fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1, maxLength: 30 }), (name, service, ids) => {
        const stats = createTraceStatsRows();
        stats.add(span('root', { parent_span_id: null, name, resource_attributes: { 'service.name': service } }));
        ids.forEach((id, i) => stats.add(span(`${i}:${id}`)));
        const rows = stats.rows();
        for (const r of rows) expect(Buffer.byteLength(r)).toBeLessThan(16_384);
        const parsed = parse(rows);
        expect(parsed.flatMap((r) => r.span_stats[0])).toHaveLength(ids.length + 1);
        const root = parsed.find((r) => r.root[2] === 'root')!.root;
        // Stored text is well-formed: a lone surrogate of the name is U+FFFD there.
        expect(wellFormed(name).startsWith(root[3])).toBe(true);
        expect(root[3].length).toBe(Math.min(name.length, 1024));
      }),
      { numRuns: 60 },
    );
  });
});
