import type { ExportFormat, ExportPosition, ExportRequest } from '../model/export.js';

/**
 * The contract of bulk exports over the analytical store (traces, spans, scores; implemented by
 * store/clickhouse/export-reads.ts, reached as `AnalyticsStore.exports`).
 *
 * Promises:
 * - Isolation: only the named project's rows are read.
 * - ClickHouse writes every byte: JSON Lines (JSONEachRow), CSV (RFC 4180: every value that needs
 *   it quoted, CRLF between rows, a value's own line breaks kept inside its quotes) and Parquet. The
 *   service never parses or re-encodes a row, so text comes out byte for byte as stored.
 * - Bounded memory: a stream reads one page at a time, a page being at most `PAGE_BYTES` of large
 *   texts (plus one row) and pulled only when the consumer asks for more; a file is written by
 *   one query whose output goes to disk as it is made.
 * - One row per key, its newest version (as every read of the store), in the kind's order
 *   (ExportPosition); `next` resumes exactly after the last row of a response.
 * - Failures: a store that cannot be reached rejects `stream()` before any byte (503); a failure
 *   after the first byte ends the body with an error, never a short body that looks whole.
 */
export interface ExportReads {
  /** Plans the next `request.limit` rows (their count and where the next response starts), then streams them page by page. */
  stream(projectId: string, request: ExportRequest, format: 'jsonl' | 'csv'): Promise<ExportStream>;
  /** Writes every row the request selects to `file` (created or replaced) in `format`; resolves with the rows selected. */
  writeFile(projectId: string, request: ExportRequest, format: ExportFormat, file: string): Promise<{ rows: number }>;
}

export interface ExportStream {
  /** Rows this response carries, as planned (rows stored into its range meanwhile come along too). */
  rows: number;
  /** Where the next response starts; null when this one reaches the end. */
  next: ExportPosition | null;
  /** The bytes: a CSV header row first, then each page as ClickHouse formatted it. */
  body: AsyncIterable<Buffer>;
}
