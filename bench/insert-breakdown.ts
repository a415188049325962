import { createIngest } from '../collector/ingest.js';
import { decodeProtobufRequest } from '../collector/otlp/decode-protobuf.js';
import type { SpanSink } from '../collector/sink.js';
import { createLogger } from '../core/logger.js';
import type { RowBatch } from '../core/model/span.js';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { SPAN_COLUMNS, SPAN_ROWS, STATS_ROWS, WRITE_ROWS, type RowFormat, type SpanColumn } from '../core/store/clickhouse/rows.js';
import { spanWriteRows, statsWriteRows } from '../core/store/clickhouse/write-rows.js';
import { clickhouseMigrationTarget } from '../core/store/clickhouse/migration-target.js';
import { migrate } from '../core/store/migrations.js';
import { tsvFields } from '../test/helpers/tsv-rows.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { median, round } from './lib.js';
import { buildPayload, stamp } from './otlp-payloads.js';

export interface InsertBreakdownOptions {
  /** OTLP exports of 500 agent spans per batch: what one insert of the write path carries (~4 under load). */
  exportsPerBatch: number;
  rounds: number;
}

/** Columns blanked before parsing, to read what each costs ClickHouse: the difference to the whole row. */
const BLANKED: Record<string, SpanColumn[]> = {
  input_output: ['input', 'output'],
  maps: ['attributes', 'resource_attributes'],
};

/** The span rows (TabSeparated of SPAN_COLUMNS) with those columns emptied. */
function blank(lines: string[], columns: readonly SpanColumn[]): string[] {
  const at = new Set(columns.map((c) => SPAN_COLUMNS.indexOf(c)));
  return lines.map((line) =>
    tsvFields(line)
      .map((f, i) => (at.has(i) ? (f.startsWith('{') ? '{}' : '') : f))
      .join('\t'),
  );
}

/**
 * Where ClickHouse's CPU goes when the write path inserts a batch of agent spans (chDB
 * in-process, the service's own insert path: `ClickHouse.insertRows`). Rows come from the real
 * ingest path (bench OTLP exports -> decode -> normalize -> encode). Per round, interleaved:
 * - `parse`: the batch's span rows into a Null-engine copy of `spans` (TabSeparated parsing only);
 *   `parse_blank_<cols>`: the same with those columns emptied, so the difference is their share;
 * - `spans`: the rows into `spans` (parse, sort, compress, write and fsync a part);
 * - `stats`: the batch's `trace_stats_input` rows (the materialized view folds them into `trace_stats`);
 * - `*_fixed`: one row into each, the cost every insert pays whatever its size.
 * CPU is the process's (`process.cpuUsage`, chDB's threads included), median over rounds.
 * Run: `npm run bench -- insert-breakdown [--runs N]`.
 */
export async function benchInsertBreakdown(opts: InsertBreakdownOptions) {
  const dir = makeDataDir('agent-eval-bench-breakdown-');
  const ch = await connectClickHouse({ dataDir: dir });
  try {
    await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
    await ch.client.command({ query: 'CREATE TABLE agent_eval.spans_parse_only AS agent_eval.spans ENGINE = Null' });
    const templates = [0, 1, 2, 3].map((seed) => buildPayload({ spansPerPayload: 500, spansPerTrace: 10, seed }));
    const written: RowBatch[] = [];
    const sink: SpanSink = {
      write: (rows) => (written.push(rows), Promise.resolve()),
      admit() {},
      close: () => Promise.resolve(),
      stats: () => ({ kind: 'direct', pendingSpans: 0, pendingBytes: 0 }),
    };
    const ingest = createIngest(sink, { maxSpanBytes: 1 << 20 });
    /** A fresh batch (new ids) as the write path would insert it. */
    async function batch(): Promise<RowBatch> {
      written.length = 0;
      for (let i = 0; i < opts.exportsPerBatch; i++) await ingest('bench', decodeProtobufRequest(stamp(templates[i % templates.length]).bytes));
      return { spans: written.flatMap((w) => w.spans), stats: written.flatMap((w) => w.stats) };
    }
    const body = (lines: string[]) => Buffer.from(lines.join('\n'));
    const writeLines = (b: RowBatch) => [...b.spans.map(spanWriteRows), ...b.stats.map(statsWriteRows)];
    const SERIAL_VIEWS: RowFormat = { ...WRITE_ROWS, settings: { ...WRITE_ROWS.settings, parallel_view_processing: 0 } };
    const cases: Record<string, (b: RowBatch) => { table: string; format?: RowFormat; rows: Buffer }> = {
      parse: (b) => ({ table: 'agent_eval.spans_parse_only', rows: body(b.spans) }),
      ...Object.fromEntries(
        Object.entries(BLANKED).map(([name, cols]) => [
          `parse_blank_${name}`,
          (b: RowBatch) => ({ table: 'agent_eval.spans_parse_only', rows: body(blank(b.spans, cols)) }),
        ]),
      ),
      spans: (b) => ({ table: 'agent_eval.spans', rows: body(b.spans) }),
      stats: (b) => ({ table: 'agent_eval.trace_stats_input', format: STATS_ROWS, rows: body(b.stats) }),
      spans_fixed: (b) => ({ table: 'agent_eval.spans', rows: body(b.spans.slice(0, 1)) }),
      stats_fixed: (b) => ({ table: 'agent_eval.trace_stats_input', format: STATS_ROWS, rows: body(b.stats.slice(0, 1)) }),
      write: (b) => ({ table: 'agent_eval.write_rows', format: WRITE_ROWS, rows: body(writeLines(b)) }),
      write_serial_views: (b) => ({ table: 'agent_eval.write_rows', format: SERIAL_VIEWS, rows: body(writeLines(b)) }),
      write_fixed: (b) => ({
        table: 'agent_eval.write_rows',
        format: WRITE_ROWS,
        rows: body(writeLines({ spans: b.spans.slice(0, 1), stats: b.stats.slice(0, 1) })),
      }),
    };
    const cpuMs: Record<string, number[]> = {};
    const wallMs: Record<string, number[]> = {};
    let spansPerBatch = 0;
    let statsPerBatch = 0;
    let bytesPerSpan = 0;
    for (let r = 0; r < opts.rounds; r++) {
      const names = r % 2 === 0 ? Object.keys(cases) : Object.keys(cases).reverse();
      for (const name of names) {
        const b = await batch();
        spansPerBatch = b.spans.length;
        statsPerBatch = b.stats.length;
        const { table, format = SPAN_ROWS, rows } = cases[name](b);
        if (name === 'spans') bytesPerSpan = rows.length / b.spans.length;
        const before = process.cpuUsage();
        const start = performance.now();
        await ch.insertRows(table, format, rows);
        (wallMs[name] ??= []).push(performance.now() - start);
        const used = process.cpuUsage(before);
        (cpuMs[name] ??= []).push((used.user + used.system) / 1000);
      }
    }
    const ms = (name: string) => median(cpuMs[name]);
    const perSpan = (name: string) => round((ms(name) * 1000) / spansPerBatch, 1);
    return {
      phase: 'insert-breakdown',
      spans_per_batch: spansPerBatch,
      stats_rows_per_batch: statsPerBatch,
      bytes_per_span_row: Math.round(bytesPerSpan),
      cpu_us_per_span: {
        parse: perSpan('parse'),
        ...Object.fromEntries(Object.keys(BLANKED).map((name) => [`parse_of_${name}`, round(perSpan('parse') - perSpan(`parse_blank_${name}`), 1)])),
        spans_insert: perSpan('spans'),
        stats_insert: perSpan('stats'),
      },
      cpu_ms_per_insert: {
        spans: round(ms('spans'), 1),
        stats: round(ms('stats'), 1),
        spans_one_row: round(ms('spans_fixed'), 2),
        stats_one_row: round(ms('stats_fixed'), 2),
        write: round(ms('write'), 1),
        write_serial_views: round(ms('write_serial_views'), 1),
        write_one_span: round(ms('write_fixed'), 2),
      },
      wall_ms_per_insert: Object.fromEntries(Object.keys(wallMs).map((name) => [name, round(median(wallMs[name]), 1)])),
    };
  } finally {
    // The data dir goes with the invocation's (bench/run.ts): removed between runs, it would slow the next run's inserts.
    await ch.close();
  }
}
