import path from 'node:path';
import { decodeProtobufRequest } from '../collector/otlp/decode-protobuf.js';
import { normalizeSpan } from '../collector/normalize/index.js';
import { createLogger } from '../core/logger.js';
import type { SpanRecord } from '../core/model/span.js';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../core/store/clickhouse/migration-target.js';
import { spanRowCodec } from '../core/store/clickhouse/row-codec.js';
import type { ArrowColumn } from './arrow-columns.js';
import { arrowColumns, openBinaryInserts, rowBinaryBody } from './binary-inserts.js';
import { WRITE_ROWS, type RowFormat } from '../core/store/clickhouse/rows.js';
import { spanWriteRows, statsWriteRows } from '../core/store/clickhouse/write-rows.js';
import { migrate } from '../core/store/migrations.js';
import { makeDataDir } from '../test/helpers/data-dir.js';
import { longAnswer, texts } from '../test/fixtures/corpus/texts.js';
import { median, round } from './lib.js';
import { buildPayload, stamp } from './otlp-payloads.js';

export interface InsertFormatOptions {
  spansPerBatch: number;
  rounds: number;
  /** Put one ~600 KB answer in every batch (the corpus' long RAG summary). */
  longAnswer: boolean;
}

/**
 * TabSeparated against binary formats (RowBinary, Arrow) for the write path's one insert (`write_rows` and its two views),
 * in this process, on realistic agent spans: the bench's OTLP agent spans (500 per export, 10 per
 * trace) through decode and normalize, their input and output replaced by the corpus' texts
 * (multi-paragraph markdown, code fences, emoji, Hebrew, CRLF, pretty JSON; with `longAnswer`
 * one 600 KB answer per batch). Cases, interleaved per round (the order reversed every other round):
 * - `tsv`: today's insert (TabSeparated lines of WRITE_COLUMNS, chDB's raw insert);
 * - `rowbinary_file`: the same rows as RowBinary written to a tmpfs file, then
 *   `INSERT INTO write_rows SELECT * FROM file(..., RowBinary)` (inline binary data would be cut by
 *   chDB at a `\n\n`: bench/row-binary.ts);
 * - `arrow`: the same rows as Arrow columns registered with chDB, then `INSERT INTO write_rows SELECT
 *   ... FROM arrowstream(...)` (maps as JSON text, bench/arrow-columns.ts);
 * - `idle`: 50 ms with no insert, for the CPU the engine's background merges take meanwhile (in every case's figure);
 * - `tsv_no_optimize_on_insert`, `tsv_one_thread`, `tsv_serial_views`: today's insert with
 *   `optimize_on_insert = 0`, `max_threads = 1`, `parallel_view_processing = 0` (fixed costs tried);
 * - `parse_tsv`, `parse_rowbinary_file`, `parse_arrow`: the same into a Null copy of `write_rows` with no view,
 *   so the difference is the parsing alone.
 * `bodies_with_blank_line` counts the RowBinary bodies that hold `\n\n` (chDB could not take them inline).
 * Encoding is timed apart (JS, main thread), the insert as wall and process CPU (`process.cpuUsage`:
 * chDB's threads count). Run: `npm run bench -- insert-format [--runs N] [--spans N (per batch, 500)] [--cases long-answer]`.
 */
export async function benchInsertFormat(opts: InsertFormatOptions) {
  const dir = makeDataDir('agent-eval-bench-format-');
  const ch = await connectClickHouse({ dataDir: dir });
  const binary = openBinaryInserts(path.join(dir, 'clickhouse'));
  try {
    await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
    await ch.client.command({ query: 'CREATE TABLE agent_eval.write_rows_parse_only AS agent_eval.write_rows ENGINE = Null' });
    const corpus = Object.values(texts);
    const template = buildPayload({ spansPerPayload: opts.spansPerBatch, spansPerTrace: 10, seed: 1 });

    /** A fresh batch of spans (new ids) with the corpus' texts. */
    function spans(): SpanRecord[] {
      const out = decodeProtobufRequest(stamp(template).bytes).map((raw) => normalizeSpan(raw, 'bench'));
      out.forEach((s, i) => {
        s.input = corpus[i % corpus.length];
        s.output = opts.longAnswer && i === 1 ? longAnswer() : corpus[(i * 7 + 3) % corpus.length];
      });
      return out;
    }
    function tsvBody(batch: SpanRecord[]): Buffer {
      const rows = spanRowCodec.encodeBatch(batch);
      return Buffer.from([...rows.spans.map(spanWriteRows), ...rows.stats.map(statsWriteRows)].join('\n'));
    }
    // The store's tables merge a block's rows of one key as they write it; later merges do it anyway.
    const NO_OPTIMIZE_ON_INSERT: RowFormat = { ...WRITE_ROWS, settings: { ...WRITE_ROWS.settings, optimize_on_insert: 0 } };
    // Fixed costs tried: one pipeline thread (fewer threads started per insert), the views one after the other.
    const ONE_THREAD: RowFormat = { ...WRITE_ROWS, settings: { ...WRITE_ROWS.settings, max_threads: 1, max_insert_threads: 1 } };
    const SERIAL_VIEWS: RowFormat = { ...WRITE_ROWS, settings: { ...WRITE_ROWS.settings, parallel_view_processing: 0 } };
    const insertTsv = (table: string, body: Buffer) => ch.insertRows(table, WRITE_ROWS, body);
    const insertFile = (table: string, body: Buffer) => binary.rowBinaryFile(table, body);
    const insertArrow = (table: string, columns: ArrowColumn[]) => binary.arrow(table, columns);
    const arrowBytes = (columns: ArrowColumn[]) => columns.reduce((n, c) => n + c.buffers.reduce((m, b) => m + (b?.length ?? 0), 0), 0);

    const cases: Record<string, { encode: (b: SpanRecord[]) => Buffer | ArrowColumn[]; insert: (body: never) => Promise<unknown> }> = {
      arrow: { encode: arrowColumns, insert: (columns: ArrowColumn[]) => insertArrow('agent_eval.write_rows', columns) },
      parse_arrow: { encode: arrowColumns, insert: (columns: ArrowColumn[]) => insertArrow('agent_eval.write_rows_parse_only', columns) },
      tsv: { encode: tsvBody, insert: (body) => insertTsv('agent_eval.write_rows', body) },
      // No insert, as long as one: what the engine's background work (merges) costs the process meanwhile.
      idle: { encode: () => Buffer.alloc(0), insert: () => new Promise((resolve) => setTimeout(resolve, 50)) },
      tsv_one_thread: { encode: tsvBody, insert: (body) => ch.insertRows('agent_eval.write_rows', ONE_THREAD, body) },
      tsv_serial_views: { encode: tsvBody, insert: (body) => ch.insertRows('agent_eval.write_rows', SERIAL_VIEWS, body) },
      tsv_no_optimize_on_insert: { encode: tsvBody, insert: (body) => ch.insertRows('agent_eval.write_rows', NO_OPTIMIZE_ON_INSERT, body) },
      rowbinary_file: { encode: rowBinaryBody, insert: (body) => insertFile('agent_eval.write_rows', body) },
      parse_tsv: { encode: tsvBody, insert: (body) => insertTsv('agent_eval.write_rows_parse_only', body) },
      parse_rowbinary_file: { encode: rowBinaryBody, insert: (body) => insertFile('agent_eval.write_rows_parse_only', body) },
    };
    const samples: Record<string, { encode: number[]; wall: number[]; cpu: number[]; bytes: number[] }> = {};

    let binaryWithBlankLine = 0;
    for (let r = 0; r < opts.rounds; r++) {
      const names = r % 2 === 0 ? Object.keys(cases) : Object.keys(cases).reverse();
      for (const name of names) {
        const c = cases[name];
        const batch = spans();
        const e0 = process.cpuUsage();
        const body = c.encode(batch);
        const e = process.cpuUsage(e0);
        if (c.encode === rowBinaryBody && Buffer.isBuffer(body) && body.includes('\n\n')) binaryWithBlankLine++;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await c.insert(body as never);
        const wall = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        const s = (samples[name] ??= { encode: [], wall: [], cpu: [], bytes: [] });
        s.encode.push((e.user + e.system) / 1000);
        s.wall.push(wall);
        s.cpu.push((cpu.user + cpu.system) / 1000);
        s.bytes.push(Buffer.isBuffer(body) ? body.length : arrowBytes(body));
      }
    }
    const [{ n }] = (await (await ch.client.query({ query: 'SELECT count() AS n FROM agent_eval.spans', format: 'JSONEachRow' })).json()) as [{ n: string }];
    const perCase = Object.fromEntries(
      Object.entries(samples).map(([name, s]) => [
        name,
        {
          rounds: s.wall.length,
          body_mb: round(median(s.bytes) / 1e6, 2),
          encode_cpu_ms: round(median(s.encode), 1),
          insert_wall_ms: round(median(s.wall), 1),
          insert_cpu_ms: round(median(s.cpu), 1),
          insert_cpu_us_per_span: round((median(s.cpu) * 1000) / opts.spansPerBatch, 1),
        },
      ]),
    );
    const ratio = (a: string, b: string) => (samples[a] && samples[b] ? round(median(samples[a].cpu) / median(samples[b].cpu), 2) : null);
    return {
      phase: 'insert-format',
      spans_per_batch: opts.spansPerBatch,
      long_answer: opts.longAnswer,
      spans_stored: Number(n),
      bodies_with_blank_line: binaryWithBlankLine,
      ...perCase,
      insert_cpu_ratio: {
        rowbinary_file_to_tsv: ratio('rowbinary_file', 'tsv'),
        parse_rowbinary_file_to_tsv: ratio('parse_rowbinary_file', 'parse_tsv'),
        arrow_to_tsv: ratio('arrow', 'tsv'),
        tsv_one_thread_to_tsv: ratio('tsv_one_thread', 'tsv'),
        tsv_serial_views_to_tsv: ratio('tsv_serial_views', 'tsv'),
        tsv_no_optimize_on_insert_to_tsv: ratio('tsv_no_optimize_on_insert', 'tsv'),
        parse_arrow_to_tsv: ratio('parse_arrow', 'parse_tsv'),
      },
    };
  } finally {
    binary.close();
    await ch.close();
  }
}
