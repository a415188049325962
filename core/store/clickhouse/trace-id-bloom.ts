/**
 * The bloom filter on `trace_id` of `spans` and `trace_stats` (migrations/clickhouse/012), and
 * which reads use it.
 *
 * A read of one trace uses it: it skips every part that does not hold the trace, where the primary
 * key alone reads a granule of each part (random trace ids put every id inside every part's key
 * range). A read of many traces at once (`trace_id IN` a list page's ids, a session's, a filter's
 * set) does not: ClickHouse then checks every id against every granule's filter, which cost the
 * bare traces list 15-20% and the model and user filters ~10% at 10M spans (docs/benchmarks.md,
 * "A bloom filter on trace_id"). So every statement ignores the filter (the connection's settings,
 * client.ts) unless it is a one-trace read that ends with {@link USE_TRACE_ID_BLOOM}.
 */
export const TRACE_ID_BLOOM = 'trace_id_bloom';

/** A one-trace read's SETTINGS clause: the setting back to its default (none ignored), so every skip index serves it. */
export const USE_TRACE_ID_BLOOM = 'SETTINGS ignore_data_skipping_indices = DEFAULT';
