import fc from 'fast-check';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { decodeExportCursor, encodeExportCursor, type ExportPosition } from '../../core/model/export.js';
import type { SpanRecord } from '../../core/model/span.js';
import { createExportReads } from '../../core/store/clickhouse/export-reads.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { hostileStrings } from '../fixtures/corpus/texts.js';
import { useMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { spanRecord } from '../helpers/span-record.js';

/**
 * Property: whatever well-formed text a span holds (graphemes, control characters, blank lines,
 * CR, LF, quotes, commas, the corpus' hostile strings), a span export gives it back unchanged in
 * JSON Lines (JSON.parse) and in CSV (csv-parse), and pages of any size cut no row: the rows
 * of every page, in order, are the rows written. Cursors round-trip for any ids.
 */
const { ch, store } = useMigratedClickHouse();

const hostile = hostileStrings()
  .filter((h) => h.wellFormed && h.text.length < 2000)
  .map((h) => h.text);
const PIECES = ['\n', '\r\n', '\r', '\n\n', '"', '""', ',', '\t', '\0', '\\', '🚀', 'שלום', ' ', 'a'];
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(fc.constantFrom(...PIECES), { maxLength: 20 }).map((p) => p.join('')),
  fc.constantFrom(...hostile),
);

let run = 0;

async function exported(
  project: string,
  format: 'jsonl' | 'csv',
  pageBytes: number,
): Promise<Array<{ span_id: string; input: string; output: string; name: string }>> {
  const reads = createExportReads(ch, pageBytes);
  const chunks: Buffer[] = [];
  for await (const c of (await reads.stream(project, { kind: 'spans', filters: {}, limit: 1000 }, format)).body) chunks.push(c);
  const body = Buffer.concat(chunks).toString('utf8');
  if (format === 'jsonl')
    return body === ''
      ? []
      : body
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as { span_id: string; input: string; output: string; name: string });
  return parseCsv(body, { columns: true });
}

describe('span export round trip (property)', () => {
  it('gives back every text, in JSON Lines and CSV, whatever the page size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text, text), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 20_000 }), async (texts, pageBytes) => {
        const project = `prop-${run++}`;
        const spans: SpanRecord[] = texts.map(([input, output, name], i) =>
          spanRecord({
            project_id: project,
            trace_id: 't',
            span_id: `s${String(i).padStart(2, '0')}`,
            start_time: Date.now(),
            end_time: Date.now() + 1,
            input,
            output,
            name,
          }),
        );
        await store.writeRows(encodeRowBatch(spans));
        for (const format of ['jsonl', 'csv'] as const) {
          const rows = await exported(project, format, pageBytes);
          expect(rows.map((r) => [r.input, r.output, r.name])).toEqual(texts);
          expect(rows.map((r) => r.span_id)).toEqual(spans.map((s) => s.span_id));
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('encodes and decodes every cursor, and refuses one of another kind', () => {
    const id = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 });
    const position: fc.Arbitrary<ExportPosition> = fc.oneof(
      fc.record({ kind: fc.constant('traces' as const), startMs: fc.integer({ min: 0, max: 2 ** 42 }), traceId: id }),
      fc.record({ kind: fc.constantFrom('spans' as const, 'scores' as const), traceId: id, id }),
    );
    fc.assert(
      fc.property(position, (p) => {
        expect(decodeExportCursor(encodeExportCursor(p))).toEqual(p);
      }),
    );
    expect(decodeExportCursor('not a cursor')).toBeUndefined();
    expect(decodeExportCursor(Buffer.from('["spans", "", "x"]').toString('base64url'))).toBeUndefined();
  });
});
