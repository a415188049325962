/**
 * Every trace of a project, one row each, its summary merged, without a GROUP BY over every trace.
 *
 * `trace_stats` (migration 002) keeps a trace's summary as states that a merge folds into one row
 * per trace and part. A trace written by one insert, or whose rows the table has merged, has one
 * row: its values are that row's, read as stored. Only a trace with rows in several parts needs
 * its states merged. Grouping every trace by id cost most of the reads over all traces (at 1M
 * traces the sessions page took 611 ms, against 241 read this way: docs/benchmarks.md, "One row
 * per trace").
 *
 * So the traces are read in two branches:
 * - the traces that need a merge (`mergeNeeded`), grouped by id;
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

/** A trace's cost from a `span_costs` value `map` (merged, or one stored row's): its priced generations' totals; NULL when none is priced. */
export function costOf(map: string): string {
  return `if(arrayExists(v -> v.3 = 1, ${map}.2), arraySum(arrayMap(v -> v.2, ${map}.2)), NULL)`;
}

/** A trace's input plus output tokens from a `span_stats` value `map` (merged, or one stored row's). */
export const tokensOf = (map: string) => `(arraySum(${map}.3) + arraySum(${map}.4))`;

/**
 * The summary columns these reads give, under the names the merged reads elsewhere use. A stored
 * row's span maps hold each span once (the write's fold and every merge go through maxMap), so a
 * one-row trace's tokens and cost are its row's.
 */
export const TRACE_STATE_COLUMNS = {
  start_time: { merged: 'min(min_start)', row: 'min_start' },
  end_time: { merged: 'max(max_end)', row: 'max_end' },
  span_error: { merged: 'max(has_error)', row: 'has_error' },
  header_name: { merged: 'argMaxMerge(header_name)', row: 'finalizeAggregation(header_name)' },
  header_status: { merged: 'argMaxMerge(header_status)', row: 'finalizeAggregation(header_status)' },
  header_attributes: { merged: 'argMaxMerge(header_attributes)', row: 'finalizeAggregation(header_attributes)' },
  root_span: { merged: 'min(root)', row: 'root' },
  session_id: { merged: 'max(session_id)', row: 'session_id' },
  user_id: { merged: 'max(user_id)', row: 'user_id' },
  tokens: { merged: tokensOf('maxMap(span_stats)'), row: tokensOf('span_stats') },
  cost: { merged: costOf('maxMap(span_costs)'), row: costOf('span_costs') },
} as const satisfies Record<string, TraceStateColumn>;
export type TraceStateColumnName = keyof typeof TRACE_STATE_COLUMNS;

/** The given columns merged over a trace's rows (`GROUP BY trace_id`), as a select list: the one definition of each merge. */
export function mergedStates(columns: readonly TraceStateColumnName[], separator = ', '): string {
  return columns.map((c) => `${TRACE_STATE_COLUMNS[c].merged} AS ${c}`).join(separator);
}

/**
 * The given columns as one row of a trace holds them, as a select list: a row read as stored (the
 * one-row traces below), or a trace's one row from `FROM agent_eval.trace_stats FINAL` (the table
 * merges each trace's rows as it reads: TRACE_SUMMARY). The counterpart of {@link mergedStates}.
 */
export function rowStates(columns: readonly TraceStateColumnName[], separator = ', '): string {
  return columns.map((c) => (TRACE_STATE_COLUMNS[c].row === c ? c : `${TRACE_STATE_COLUMNS[c].row} AS ${c}`)).join(separator);
}

/** Seconds since its last write within which a trace is always merged (see above); far above any insert's own time. */
export const RECENT_SECONDS = 60;

/**
 * The parameter these reads bind: {recentSeconds}. The cut is taken from the store's clock
 * (`now64`), which stamped the rows. Tests bind 0 (every row read as stored where it can be) or
 * years (every trace merged) to compare the two ways.
 */
export const TRACE_STATE_PARAMS = { recentSeconds: RECENT_SECONDS } as const;

const RECENT = "now64(3, 'UTC') - toIntervalSecond({recentSeconds:UInt32})";

/**
 * Hashes of the project's traces that need a merge: stored in more than one row, or written in the
 * last RECENT_SECONDS. With `since`, only of the traces with a row that starts at or after it
 * (found first by the partitions' and parts' min-max of `min_start`); a trace without one starts
 * before `since`, which the read then leaves out.
 */
function mergeNeeded(since: string | undefined): string {
  const started = since
    ? `\n      AND cityHash64(trace_id) IN (SELECT cityHash64(trace_id) FROM agent_eval.trace_stats WHERE project_id = {project:String} AND min_start >= ${since})`
    : '';
  return `(
    SELECT cityHash64(trace_id) AS id_hash FROM agent_eval.trace_stats
    WHERE project_id = {project:String}${started}
    GROUP BY id_hash
    HAVING count() > 1 OR max(last_stored) >= ${RECENT})`;
}

/** What a read of {@link traceStateRows} keeps. */
export interface TraceStateScope {
  /**
   * Conditions that pick traces by id (sets of ids) before anything is read. The picked traces
   * are merged, all of them: the primary key finds their rows, and a read in two branches would
   * apply the sets several times (a model's traces at 1M: 659 against 2,386 ms).
   */
  picked?: readonly string[];
  /** Only the traces that start at or after this time (a bound parameter): a window's reads. */
  since?: string;
}

/**
 * The project's traces with the given summary columns (and `trace_id`), one row per trace.
 * Conditions on the columns go on the result, where ClickHouse pushes them into both branches.
 */
export function traceStateRows(columns: readonly TraceStateColumnName[], scope: TraceStateScope = {}): string {
  const merged = mergedStates(columns);
  const started = scope.since ? `\n  HAVING min(min_start) >= ${scope.since}` : '';
  if (scope.picked?.length) {
    // With a start, only the picked traces with a row since then (a trace that starts then has
    // one): an alert's model filter over its few minutes merges those, not the model's every trace.
    const picked = scope.since
      ? [...scope.picked, `trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND min_start >= ${scope.since})`]
      : scope.picked;
    return `(
  SELECT trace_id, ${merged}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}${picked.map((c) => `\n    AND ${c}`).join('')}
  GROUP BY trace_id${started}
)`;
  }
  const needed = mergeNeeded(scope.since);
  return `(
  SELECT trace_id, ${rowStates(columns)}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}${scope.since ? ` AND min_start >= ${scope.since}` : ''}
    AND last_stored > toDateTime64(0, 3, 'UTC') AND last_stored < ${RECENT}
    AND cityHash64(trace_id) NOT IN ${needed}
  UNION ALL
  SELECT trace_id, ${merged}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND cityHash64(trace_id) IN ${needed}
  GROUP BY trace_id${started}
)`;
}
