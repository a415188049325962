import { TupleParam } from '@clickhouse/client';
import type { RowBatch } from '../../model/span.js';
import { errorMessage, writeFailure } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ClickHouse } from './client.js';
import { spanRowKey, WRITE_ROWS } from './rows.js';
import { spanWriteRows, statsWriteRows } from './write-rows.js';

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
 * The one insert of the write path: the batch's span rows and trace summaries as one insert into
 * `write_rows` (migrations/clickhouse/007), whose views store the spans in `spans` and fold the
 * summaries into `trace_stats`, as they are, so nothing is read back and a batch costs two parts.
 * A failure is classified here, where the store is called: 400 DataRejectedError when the store
 * refuses the data itself, else a retryable 503.
 *
 * All or nothing: ClickHouse parses the whole insert before either view stores a row, so a refused
 * write leaves no spans, summary, list entry or span count behind. A batch whose body is over
 * `maxInsertBytes` is written in parts, span rows first: if the store refuses a later part for its
 * data, the spans of the parts already stored are deleted again before the write fails, so a
 * refused write leaves no spans a later write of the same trace would bring to light.
 */
export function createBatchWriter(ch: ClickHouse, options: BatchWriterOptions = {}) {
  const maxInsertBytes = options.maxInsertBytes ?? MAX_INSERT_BYTES;

  /**
   * The lines as one insert, or in halves while their body is over the limit (inserts are
   * idempotent: a retry rewrites nothing twice). `stored` counts the lines stored, in order.
   */
  async function insert(lines: string[], stored: { lines: number }): Promise<void> {
    const body = Buffer.from(lines.join('\n'));
    if (body.length <= maxInsertBytes || lines.length === 1) {
      await ch.insertRows('agent_eval.write_rows', WRITE_ROWS, body);
      stored.lines += lines.length;
      return;
    }
    const half = Math.ceil(lines.length / 2);
    await insert(lines.slice(0, half), stored);
    await insert(lines.slice(half), stored);
  }

  async function undoSpans(spanRows: string[], startedAt: number): Promise<void> {
    // A Kafka message's rows arrive as one chunk of lines.
    const keys = spanRows.flatMap((chunk) => chunk.split('\n')).map((line) => new TupleParam(spanRowKey(line)));
    const since = new Date(startedAt - UNDO_WINDOW_MS).toISOString().replace('T', ' ').replace('Z', '');
    try {
      await ch.client.command({ query: UNDO_SPANS, query_params: { keys, since } });
    } catch (err) {
      // The spans stay, without a summary: no list entry or trace page shows them until a later
      // write of the same spans replaces them.
      options.logger?.error({ err, spans: spanRows.length }, `could not remove the spans of a write the store refused in part: ${errorMessage(err)}`);
    }
  }

  return {
    async writeRows(this: void, batch: RowBatch): Promise<void> {
      if (!batch.spans.length && !batch.stats.length) return;
      const startedAt = Date.now();
      // Span rows first: a part with summaries only ever follows the parts with their spans.
      const lines = [...batch.spans.map(spanWriteRows), ...batch.stats.map(statsWriteRows)];
      const stored = { lines: 0 };
      try {
        await insert(lines, stored);
      } catch (err) {
        const failure = writeFailure('analytics', err);
        // Refused for its data: it will never be stored, so neither may the spans of the parts
        // before it. A transient failure keeps them: the client retries, and the retry's rows replace them.
        const spansStored = batch.spans.slice(0, stored.lines);
        if (failure.status === 400 && spansStored.length) await undoSpans(spansStored, startedAt);
        throw failure;
      }
    },
  };
}
