import type { OnlineRuleFilter } from '../../model/online-rule.js';
import {
  MAX_SESSION_TURNS_FOR_SCORERS,
  MAX_TURN_SPANS_FOR_SCORERS,
  SESSION_SPAN_TEXT_CAP,
  type OnlineTraceReads,
  type TraceForScoring,
} from '../online-traces.js';
import {
  ATTRIBUTES_MATCH,
  filtersAttributes,
  IN_RANGE,
  mergedTraceColumns,
  NOT_SERVICE_TRACES,
  readTracesForScoring,
  scanNext,
  TIME,
  type Rows,
} from './online-scan-sql.js';
import { TRACE_FILTERS } from './trace-stats-sql.js';

/**
 * Session rules' side of the analytical store (docs/online-evals.md, "Session rules"): a rule's
 * next idle sessions in (last stored, session id) order, and a session's turns for its scorers.
 * A session is the traces whose merged summary names its id (migration 009), the service's own
 * traces left out; when it was last stored is the latest `last_stored` of those traces (store
 * time, stamped by the store), so a session is idle when none of its traces was written since.
 */

/**
 * The sessions of traces written in the scanned range: a session last written in the range has a
 * trace with a write there. The trace's id may ride on another write of it than the one in range,
 * so the ids are those of the traces' merged summaries.
 */
const SESSIONS_IN_RANGE = `session_id IN (
      SELECT session_id FROM (
        SELECT max(session_id) AS session_id FROM agent_eval.trace_stats
        WHERE project_id = {project:String} AND ${IN_RANGE}
        GROUP BY trace_id
      ) WHERE session_id != ''
    )`;

/**
 * The next sessions after the watermark. Each candidate session's traces are merged (all of them:
 * a trace written after the scan's bound keeps the session out, it is not idle), then folded per
 * session. Filters: `trace_name`, `attributes` and `component_type` hold when at least one trace
 * of the session matches them all (as a trace rule would match it); `status` is the session's
 * (error when any of its traces errored).
 */
export function nextSessionsSql(filter: OnlineRuleFilter, afterSession: boolean): string {
  const traceConds: string[] = [];
  if (filter.trace_name !== undefined) traceConds.push(TRACE_FILTERS.name);
  const attributes = filtersAttributes(filter);
  if (attributes) traceConds.push(ATTRIBUTES_MATCH);
  const sessionTraces = `SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND ${SESSIONS_IN_RANGE}`;
  if (filter.component_type !== undefined)
    traceConds.push(
      `trace_id IN (SELECT trace_id FROM agent_eval.spans WHERE project_id = {project:String} AND component_type = {componentType:String} AND trace_id IN (${sessionTraces}))`,
    );
  const having = [
    `max(stored) <= {until:${TIME}}`,
    afterSession ? `(max(stored), session_id) > ({afterStored:${TIME}}, {afterSession:String})` : `max(stored) > {afterStored:${TIME}}`,
    `max(end_time) >= {since:${TIME}}`,
  ];
  if (traceConds.length) having.push('countIf(matched) > 0');
  if (filter.status !== undefined) having.push("(countIf(failed) > 0) = ({status:String} = 'error')");
  return `
SELECT session_id, toUnixTimestamp64Milli(max(end_time)) AS end_ms, toUnixTimestamp64Milli(max(stored)) AS stored_ms
FROM (
  SELECT
    session_id,
    end_time,
    stored,
    (span_error = 1 OR header_status = 'error') AS failed,
    ${traceConds.length ? traceConds.join(' AND ') : '1'} AS matched
  FROM (
    SELECT
      ${mergedTraceColumns(attributes, ['max(session_id) AS session_id'])}
    FROM agent_eval.trace_stats
    WHERE project_id = {project:String} AND trace_id IN (${sessionTraces})
    GROUP BY trace_id
  )
  WHERE session_id != '' AND ${NOT_SERVICE_TRACES}
)
GROUP BY session_id
HAVING ${having.join('\n  AND ')}
ORDER BY stored_ms, session_id
LIMIT {limit:UInt32}`;
}

/** The session's latest {turns} traces a rule may see (newest first), and how many it has. */
export const SESSION_TURN_IDS = `
SELECT trace_id, count() OVER () AS total
FROM (
  SELECT trace_id, max(session_id) AS session_id, min(min_start) AS start_time, argMaxMerge(header_attributes) AS header_attributes
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}
    AND trace_id IN (SELECT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String} AND session_id = {session:String})
  GROUP BY trace_id
)
WHERE session_id = {session:String} AND ${NOT_SERVICE_TRACES}
ORDER BY start_time DESC, trace_id DESC
LIMIT {turns:UInt32}`;

/** Session rules' reads over a query function (the same ClickHouse client as the trace rules'). */
export function createOnlineSessionReads(rows: Rows): Pick<OnlineTraceReads, 'nextSessions' | 'sessionForScoring'> {
  return {
    async nextSessions(projectId, filter, query) {
      const read = { sql: (afterId: boolean) => nextSessionsSql(filter, afterId), id: 'session_id' as const, afterId: 'afterSession' as const };
      const { items, ...batch } = await scanNext(rows, read, projectId, filter, query);
      return { sessions: items, ...batch };
    },

    async sessionForScoring(projectId, sessionId) {
      const ids = await rows<{ trace_id: string; total: number | string }>(SESSION_TURN_IDS, {
        project: projectId,
        session: sessionId,
        turns: MAX_SESSION_TURNS_FOR_SCORERS,
      });
      if (ids.length === 0) return null;
      const order = ids.map((r) => r.trace_id).reverse();
      const read = await readTracesForScoring(rows, projectId, order, { cap: SESSION_SPAN_TEXT_CAP, maxSpans: MAX_TURN_SPANS_FOR_SCORERS });
      const traces = order.map((id) => read.get(id)).filter((t): t is TraceForScoring => t !== undefined);
      return { session_id: sessionId, trace_count: Number(ids[0].total), traces };
    },
  };
}
