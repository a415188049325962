/**
 * The newest stored row of each span (a re-sent span has several rows until `spans` merges them:
 * ReplacingMergeTree on ingested_at), for reads over many spans: ordered by the table's own key,
 * which ClickHouse sorts in the order it reads, rather than by ingested_at alone, a full sort (over
 * the 500,000 spans of a week at 100,000 traces: 148 against 190 ms, docs/benchmarks.md).
 * Appended to a SELECT from `agent_eval.spans`; its WHERE chooses among the stored rows first, so
 * it suits reads that mean to look at some rows only (a span's tool rows, its rows that name a
 * prompt, a trace's rows).
 */
export const NEWEST_ROW_PER_SPAN = `ORDER BY trace_id, span_id, ingested_at DESC
  LIMIT 1 BY trace_id, span_id`;

/**
 * The spans table as each span's newest row alone (FINAL: the merge ReplacingMergeTree would do,
 * done at read time, by key range on every thread), for the dashboard's reads over a window of
 * spans (component health, span series, cost analytics). The window and every filter then apply
 * to each span's newest row, so a span re-sent with another start, model or type counts where its
 * newest row puts it, once. Over a week of 500,000 spans at 100,000 traces it reads in 0.6x
 * (component health) and 0.8x (cost by model) the time of the newest row chosen after the window
 * (docs/benchmarks.md); the window's filter is applied after the merge, not as PREWHERE
 * (`optimize_move_to_prewhere_if_final` is off), which is what keeps old rows out.
 */
export const NEWEST_SPANS = 'agent_eval.spans FINAL';
