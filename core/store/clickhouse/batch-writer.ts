import type { RowBatch } from '../../model/span.js';
import { writeFailure } from '../../errors.js';
import type { ClickHouse } from './client.js';

const joined = (lines: string[]): Buffer => Buffer.from(lines.join('\n'));

/**
 * The one insert of the write path: the batch's encoded rows go to `spans`, `trace_headers` and
 * `trace_stats` as they are (headers are folded into `trace_stats` by a materialized view), so
 * nothing is read back. A failure is classified here, where the store is called:
 * 400 DataRejectedError when the store refuses the data itself, else a retryable 503.
 */
export function createBatchWriter(ch: ClickHouse) {
  return {
    async writeRows(batch: RowBatch): Promise<void> {
      const inserts: Promise<void>[] = [];
      if (batch.spans.length) inserts.push(ch.insertRows('agent_eval.spans', joined(batch.spans)));
      if (batch.traces.length) inserts.push(ch.insertRows('agent_eval.trace_headers', joined(batch.traces)));
      if (batch.stats.length) inserts.push(ch.insertRows('agent_eval.trace_stats', joined(batch.stats)));
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
