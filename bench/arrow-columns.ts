import type { SpanRecord } from '../core/model/span.js';
import { wellFormedJson } from '../core/model/well-formed-json.js';
import { spanRow, SPAN_COLUMNS } from '../core/store/clickhouse/rows.js';
import { columnType } from './row-binary.js';

/**
 * A write's `write_rows` rows (migrations/clickhouse/007) as Arrow columns (the C Data Interface
 * descriptors chDB's `ArrowRegisterColumns` takes): each column one buffer of values, strings as
 * int32 offsets and their UTF-8 bytes, so ClickHouse reads them as they are, with no text to
 * parse and nothing inline in a statement (chDB ends inline insert data at `\n\n`, which a binary
 * body holds wherever a text has a blank line). Maps go as their JSON text, read with
 * `JSONExtract` in the insert's SELECT (chDB registers flat columns only).
 *
 * Measured against the TabSeparated rows of the write path (bench/insert-format.ts,
 * docs/benchmarks.md "A binary row format"); not yet the write path's encoding.
 */

/** One column as chDB's native `ArrowRegisterColumns` takes it. */
export interface ArrowColumn {
  name: string;
  format: string;
  length: number;
  nullCount: number;
  buffers: Array<Buffer | null>;
}

const COLUMNS = [...SPAN_COLUMNS, 'stats'] as const;
const kindOf = columnType;

/** Arrow utf8: offsets[n + 1] and the bytes of every value (lone surrogates as U+FFFD, as Buffer.write does). */
function utf8(values: string[]): Array<Buffer | null> {
  let bytes = 0;
  for (const v of values) bytes += v.length * 3;
  const data = Buffer.allocUnsafe(Math.max(1, bytes));
  const offsets = new Int32Array(values.length + 1);
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    offsets[i] = at;
    if (values[i].length) at += data.write(values[i], at, 'utf8');
  }
  offsets[values.length] = at;
  return [null, Buffer.from(offsets.buffer), data.subarray(0, at)];
}

function column(name: string, values: unknown[]): ArrowColumn {
  const length = values.length;
  switch (kindOf(name)) {
    case 'string':
      return { name, format: 'u', length, nullCount: 0, buffers: utf8(values.map((v) => (typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v)))) };
    case 'map':
      return { name, format: 'u', length, nullCount: 0, buffers: utf8(values.map((v) => (v == null ? '{}' : wellFormedJson(v)))) };
    case 'time':
    case 'uint64': {
      const a = new BigInt64Array(length);
      for (let i = 0; i < length; i++) a[i] = BigInt(Math.trunc(Number(values[i]) || 0));
      return { name, format: 'l', length, nullCount: 0, buffers: [null, Buffer.from(a.buffer)] };
    }
    case 'nullable_float64': {
      const a = new Float64Array(length);
      const valid = Buffer.alloc(Math.ceil(length / 8));
      let nulls = 0;
      for (let i = 0; i < length; i++) {
        const v = values[i];
        if (typeof v === 'number' && Number.isFinite(v)) {
          a[i] = v;
          valid[i >> 3] |= 1 << (i & 7);
        } else nulls++;
      }
      return { name, format: 'g', length, nullCount: nulls, buffers: [nulls ? valid : null, Buffer.from(a.buffer)] };
    }
  }
}

/** The columns of a write: its spans' rows, then a row per summary JSON (its key, defaults, the JSON in `stats`). */
export function writeColumns(spans: readonly SpanRecord[], summaries: readonly string[]): ArrowColumn[] {
  const rows = spans.map((s) => spanRow(s) as unknown as Record<string, unknown>);
  const keys = summaries.map((json) => JSON.parse(json) as { project_id: string; trace_id: string });
  return COLUMNS.map((name) => {
    const values: unknown[] = rows.map((r) => (name === 'stats' ? '' : r[name]));
    for (let i = 0; i < summaries.length; i++) {
      values.push(
        name === 'project_id'
          ? keys[i].project_id
          : name === 'trace_id'
            ? keys[i].trace_id
            : name === 'stats'
              ? summaries[i]
              : kindOf(name) === 'nullable_float64'
                ? null
                : kindOf(name) === 'string'
                  ? ''
                  : kindOf(name) === 'map'
                    ? {}
                    : 0,
      );
    }
    return column(name, values);
  });
}

/** The SELECT list that reads registered columns as `write_rows` takes them, in its column order (an INSERT ... SELECT matches by position). */
export const WRITE_COLUMNS_SELECT = COLUMNS.map((c) => {
  const k = kindOf(c);
  if (k === 'map') return `JSONExtract(assumeNotNull(${c}), 'Map(String, String)')`;
  if (k === 'time') return `fromUnixTimestamp64Milli(assumeNotNull(${c}), 'UTC')`;
  if (k === 'uint64') return `toUInt64(assumeNotNull(${c}))`;
  if (k === 'nullable_float64') return c;
  return `assumeNotNull(${c})`;
}).join(', ');
