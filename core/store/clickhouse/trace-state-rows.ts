/**
 * Every trace of a project, one row each, its summary merged, without a GROUP BY over every trace.
 *
 * `trace_stats` (migration 002) keeps a trace's summary as states that a merge folds into one row
 * per trace and part. A trace written by one insert, or whose rows the table has merged, has one
 * row: its values are that row's, read as stored. Only a trace with rows in several parts needs
 * its states merged. Grouping every trace by id cost most of the reads over all traces (at 1M
 * traces the sessions page took 571 ms, against 259 read this way: docs/benchmarks.md).
 *
 * So the traces are read in two branches:
 * - the traces that need a merge ({@link MERGE_NEEDED}), grouped by id;
 * - every other trace, its one row as stored.
 *
 * A merge is needed for a trace stored in more than one row, and for a trace written in the last
 * {@link RECENT_SECONDS}. The second rule keeps a read exact while writes go on. Each read of the
 * table sees the parts of its own moment. Say a trace gains a second row after the set was read
 * and before the stored rows were. Without the rule, both its rows would be read as stored: two
 * traces. With it, the new row was stamped (`last_stored`, the store's clock at the insert) within
 * the last seconds. The stored-rows branch leaves it out, so the trace is read as it was before that
 * write, once. Rows that carry no write of the trace's own (`last_stored` the epoch: a cost
 * recompute's new states) are left out of that branch too, for the same reason. Once the table
 * merges them into the trace's row, they count there.
 *
 * Hashes stand for ids in the set of traces that need a merge (grouping 64-bit hashes takes half the
 * time of grouping the ids). A trace whose hash collides with one of those is merged as well,
 * which gives the same values.
 */

/** How a column of a trace's summary merges over its rows, and what one stored row holds of it. */
interface TraceStateColumn {
  merged: string;
  row: string;
}

/** The summary columns these reads give, under the names the merged reads elsewhere use. */
export const TRACE_STATE_COLUMNS = {
  session_id: { merged: 'max(session_id)', row: 'session_id' },
  user_id: { merged: 'max(user_id)', row: 'user_id' },
  start_time: { merged: 'min(min_start)', row: 'min_start' },
  end_time: { merged: 'max(max_end)', row: 'max_end' },
  span_error: { merged: 'max(has_error)', row: 'has_error' },
  header_status: { merged: 'argMaxMerge(header_status)', row: 'finalizeAggregation(header_status)' },
} as const satisfies Record<string, TraceStateColumn>;
export type TraceStateColumnName = keyof typeof TRACE_STATE_COLUMNS;

/** Seconds since its last write within which a trace is always merged (see above); far above any insert's own time. */
export const RECENT_SECONDS = 60;

/**
 * The parameter these reads bind: {recentSeconds}. The cut is taken from the store's clock
 * (`now64`), which stamped the rows. Tests bind 0 (every row read as stored where it can be) or
 * years (every trace merged) to compare the two ways.
 */
export const TRACE_STATE_PARAMS = { recentSeconds: RECENT_SECONDS } as const;

const RECENT = "now64(3, 'UTC') - toIntervalSecond({recentSeconds:UInt32})";

/** Hashes of the project's traces that need a merge: stored in more than one row, or written in the last RECENT_SECONDS. */
const MERGE_NEEDED = `(
    SELECT cityHash64(trace_id) AS id_hash FROM agent_eval.trace_stats
    WHERE project_id = {project:String}
    GROUP BY id_hash
    HAVING count() > 1 OR max(last_stored) >= ${RECENT})`;

/** The project's traces with the given summary columns (and `trace_id`), one row per trace. */
export function traceStateRows(columns: readonly TraceStateColumnName[]): string {
  const stored = columns.map((c) => (TRACE_STATE_COLUMNS[c].row === c ? c : `${TRACE_STATE_COLUMNS[c].row} AS ${c}`));
  const merged = columns.map((c) => `${TRACE_STATE_COLUMNS[c].merged} AS ${c}`);
  return `(
  SELECT trace_id, ${stored.join(', ')}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}
    AND last_stored > toDateTime64(0, 3, 'UTC') AND last_stored < ${RECENT}
    AND cityHash64(trace_id) NOT IN ${MERGE_NEEDED}
  UNION ALL
  SELECT trace_id, ${merged.join(', ')}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND cityHash64(trace_id) IN ${MERGE_NEEDED}
  GROUP BY trace_id
)`;
}
