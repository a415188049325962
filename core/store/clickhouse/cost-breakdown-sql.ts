import type { CostGroup } from '../../model/cost-analytics.js';
import { promptAttribute } from './prompt-links.js';
import { traceStateRows } from './trace-state-rows.js';
import { newestSpanRows } from './newest-span-rows.js';

/**
 * SQL of cost analytics (GET /api/analytics/costs). Values are always bound; the only text
 * spliced in is the fixed fragments below. Series are over the generation spans that started in
 * the window (newest row of each span); the most expensive traces and sessions over the traces
 * that started in it (their merged summaries, as GET /api/traces prices them).
 */

const TIME = "DateTime64(3, 'UTC')";

/** The window's generation spans, newest row of each, with what every grouping reads. */
const WINDOW_CALLS = `(
  SELECT trace_id, start_time, model, resource_attributes['service.name'] AS agent,
    if(${promptAttribute(0)} = '', '', concat(${promptAttribute(0)}, ' v', ${promptAttribute(1)})) AS prompt,
    ifNull(total_cost, 0) AS cost, toUInt8(total_cost IS NULL) AS unpriced, input_tokens + output_tokens AS tokens
  FROM (
    ${newestSpanRows(
      'trace_id, span_id, start_time, model, resource_attributes, attributes, total_cost, input_tokens, output_tokens, span_type',
      `project_id = {project:String} AND start_time >= {from:${TIME}} AND start_time < {to:${TIME}}`,
    )}
  )
  WHERE span_type = 'generation'
)`;

/** Per trace of those calls: its end user, session and evaluation run (merged summaries). */
const TRACE_KEYS = `(
  SELECT trace_id, max(user_id) AS user, max(session_id) AS session, argMaxMerge(header_attributes)['agent_eval.run_id'] AS suite
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String} AND trace_id IN (SELECT trace_id FROM ${WINDOW_CALLS})
  GROUP BY trace_id
)`;

const BY_TRACE: readonly CostGroup[] = ['user', 'session', 'suite'];

/**
 * Cost, tokens, traces and unpriced calls per group and bucket (bucket -1: the whole window), for
 * every group: the caller keeps the costliest. Buckets are epoch seconds, as the other series.
 * One more row, `whole` 1, counts the distinct traces of the whole window (a trace with calls of
 * several groups counts once), from the same read of the window's calls. Traces are counted by a
 * 64-bit hash of their id, as the list's total (trace-page-sql.ts): `uniqExact` of the ids took
 * 168 against 119 ms over a week of 100,000 traces.
 */
export function costSeriesSql(group: CostGroup): string {
  const byTrace = BY_TRACE.includes(group);
  const from = byTrace ? `${WINDOW_CALLS} AS c LEFT JOIN ${TRACE_KEYS} AS k ON k.trace_id = c.trace_id` : `${WINDOW_CALLS} AS c`;
  const key = byTrace ? `ifNull(k.${group}, '')` : `c.${group}`;
  return `
SELECT tupleElement(g, 1) AS whole, tupleElement(g, 2) AS key, tupleElement(g, 3) AS bucket,
  sum(cost) AS cost, sum(tokens) AS tokens, uniqExact(cityHash64(trace)) AS traces, sum(unpriced) AS unpriced
FROM (SELECT ${key} AS group_key, c.trace_id AS trace, c.start_time AS start_time, c.cost AS cost, c.tokens AS tokens, c.unpriced AS unpriced FROM ${from})
ARRAY JOIN [
  (toUInt8(0), group_key, toInt64(toUnixTimestamp(toStartOfInterval(start_time, toIntervalSecond({step:UInt32}))))),
  (toUInt8(0), group_key, toInt64(-1)),
  (toUInt8(1), '', toInt64(-1))] AS g
GROUP BY whole, key, bucket`;
}

/** The window's traces with what the top lists rank by: start, session and cost (0 when nothing is priced), one row each (trace-state-rows.ts). */
const WINDOW_TRACES = `(
  SELECT trace_id, start_time, session_id, ifNull(cost, 0) AS cost
  FROM ${traceStateRows(['start_time', 'session_id', 'cost'], { since: `{from:${TIME}}` })}
  WHERE start_time >= {from:${TIME}} AND start_time < {to:${TIME}}
)`;

/**
 * The costliest traces (ids; ties by id, their summaries from TRACE_SUMMARIES give the rest) and
 * the costliest sessions (id, cost, traces started in the window; ties by id) of the window, in one
 * pass over its traces: grouping sets by session and by trace (each trace is one row, so its group
 * is its cost), the first {top} of each set kept (`g` 1: a session). As two queries each merged the
 * window's summaries again (at 100,000 traces, 24 hours: 88 + 87 ms against 101 for both
 * together), and summing per session in one `sumMap` took 165 against 114 ms over a week.
 */
export const TOP_COSTS = `
SELECT
  arrayMap(r -> tupleElement(r, 2), arrayFilter(r -> tupleElement(r, 1) = 0, tops)) AS trace_ids,
  arrayMap(r -> (tupleElement(r, 2), tupleElement(r, 3), tupleElement(r, 4)), arrayFilter(r -> tupleElement(r, 1) = 1, tops)) AS sessions
FROM (
  SELECT arraySort(r -> (tupleElement(r, 1), -tupleElement(r, 3), tupleElement(r, 2)), groupArray((g, key, c, n))) AS tops
  FROM (
    SELECT grouping(trace_id) AS g, if(g = 1, session_id, trace_id) AS key, sum(cost) AS c, count() AS n
    FROM ${WINDOW_TRACES}
    GROUP BY GROUPING SETS ((session_id), (trace_id))
    HAVING key != '' AND c > 0
    ORDER BY g, c DESC, key
    LIMIT {top:UInt32} BY g
  )
)`;
