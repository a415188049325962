import type { RowBatch } from '../../model/span.js';
import { writeFailure } from '../../errors.js';
import type { ClickHouse } from './client.js';
import { SPAN_ROWS, STATS_ROWS } from './rows.js';

const joined = (lines: string[]): Buffer => Buffer.from(lines.join('\n'));

/**
 * The one insert of the write path: the batch's encoded rows go to `spans` and
 * `trace_stats_input` as they are (a materialized view folds the latter into `trace_stats`), so
 * nothing is read back and a batch costs two parts. A failure is classified here, where the store is called:
 * 400 DataRejectedError when the store refuses the data itself, else a retryable 503.
 */
export function createBatchWriter(ch: ClickHouse) {
  return {
    async writeRows(this: void, batch: RowBatch): Promise<void> {
      const inserts: Promise<void>[] = [];
      if (batch.spans.length) inserts.push(ch.insertRows('agent_eval.spans', SPAN_ROWS, joined(batch.spans)));
      if (batch.stats.length) inserts.push(ch.insertRows('agent_eval.trace_stats_input', STATS_ROWS, joined(batch.stats)));
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
