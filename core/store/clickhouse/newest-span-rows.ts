/**
 * The newest stored row of each span (a re-sent span has several rows until `spans` merges them:
 * ReplacingMergeTree on ingested_at), for reads of the spans of a set of traces: ordered by the
 * table's own key, which ClickHouse sorts in the order it reads, rather than by ingested_at alone,
 * a full sort. For such sets this is faster than {@link newestSpanRows}, whose FINAL merges each
 * trace's key range on its own: the root spans of a list page's 50 traces at 1M traces took 118
 * against 35 ms that way (docs/benchmarks.md, "Newest rows by FINAL").
 */
export const NEWEST_ROW_PER_SPAN = `ORDER BY trace_id, span_id, ingested_at DESC
  LIMIT 1 BY trace_id, span_id`;

/**
 * The newest row of each span among the rows that pass `prewhere` (a window's spans, or one
 * trace's, with any narrowing that must come before the choice), with `columns`.
 *
 * `FINAL` merges the rows of a key as `spans` merges its parts, in key order as it reads (keeping
 * the largest ingested_at), with no sort and no table of keys. An explicit PREWHERE filters the
 * rows before that merge (ClickHouse's PREWHERE page: why it does not move conditions there on its
 * own under FINAL), so the answer is the one of {@link NEWEST_ROW_PER_SPAN} after a WHERE: the
 * newest of the rows in the window. Conditions on the newest row go in a WHERE around it. Component
 * health over a week of 100,000 traces: 64 against 131 ms; over 24 hours of 1M traces (10M spans in
 * 40 parts): 391 against 645; a trace's first page there: p50 34 against 57 ms, p95 48 against 85
 * (docs/benchmarks.md, "Newest rows by FINAL").
 */
export function newestSpanRows(columns: string, prewhere: string): string {
  return `SELECT ${columns}
    FROM agent_eval.spans FINAL
    PREWHERE ${prewhere}`;
}
