import { parse } from 'csv-parse/sync';
import { ValidationError } from '../errors.js';
import type { ImportFormat, RowError } from '../model/dataset.js';

/**
 * The rows of an imported file, each with its line: CSV (a header row, then one case per row;
 * RFC 4180 quoting, a cell may hold line breaks) or JSONL (one JSON object per line; blank lines
 * skipped). Values are kept byte for byte. A row that cannot be read at all is a row error; a
 * file that cannot be read (a quote never closed) is a 422 naming its line.
 */

export interface FileRow {
  /** 1 = the first data row. */
  row: number;
  /** The row's first line in the file. */
  line: number;
  /** Column (CSV) or key (JSONL) -> value: text for CSV, any JSON value for JSONL. */
  values: Record<string, unknown>;
}

export interface ReadRows {
  rows: FileRow[];
  errors: RowError[];
  /** The CSV header or every JSONL key seen, in order. */
  columns: string[];
}

/** Line numbers of byte offsets of a text, counting CRLF, LF and CR as one break each. */
function lineCounter(bytes: Buffer) {
  let at = 0;
  let line = 1;
  return (offset: number): number => {
    // A record starts after any blank lines the parser skipped.
    while (offset < bytes.length && (bytes[offset] === 0x0d || bytes[offset] === 0x0a)) offset++;
    for (; at < offset; at++) {
      if (bytes[at] === 0x0a || (bytes[at] === 0x0d && bytes[at + 1] !== 0x0a)) line++;
    }
    return line;
  };
}

function csvRows(content: string): ReadRows {
  const bytes = Buffer.from(content, 'utf8');
  let records: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    // `info` tells where each record ends; cells stay as written (no trimming, no casting).
    records = parse(bytes, { info: true, bom: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw new ValidationError([{ field: 'content', message: `not CSV${line ? ` near line ${line}` : ''}: ${(err as Error).message}` }]);
  }
  const [header, ...data] = records;
  if (!header) throw new ValidationError([{ field: 'content', message: 'has no header row' }]);
  const columns = header.record;
  const seen = new Set<string>();
  for (const name of columns) {
    if (seen.has(name)) throw new ValidationError([{ field: 'content', message: `the header names column '${name}' twice` }]);
    seen.add(name);
  }
  const rows: FileRow[] = [];
  const errors: RowError[] = [];
  const lineAt = lineCounter(bytes);
  // A record starts where the one before it ended.
  let start = header.info.bytes;
  data.forEach(({ record, info }, i) => {
    const row = i + 1;
    const line = lineAt(start);
    start = info.bytes;
    if (record.length !== columns.length) {
      errors.push({ row, line, field: '(row)', message: `has ${record.length} cells; the header has ${columns.length}` });
    } else {
      rows.push({ row, line, values: Object.fromEntries(columns.map((c, j) => [c, record[j]])) });
    }
  });
  return { rows, errors, columns };
}

function jsonlRows(content: string): ReadRows {
  const rows: FileRow[] = [];
  const errors: RowError[] = [];
  const columns = new Set<string>();
  let row = 0;
  content.split('\n').forEach((text, i) => {
    if (text.trim() === '') return;
    row++;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      errors.push({ row, line, field: '(row)', message: `not JSON: ${(err as Error).message}` });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ row, line, field: '(row)', message: 'must be a JSON object' });
      return;
    }
    for (const key of Object.keys(value)) columns.add(key);
    rows.push({ row, line, values: value as Record<string, unknown> });
  });
  return { rows, errors, columns: [...columns] };
}

export function readRows(format: ImportFormat, content: string): ReadRows {
  return format === 'csv' ? csvRows(content) : jsonlRows(content);
}
