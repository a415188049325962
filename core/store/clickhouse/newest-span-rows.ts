/**
 * The newest stored row of each span (a re-sent span has several rows until `spans` merges them:
 * ReplacingMergeTree on ingested_at), for reads over many spans: ordered by the table's own key,
 * which ClickHouse sorts in the order it reads, rather than by ingested_at alone, a full sort (over
 * the 500,000 spans of a week at 100,000 traces: 148 against 190 ms, docs/benchmarks.md).
 */
export const NEWEST_ROW_PER_SPAN = `ORDER BY trace_id, span_id, ingested_at DESC
  LIMIT 1 BY trace_id, span_id`;
