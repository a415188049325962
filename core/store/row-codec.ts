import type { RowBatch, SpanRecord, TraceHeader } from '../model/span.js';

/**
 * The summary rows of one write, built as its spans are encoded (one builder per write): what the
 * write adds to each trace it touches, never a re-derived trace.
 */
export interface TraceSummaryRows {
  add(span: SpanRecord): void;
  /** An explicit trace header (the JSON ingest body); returns its encoded row, so the caller can bound its size. */
  addHeader(header: TraceHeader): string;
  /** The encoded rows of everything added (spans' contributions flushed). */
  rows(): string[];
}

/**
 * How the collector encodes rows for the analytical store: once, at ingest, as the bytes the store
 * inserts as they are (the batcher, Kafka messages and the ingester never re-encode). The one
 * implementation is `spanRowCodec` (store/clickhouse/row-codec.ts: TabSeparated span rows, JSON
 * summary rows), the only module of store/clickhouse/ the collector imports.
 *
 * Promises:
 * - Pure and deterministic: the same span encodes to the same row, so a re-sent span writes the
 *   same key (project, trace, span) and the store's idempotency holds across retries and writers.
 * - Total over valid spans: every SpanRecord ingest accepted encodes; a lone surrogate in a text
 *   becomes U+FFFD, never an error.
 * - A batch's summary rows are those of exactly its spans and headers, so a write stored whole
 *   (core/store/analytics.ts, BatchWriter) keeps spans and summaries together.
 * - Rows are strings the caller owns: it may keep, concatenate or send them.
 */
export interface RowCodec {
  /** One span's row. */
  encodeSpan: (span: SpanRecord) => string;
  /** A new builder of one write's summary rows. */
  summaries: () => TraceSummaryRows;
  /** The rows of a write of these spans and headers, as ingest encodes them. */
  encodeBatch: (spans: readonly SpanRecord[], headers?: readonly TraceHeader[]) => RowBatch;
  /**
   * Span rows of Kafka message format 3 (CSV lines of the span columns) in today's row format;
   * throws on rows it cannot read.
   */
  spanRowsOfCsv: (chunk: string) => string[];
  /** A span row of Kafka message format 2 (an object keyed by column) in today's row format. */
  spanRowOfColumns: (row: object) => string;
}
