import type { OnlineRuleFilter } from '../../model/online-rule.js';
import type { SpanStatus, SpanType } from '../../model/span.js';
import { MAX_SPANS_FOR_SCORERS, SPAN_TEXT_CAP_FOR_SCORERS, type OnlineTraceReads, type TraceForScoring } from '../online-traces.js';
import type { ClickHouseClient } from './client.js';
import { toClickHouseTime } from './time.js';
import { TRACE_FILTERS, TRACE_SUMMARIES } from './trace-stats-sql.js';

/**
 * The analytical-store side of online evaluation (docs/online-evals.md): a rule's next traces in
 * (last stored, trace id) order, and what its scorers read of them. Values are always bound; the
 * only text spliced in comes from the fixed fragments below.
 *
 * Times of the scan are the store's own: `trace_stats.last_stored` is stamped by the store when a
 * write lands (migration 005), and the scan's upper bound is the store's clock minus the rule's
 * quiet time, so no worker's clock enters the comparison.
 */

/**
 * Added to every rule's delay: a write is stamped when its insert starts and becomes visible when
 * it commits, so the scan stays this far behind the store's clock for the writes in flight.
 */
export const INSERT_SETTLE_MS = 5000;

const QUERY_SETTINGS = { max_execution_time: 60 } as const;
const TIME = "DateTime64(3, 'UTC')";

/**
 * Traces made by the service itself are never a rule's: judge traces of online rules (they would
 * feed back into the rules) and evaluation runs' case traces (test traffic, not production).
 */
const NOT_SERVICE_TRACES = "NOT mapContains(header_attributes, 'agent_eval.online_rule_id') AND NOT mapContains(header_attributes, 'agent_eval.run_id')";

/**
 * Candidates first from trace_stats rows whose own last_stored falls in the scanned range (a trace
 * whose merged last_stored is in the range has such a row), so only their states are merged.
 */
const IN_RANGE = `trace_id IN (
      SELECT trace_id FROM agent_eval.trace_stats
      WHERE project_id = {project:String} AND last_stored >= {afterStored:${TIME}} AND last_stored <= {until:${TIME}}
    )`;

export function nextTracesSql(filter: OnlineRuleFilter, afterTrace: boolean): string {
  const where = [
    `stored <= {until:${TIME}}`,
    afterTrace ? `(stored, trace_id) > ({afterStored:${TIME}}, {afterTrace:String})` : `stored > {afterStored:${TIME}}`,
    `end_time >= {since:${TIME}}`,
    NOT_SERVICE_TRACES,
  ];
  if (filter.trace_name !== undefined) where.push(TRACE_FILTERS.name);
  if (filter.status !== undefined) where.push(TRACE_FILTERS.status);
  const attributes = filter.attributes !== undefined && Object.keys(filter.attributes).length > 0;
  if (attributes) where.push('arrayAll((k, v) -> mapContains(attributes, k) AND attributes[k] = v, {attrKeys:Array(String)}, {attrValues:Array(String)})');
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
    trace_id,
    max(max_end) AS end_time,
    max(last_stored) AS stored,
    max(has_error) AS span_error,
    argMaxMerge(header_name) AS header_name,
    argMaxMerge(header_status) AS header_status,
    argMaxMerge(header_attributes) AS header_attributes,
    min(root) AS root_span${attributes ? ",\n    mapUpdate(JSONExtract(root_span.5, 'Map(String, String)'), header_attributes) AS attributes" : ''}
  FROM agent_eval.trace_stats
  WHERE project_id = {project:String}${sets.map((s) => `\n    AND ${s}`).join('')}
  GROUP BY trace_id
)
WHERE ${where.join('\n  AND ')}
ORDER BY stored, trace_id
LIMIT {limit:UInt32}`;
}

const SPANS_FOR_SCORING = `
SELECT trace_id, span_id, parent_span_id, name, span_type, component_type, status, status_message,
  toUnixTimestamp64Milli(start_time) AS start_ms, toUnixTimestamp64Milli(end_time) AS end_ms, model,
  input, output, input_tokens, output_tokens, total_cost, attributes
FROM (
  SELECT trace_id, span_id, parent_span_id, name, span_type, component_type, status, status_message, start_time, end_time, model,
    substringUTF8(input, 1, {cap:UInt32}) AS input, substringUTF8(output, 1, {cap:UInt32}) AS output, input_tokens, output_tokens, total_cost, attributes
  FROM agent_eval.spans
  WHERE project_id = {project:String} AND trace_id IN {traces:Array(String)}
  ORDER BY ingested_at DESC
  LIMIT 1 BY trace_id, span_id
)
ORDER BY trace_id, start_time, span_id
LIMIT {maxSpans:UInt32} BY trace_id`;

interface SummaryRow {
  trace_id: string;
  name: string;
  status: SpanStatus;
  start_time: string;
  end_time: string;
  duration_ms: number | string;
  span_count: number | string;
  total_input_tokens: number | string;
  total_output_tokens: number | string;
  attributes: Record<string, string>;
}

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  span_type: SpanType;
  component_type: string;
  status: SpanStatus;
  status_message: string;
  start_ms: number | string;
  end_ms: number | string;
  model: string;
  input: string;
  output: string;
  input_tokens: number | string;
  output_tokens: number | string;
  /** Null when the price table did not price the span. */
  total_cost: number | string | null;
  attributes: Record<string, string>;
}

const orNull = (v: string): string | null => (v === '' ? null : v);
const ms = (clickhouseTime: string) => Date.parse(`${clickhouseTime.replace(' ', 'T')}Z`);

export function createOnlineTraceReads(client: ClickHouseClient): OnlineTraceReads {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: QUERY_SETTINGS });
    return rs.json<T>();
  }

  return {
    async nextTraces(projectId, filter, { after, sinceMs, quietMs, limit }) {
      const attrs = Object.entries(filter.attributes ?? {});
      const [clock] = await rows<{ now_ms: number | string }>('SELECT toUnixTimestamp64Milli(now64(3)) AS now_ms', {});
      const untilMs = Number(clock.now_ms) - quietMs - INSERT_SETTLE_MS;
      if (untilMs <= after.storedMs) return { traces: [], untilMs, nextStoredMs: null };
      const found = await rows<{ trace_id: string; end_ms: number | string; stored_ms: number | string }>(nextTracesSql(filter, after.traceId !== null), {
        project: projectId,
        afterStored: toClickHouseTime(after.storedMs),
        afterTrace: after.traceId ?? '',
        until: toClickHouseTime(untilMs),
        since: toClickHouseTime(sinceMs),
        limit: limit + 1,
        name: filter.trace_name,
        status: filter.status,
        componentType: filter.component_type,
        attrKeys: attrs.map(([k]) => k),
        attrValues: attrs.map(([, v]) => v),
      });
      const traces = found.map((r) => ({ trace_id: r.trace_id, end_ms: Number(r.end_ms), stored_ms: Number(r.stored_ms) }));
      return { traces: traces.slice(0, limit), untilMs, nextStoredMs: traces.length > limit ? traces[limit].stored_ms : null };
    },

    async tracesForScoring(projectId, traceIds) {
      const out = new Map<string, TraceForScoring>();
      if (traceIds.length === 0) return out;
      const params = { project: projectId, traces: traceIds, cap: SPAN_TEXT_CAP_FOR_SCORERS, maxSpans: MAX_SPANS_FOR_SCORERS };
      const [summaries, spans] = await Promise.all([rows<SummaryRow>(TRACE_SUMMARIES, params), rows<SpanRow>(SPANS_FOR_SCORING, params)]);
      for (const s of summaries) {
        out.set(s.trace_id, {
          trace_id: s.trace_id,
          name: s.name,
          status: s.status,
          start_ms: ms(s.start_time),
          end_ms: ms(s.end_time),
          duration_ms: Number(s.duration_ms),
          total_input_tokens: Number(s.total_input_tokens),
          total_output_tokens: Number(s.total_output_tokens),
          span_count: Number(s.span_count),
          attributes: s.attributes,
          spans: [],
        });
      }
      for (const r of spans) {
        out.get(r.trace_id)?.spans.push({
          span_id: r.span_id,
          parent_span_id: orNull(r.parent_span_id),
          name: r.name,
          type: r.span_type,
          component_type: orNull(r.component_type),
          status: r.status,
          status_message: orNull(r.status_message),
          start_ms: Number(r.start_ms),
          end_ms: Number(r.end_ms),
          model: orNull(r.model),
          input: r.input,
          output: r.output,
          input_tokens: Number(r.input_tokens),
          output_tokens: Number(r.output_tokens),
          cost_usd: r.total_cost === null ? null : Number(r.total_cost),
          attributes: r.attributes,
        });
      }
      return out;
    },
  };
}
