import type { RowBatch } from '../../model/span.js';
import { writeFailure } from '../../errors.js';
import type { ClickHouse } from './client.js';
import { SPAN_ROWS, STATS_ROWS, type RowFormat } from './rows.js';

/**
 * Largest body of one insert. A batch is one insert per table whatever its size in-process, but
 * over HTTP the ClickHouse gateway reads a CSV body whole and refuses one over 64 MiB (gateway.ts,
 * `maxInsertChunkBytes`), and a batch's rows can come to more: the batcher bounds them by UTF-16
 * length, and a non-ASCII character takes up to 3 bytes. A larger batch is written in parts.
 */
export const MAX_INSERT_BYTES = 32 * 1024 * 1024;

export interface BatchWriterOptions {
  /** Largest body of one insert (default MAX_INSERT_BYTES). */
  maxInsertBytes?: number;
}

/**
 * The one insert of the write path: the batch's encoded rows go to `spans` and
 * `trace_stats_input` as they are (a materialized view folds the latter into `trace_stats`), so
 * nothing is read back and a batch costs two parts. A failure is classified here, where the store is called:
 * 400 DataRejectedError when the store refuses the data itself, else a retryable 503.
 */
export function createBatchWriter(ch: ClickHouse, options: BatchWriterOptions = {}) {
  const maxInsertBytes = options.maxInsertBytes ?? MAX_INSERT_BYTES;

  /** The rows as one insert, or in halves while their body is over the limit (inserts are idempotent: a retry rewrites nothing twice). */
  async function insert(table: string, format: RowFormat, lines: string[]): Promise<void> {
    const body = Buffer.from(lines.join('\n'));
    if (body.length <= maxInsertBytes || lines.length === 1) return ch.insertRows(table, format, body);
    const half = Math.ceil(lines.length / 2);
    await insert(table, format, lines.slice(0, half));
    await insert(table, format, lines.slice(half));
  }

  return {
    async writeRows(this: void, batch: RowBatch): Promise<void> {
      const inserts: Promise<void>[] = [];
      if (batch.spans.length) inserts.push(insert('agent_eval.spans', SPAN_ROWS, batch.spans));
      if (batch.stats.length) inserts.push(insert('agent_eval.trace_stats_input', STATS_ROWS, batch.stats));
      try {
        await Promise.all(inserts);
      } catch (err) {
        // Let every insert settle first: a retry must not overlap one still running.
        await Promise.allSettled(inserts);
        throw writeFailure('analytics', err);
      }
    },
  };
}
