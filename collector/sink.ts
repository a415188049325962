import type { RowBatch } from '../core/model/span.js';

/** What a sink reports about itself, for /api/health and metrics. */
export interface SinkStats {
  kind: 'direct' | 'batcher' | 'kafka';
  /** Spans accepted but not yet durable (buffered in memory). */
  pendingSpans: number;
  pendingBytes: number;
  /** Kafka only: consumer lag of the ingester group, when known. */
  consumerLag?: number;
}

/**
 * The one write path. The collector and `/api/traces/ingest` hand normalized batches to a sink;
 * `write` resolves only once the data is durable (in ClickHouse, or acknowledged by Kafka), and
 * rejects with a BackpressureError when the sink is full.
 */
export interface SpanSink {
  write(rows: RowBatch): Promise<void>;
  /**
   * Largest write the sink takes as one unit, in bytes of rows (Kafka: one message); ingest cuts a
   * larger request into writes of at most this size, each with the summaries of its own spans.
   * Absent: any size, so a request is always one write, stored whole or not at all.
   */
  readonly maxWriteBytes?: number;
  /**
   * Throws a BackpressureError when the sink is already full. Receivers call it before reading
   * and decoding a request, so a refusal under overload costs (almost) nothing.
   */
  admit(): void;
  /** Stop accepting, flush what is buffered, release resources. */
  close(): Promise<void>;
  stats(): SinkStats;
}

export type { BatchWriter } from '../core/store/analytics.js';
