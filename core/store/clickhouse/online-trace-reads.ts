import type { OnlineRuleFilter } from '../../model/online-rule.js';
import { MAX_SPANS_FOR_SCORERS, SPAN_TEXT_CAP_FOR_SCORERS, type OnlineTraceReads } from '../online-traces.js';
import type { ClickHouseClient } from './client.js';
import {
  ATTRIBUTES_MATCH,
  filtersAttributes,
  INSERT_SETTLE_MS,
  IN_RANGE,
  mergedTraceColumns,
  NOT_SERVICE_TRACES,
  QUERY_SETTINGS,
  readTracesForScoring,
  scanNext,
  TIME,
} from './online-scan-sql.js';
import { createOnlineSessionReads } from './online-session-reads.js';
import { TRACE_FILTERS } from './trace-stats-sql.js';

/**
 * The analytical-store side of online evaluation (docs/online-evals.md): a rule's next traces in
 * (last stored, trace id) order, and what its scorers read of them. Values are always bound; the
 * only text spliced in comes from the fixed fragments below.
 *
 * Times of the scan are the store's own: `trace_stats.last_stored` is stamped by the store when a
 * write lands (migration 005), and the scan's upper bound is the store's clock minus the rule's
 * quiet time, so no worker's clock enters the comparison. Session rules' scans: online-session-reads.ts.
 */

export function nextTracesSql(filter: OnlineRuleFilter, afterTrace: boolean): string {
  const where = [
    `stored <= {until:${TIME}}`,
    afterTrace ? `(stored, trace_id) > ({afterStored:${TIME}}, {afterTrace:String})` : `stored > {afterStored:${TIME}}`,
    `end_time >= {since:${TIME}}`,
    NOT_SERVICE_TRACES,
  ];
  if (filter.trace_name !== undefined) where.push(TRACE_FILTERS.name);
  if (filter.status !== undefined) where.push(TRACE_FILTERS.status);
  const attributes = filtersAttributes(filter);
  if (attributes) where.push(ATTRIBUTES_MATCH);
  const sets = [IN_RANGE];
  if (filter.component_type !== undefined) {
    sets.push(
      `trace_id IN (SELECT trace_id FROM agent_eval.spans WHERE project_id = {project:String} AND component_type = {componentType:String} AND ${IN_RANGE})`,
    );
  }
  return `
SELECT trace_id, toUnixTimestamp64Milli(end_time) AS end_ms, toUnixTimestamp64Milli(stored) AS stored_ms
FROM (
  SELECT
    ${mergedTraceColumns(attributes)}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}${sets.map((s) => `\n    AND ${s}`).join('')}
  GROUP BY trace_id
)
WHERE ${where.join('\n  AND ')}
ORDER BY stored, trace_id
LIMIT {limit:UInt32}`;
}

export { INSERT_SETTLE_MS };

export function createOnlineTraceReads(client: ClickHouseClient): OnlineTraceReads {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: QUERY_SETTINGS });
    return rs.json<T>();
  }

  return {
    ...createOnlineSessionReads(rows),

    async nextTraces(projectId, filter, query) {
      const { items, ...batch } = await scanNext(
        rows,
        { sql: (afterId) => nextTracesSql(filter, afterId), id: 'trace_id', afterId: 'afterTrace' },
        projectId,
        filter,
        query,
      );
      return { traces: items, ...batch };
    },

    tracesForScoring: (projectId, traceIds) =>
      readTracesForScoring(rows, projectId, traceIds, { cap: SPAN_TEXT_CAP_FOR_SCORERS, maxSpans: MAX_SPANS_FOR_SCORERS }),
  };
}
