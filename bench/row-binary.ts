import type { SpanRecord } from '../core/model/span.js';
import { spanRow, SPAN_COLUMNS } from '../core/store/clickhouse/rows.js';

/**
 * `write_rows` rows (migrations/clickhouse/007, WRITE_COLUMNS) in ClickHouse's RowBinary format:
 * each value as its bytes, no escaping and no text to parse. Strings are a LEB128 length then
 * their UTF-8 bytes (a lone surrogate written as U+FFFD, as Buffer.from does), DateTime64(3) and
 * UInt64 little-endian 64-bit integers, Nullable a 0/1 byte before the value, Map a length then
 * its keys and values.
 *
 * Measured against the TabSeparated rows of the write path (bench/insert-format.ts,
 * docs/benchmarks.md "A binary row format"); not the write path's encoding. Inline, chDB cannot take it: chDB takes inline
 * insert data through its multi-query parser, which ends the data at the first two bytes `\n\n`,
 * and a binary body has them wherever a text holds a blank line (or a number's bytes happen to).
 */

/** What each column of `write_rows` holds, for the binary encoders (this one and arrow-columns.ts). */
export type ColumnType = 'string' | 'time' | 'uint64' | 'map' | 'nullable_float64';

const TYPES: Record<string, ColumnType> = {
  start_time: 'time',
  end_time: 'time',
  duration_ms: 'uint64',
  input_tokens: 'uint64',
  output_tokens: 'uint64',
  cached_input_tokens: 'uint64',
  attributes: 'map',
  resource_attributes: 'map',
  input_cost: 'nullable_float64',
  output_cost: 'nullable_float64',
  cached_input_cost: 'nullable_float64',
  total_cost: 'nullable_float64',
};

/** The type of a `write_rows` column. */
export const columnType = (column: string): ColumnType => TYPES[column] ?? 'string';

const COLUMN_TYPES: ColumnType[] = [...SPAN_COLUMNS, 'stats'].map(columnType);

/** A growing byte buffer that values are appended to. */
export class BinaryRows {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  private varUInt(n: number): void {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.at++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.at++] = n;
  }

  string(s: string): void {
    // At most 3 bytes per UTF-16 unit: write first, then the length before it.
    const max = s.length * 3;
    const lengthBytes = max < 0x80 ? 1 : max < 0x4000 ? 2 : max < 0x200000 ? 3 : 4;
    this.room(lengthBytes + max);
    const start = this.at + lengthBytes;
    const n = s.length === 0 ? 0 : this.buf.write(s, start, 'utf8');
    // The length in exactly `lengthBytes` LEB128 bytes (padded with continuation bytes).
    let v = n;
    for (let i = 0; i < lengthBytes; i++) {
      this.buf[this.at + i] = (v & 0x7f) | (i < lengthBytes - 1 ? 0x80 : 0);
      v = Math.floor(v / 128);
    }
    this.at = start + n;
  }

  int64(n: number): void {
    this.room(8);
    this.buf.writeBigInt64LE(BigInt(Math.trunc(Number.isFinite(n) ? n : 0)), this.at);
    this.at += 8;
  }

  nullableFloat64(n: unknown): void {
    this.room(9);
    if (typeof n !== 'number' || !Number.isFinite(n)) {
      this.buf[this.at++] = 1;
      return;
    }
    this.buf[this.at++] = 0;
    this.buf.writeDoubleLE(n, this.at);
    this.at += 8;
  }

  map(m: Record<string, unknown> | null | undefined): void {
    const keys = m ? Object.keys(m) : [];
    this.varUInt(keys.length);
    for (const k of keys) {
      const v = m![k];
      this.string(k);
      this.string(typeof v === 'string' ? v : String(v));
    }
  }

  value(type: ColumnType, v: unknown): void {
    switch (type) {
      case 'string':
        return this.string(typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v));
      case 'time':
      case 'uint64':
        return this.int64(typeof v === 'number' ? v : 0);
      case 'map':
        return this.map(v as Record<string, unknown>);
      case 'nullable_float64':
        return this.nullableFloat64(v);
    }
  }

  /** The bytes written so far (a view: valid until the next append). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

const WRITE_COLUMN_NAMES = [...SPAN_COLUMNS, 'stats'] as const;

/** A span as a `write_rows` row: its columns, then an empty `stats`. */
export function appendSpanRow(out: BinaryRows, span: SpanRecord): void {
  const row = spanRow(span) as unknown as Record<string, unknown>;
  for (let i = 0; i < WRITE_COLUMN_NAMES.length; i++) out.value(COLUMN_TYPES[i], row[WRITE_COLUMN_NAMES[i]]);
}

/** A trace summary (its JSON, trace-stats-rows.ts) as a `write_rows` row: its key, defaults, then the JSON in `stats`. */
export function appendSummaryRow(out: BinaryRows, json: string): void {
  const { project_id: project, trace_id: trace } = JSON.parse(json) as { project_id: string; trace_id: string };
  out.string(project);
  out.string(trace);
  for (let i = 2; i < WRITE_COLUMN_NAMES.length - 1; i++)
    out.value(COLUMN_TYPES[i], COLUMN_TYPES[i] === 'nullable_float64' ? null : COLUMN_TYPES[i] === 'string' ? '' : 0);
  out.string(json);
}

/** The `write_rows` structure for a table function reading RowBinary (`file(path, RowBinary, structure)`). */
export const WRITE_ROWS_STRUCTURE = [...SPAN_COLUMNS, 'stats']
  .map((c) => {
    const t = TYPES[c];
    const type =
      t === 'time'
        ? "DateTime64(3, 'UTC')"
        : t === 'uint64'
          ? 'UInt64'
          : t === 'map'
            ? 'Map(String, String)'
            : t === 'nullable_float64'
              ? 'Nullable(Float64)'
              : 'String';
    return `${c} ${type}`;
  })
  .join(', ');
