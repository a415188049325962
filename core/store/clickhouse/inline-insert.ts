import { DataRejectedError } from '../../errors.js';

/**
 * chDB runs an insert as statement text: `INSERT INTO t ... FORMAT f`, a newline, then the data
 * (chdb-node's rawInsert, streamInsert and Connection.insert/exec all build that text). ClickHouse
 * reads it with its multi-query parser, which takes inline data of any format but Values to end at
 * the first empty line ("\n\n") and parses what follows as the next statement. So data with an
 * empty line is inserted up to it, then the rest fails as a syntax error: part of the rows stored,
 * the row at the line cut short, the request answered with an error
 * (docs/chdb-inline-insert-empty-line.md has the reproduction).
 *
 * The write path's formats cannot hold an empty line (TabSeparated and JSONEachRow escape line
 * breaks inside values, and every row has columns); this check holds every in-process insert to
 * that before chDB sees a byte, so a body that breaks the rule is refused whole instead of stored
 * in part.
 */
export const EMPTY_LINE_MESSAGE =
  'the insert data holds an empty line, where chDB would end it and store only the rows before: send values whose line breaks are escaped (FORMAT TabSeparated or JSONEachRow), with no empty rows';

/** Whether `data` holds an empty line (two LFs in a row), within it or across the boundary with the byte before it. */
export function hasEmptyLine(data: Buffer | Uint8Array | string, previousByte?: number): boolean {
  if (typeof data === 'string') return data.includes('\n\n');
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (previousByte === 10 && bytes[0] === 10) return true;
  return bytes.includes('\n\n');
}

/** Refuses insert data with an empty line whole, as bad data (400), before chDB stores the rows before it. */
export function assertNoEmptyLine(data: Buffer | Uint8Array | string): void {
  if (hasEmptyLine(data)) throw new DataRejectedError(EMPTY_LINE_MESSAGE);
}
