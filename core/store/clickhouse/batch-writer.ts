import { TupleParam } from '@clickhouse/client';
import type { RowBatch } from '../../model/span.js';
import { errorMessage, writeFailure } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ClickHouse } from './client.js';
import { SPAN_ROWS, spanRowKey, STATS_ROWS, type RowFormat } from './rows.js';

/**
 * Largest body of one insert. A batch is one insert per table whatever its size in-process, but
 * over HTTP the ClickHouse gateway reads a body whole and refuses one over 64 MiB (gateway.ts,
 * `maxInsertChunkBytes`), and a batch's rows can come to more: the batcher bounds them by UTF-16
 * length, and a non-ASCII character takes up to 3 bytes. A larger batch is written in parts.
 */
export const MAX_INSERT_BYTES = 32 * 1024 * 1024;

export interface BatchWriterOptions {
  /** Largest body of one insert (default MAX_INSERT_BYTES). */
  maxInsertBytes?: number;
  logger?: Logger;
}

/**
 * How far back the undo of a refused write looks for the span rows it wrote (their `ingested_at`,
 * set by the store): far more than any insert takes, allowing for a server clock a little off ours.
 */
const UNDO_WINDOW_MS = 10 * 60 * 1000;

/**
 * Removes the span rows a write just stored, after the store refused its trace summaries: the
 * newest version of each span, if it was written within UNDO_WINDOW_MS. An older version of a span
 * stored before (an earlier write of the same span) stays, as it was.
 */
const UNDO_SPANS = `
  DELETE FROM agent_eval.spans
  WHERE (project_id, trace_id, span_id, ingested_at) IN (
    SELECT project_id, trace_id, span_id, max(ingested_at)
    FROM agent_eval.spans
    WHERE (project_id, trace_id, span_id) IN {keys:Array(Tuple(String, String, String))}
      AND ingested_at >= {since:DateTime64(6, 'UTC')}
    GROUP BY project_id, trace_id, span_id
  )`;

/**
 * The one insert of the write path: the batch's encoded rows go to `spans`, then to
 * `trace_stats_input` (a materialized view folds the latter into `trace_stats`), as they are, so
 * nothing is read back and a batch costs two parts. A failure is classified here, where the store
 * is called: 400 DataRejectedError when the store refuses the data itself, else a retryable 503.
 *
 * All or nothing: the summaries are inserted only once the spans they count are stored, so a
 * refused span insert leaves no summary, list entry or span count behind. If the store then
 * refuses the summaries for their data, the spans just stored are deleted again before the write
 * fails, so a refused write leaves no spans a later write of the same trace would bring to light.
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

  async function undoSpans(lines: string[], startedAt: number): Promise<void> {
    // A Kafka message's rows arrive as one chunk of lines.
    const keys = lines.flatMap((chunk) => chunk.split('\n')).map((line) => new TupleParam(spanRowKey(line)));
    const since = new Date(startedAt - UNDO_WINDOW_MS).toISOString().replace('T', ' ').replace('Z', '');
    try {
      await ch.client.command({ query: UNDO_SPANS, query_params: { keys, since } });
    } catch (err) {
      // The spans stay, without a summary: no list entry or trace page shows them until a later
      // write of the same spans replaces them.
      options.logger?.error({ err, spans: lines.length }, `could not remove the spans of a write whose summaries the store refused: ${errorMessage(err)}`);
    }
  }

  return {
    async writeRows(this: void, batch: RowBatch): Promise<void> {
      const startedAt = Date.now();
      try {
        if (batch.spans.length) await insert('agent_eval.spans', SPAN_ROWS, batch.spans);
      } catch (err) {
        throw writeFailure('analytics', err);
      }
      try {
        if (batch.stats.length) await insert('agent_eval.trace_stats_input', STATS_ROWS, batch.stats);
      } catch (err) {
        const failure = writeFailure('analytics', err);
        // Refused for its data: it will never be stored, so neither may the spans it counts. A
        // transient failure keeps them: the client retries, and the retry's rows replace them.
        if (failure.status === 400 && batch.spans.length) await undoSpans(batch.spans, startedAt);
        throw failure;
      }
    },
  };
}
