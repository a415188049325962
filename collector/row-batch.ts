import type { RowBatch } from '../core/model/span.js';

/** The rows of several batches as one, in order: what one insert writes. */
export function mergeRowBatches(parts: Iterable<RowBatch>): RowBatch {
  const out: RowBatch = { spans: [], stats: [] };
  for (const p of parts) {
    for (const s of p.spans) out.spans.push(s);
    for (const t of p.stats) out.stats.push(t);
  }
  return out;
}
