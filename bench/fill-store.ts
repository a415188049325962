import type { Score } from '../core/model/score.js';
import type { SpanRecord } from '../core/model/span.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import { encodeRowBatch } from '../core/store/clickhouse/trace-stats-rows.js';

/**
 * Fills a bench's store through its own batch writers, as ingest and the evaluation worker write:
 * traces 0..traces-1 (trace t starting `traces - t` seconds before `now`), 20,000 span rows a
 * write, then the scores, 5,000 a write.
 */
export async function fillStore(
  store: AnalyticsStore,
  project: string,
  o: { traces: number; now: number; spansOf: (t: number, start: number) => SpanRecord[]; scores: Score[] },
): Promise<void> {
  let batch: SpanRecord[] = [];
  for (let t = 0; t < o.traces; t++) {
    batch.push(...o.spansOf(t, o.now - (o.traces - t) * 1000));
    if (batch.length >= 20_000) {
      await store.writeRows(encodeRowBatch(batch));
      batch = [];
    }
  }
  if (batch.length) await store.writeRows(encodeRowBatch(batch));
  for (let i = 0; i < o.scores.length; i += 5000) await store.writeScores(project, o.scores.slice(i, i + 5000));
}
