import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrowColumns, openBinaryInserts, rowBinaryBody, type BinaryInserts } from '../../bench/binary-inserts.js';
import type { SpanRecord } from '../../core/model/span.js';
import type { AnalyticsStore } from '../../core/store/analytics.js';
import type { ClickHouse } from '../../core/store/clickhouse/client.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { texts } from '../fixtures/corpus/texts.js';
import { openMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { shortHostileTexts, textOf } from '../helpers/corpus.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { chatSpan } from '../helpers/span-record.js';

/**
 * The binary encodings that bench/insert-format.ts measures against the write path's TabSeparated
 * rows (RowBinary through a file, Arrow columns) store exactly what the write path stores: the
 * same spans, written once each way into the real `write_rows` and its views, read back equal,
 * span by span and trace summary by trace summary, over arbitrary Unicode (lone surrogates as
 * U+FFFD), NUL, blank lines, `\N`, maps with hostile keys and the corpus' texts. So the bench
 * compares like with like, and a binary write path built on these encoders starts from a proven
 * round trip.
 *
 * A process of its own (not in test/shared-process-files.ts): it opens a second native chDB
 * session through chDB's loader, beside the store's, which is process-wide native state. In CI's
 * shared worker, after other files' chDB sessions, one run of it never returned (stop 45).
 */

let ch: ClickHouse;
let store: AnalyticsStore;
let binary: BinaryInserts;

beforeAll(async () => {
  const dir = makeDataDir();
  ({ ch, store } = await openMigratedClickHouse(dir));
  binary = openBinaryInserts(path.join(dir, 'clickhouse'));
});
afterAll(async () => {
  binary?.close();
  await ch?.close();
});

const PIECES = ['\n', '\n\n', '\r\n', '\t', '\\', '\\N', 'NULL', "'", '"', '{', '}', ':', ',', '\u0000', '\u2028', '👩\u200d💻', 'שלום', ' ', 'a'];
const anyText = textOf(PIECES, [...shortHostileTexts(), ...Object.values(texts)], { maxLength: 20, maxPieces: 10 });
const textMap = fc
  .uniqueArray(fc.tuple(anyText, anyText), { maxLength: 4, selector: ([k]) => k.toWellFormed() })
  .map((entries) => Object.fromEntries(entries) as Record<string, string>);

const generated = fc.record({
  name: anyText,
  status_message: anyText,
  input: anyText,
  output: anyText,
  model: anyText.map((m) => m.trim() || null),
  scope_name: anyText,
  attributes: textMap,
  resource_attributes: textMap,
  input_tokens: fc.nat({ max: 1_000_000 }),
  cost: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
});

type GeneratedFields = typeof generated extends fc.Arbitrary<infer T> ? T : never;

let seq = 0;
/** The generated fields as the `i`th span of trace `trace` (each starting later: the first is the root), priced when `cost` is set. */
function span(trace: string, g: GeneratedFields, i: number): SpanRecord {
  const { cost, ...fields } = g;
  return chatSpan(Date.UTC(2026, 10, 28, 12, 0, 0, 123) + i * 10, {
    ...fields,
    trace_id: trace,
    span_id: `s-${++seq}`,
    ...(cost === undefined ? {} : { pricing: { cost: { input: cost / 2, output: cost / 2, cached_input: 0, total: cost, version: 'v1' } } }),
  } as Partial<SpanRecord>);
}

/** A stored span without its ids, which differ by way of writing. */
async function storedSpan(s: SpanRecord) {
  const view = await store.getSpan(s.project_id, s.span_id);
  expect(view).not.toBeNull();
  return { ...view!, span_id: undefined, trace_id: undefined };
}

async function storedTrace(project: string, trace: string) {
  const t = await store.getTrace(project, trace);
  expect(t).not.toBeNull();
  return { ...t!, trace_id: undefined, spans: undefined, spans_next_cursor: undefined };
}

describe('binary write rows (bench encoders) through the real store', () => {
  it('store what the TabSeparated write stores, byte for byte, for any text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(generated, { minLength: 1, maxLength: 4 }), async (gs) => {
        const run = ++seq;
        const tsv = gs.map((g, i) => span(`tsv-${run}`, g, i));
        const rowBinary = gs.map((g, i) => span(`rb-${run}`, g, i));
        const arrow = gs.map((g, i) => span(`arrow-${run}`, g, i));
        await store.writeRows(encodeRowBatch(tsv));
        await binary.rowBinaryFile('agent_eval.write_rows', rowBinaryBody(rowBinary));
        await binary.arrow('agent_eval.write_rows', arrowColumns(arrow));
        for (let i = 0; i < gs.length; i++) {
          const expected = await storedSpan(tsv[i]);
          // The write path's own round trip: what was sent, lone surrogates as U+FFFD.
          expect(expected.input).toBe(gs[i].input.toWellFormed());
          expect(expected.attributes).toEqual(Object.fromEntries(Object.entries(gs[i].attributes).map(([k, v]) => [k.toWellFormed(), v.toWellFormed()])));
          expect(await storedSpan(rowBinary[i])).toEqual(expected);
          expect(await storedSpan(arrow[i])).toEqual(expected);
        }
        const summary = await storedTrace('p', `tsv-${run}`);
        expect(await storedTrace('p', `rb-${run}`)).toEqual(summary);
        expect(await storedTrace('p', `arrow-${run}`)).toEqual(summary);
      }),
      // A run that does not finish (a native insert that never returns) fails with its seed and
      // inputs at once, instead of shrinking until the test's own timeout says nothing.
      { numRuns: 25, timeout: 60_000, endOnFailure: true },
    );
  }, 240_000);
});
