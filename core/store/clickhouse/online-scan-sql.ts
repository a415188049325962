import type { OnlineRuleFilter } from '../../model/online-rule.js';
import type { SpanStatus, SpanType } from '../../model/span.js';
import type { ScanQuery, TraceForScoring } from '../online-traces.js';
import { toClickHouseTime } from './time.js';
import { TRACE_SUMMARIES } from './trace-stats-sql.js';
import { traceSummary, type TraceRow } from './trace-summary-row.js';

/**
 * What online rules' scans of traces and of sessions share (online-trace-reads.ts,
 * online-session-reads.ts): the store's allowance for writes in flight, which traces are the
 * service's own, the scanned range, and the read of traces with their spans for scorers.
 */

/**
 * Added to every rule's delay: a write is stamped when its insert starts and becomes visible when
 * it commits, so the scan stays this far behind the store's clock for the writes in flight.
 */
export const INSERT_SETTLE_MS = 5000;

export const QUERY_SETTINGS = { max_execution_time: 60 } as const;
export const TIME = "DateTime64(3, 'UTC')";

/**
 * Traces made by the service itself are never a rule's: judge traces of online rules (they would
 * feed back into the rules) and evaluation runs' case traces (test traffic, not production).
 */
export const NOT_SERVICE_TRACES = "NOT mapContains(header_attributes, 'agent_eval.online_rule_id') AND NOT mapContains(header_attributes, 'agent_eval.run_id')";

/**
 * Candidates first from trace_stats rows whose own last_stored falls in the scanned range (a trace
 * whose merged last_stored is in the range has such a row), so only their states are merged.
 */
export const IN_RANGE = `trace_id IN (
      SELECT trace_id FROM agent_eval.trace_stats
      WHERE project_id = {project:String} AND last_stored >= {afterStored:${TIME}} AND last_stored <= {until:${TIME}}
    )`;

/** A rule's `attributes` filter on a merged trace's attributes (root span's, updated by the header's). */
export const ATTRIBUTES_MATCH = 'arrayAll((k, v) -> mapContains(attributes, k) AND attributes[k] = v, {attrKeys:Array(String)}, {attrValues:Array(String)})';

/**
 * A trace's summary states merged, as the filters read them: its end, when it was last stored,
 * errors, the header's name, status and attributes, the root span, and (`attributes`, when the
 * rule filters on them) the attributes {@link ATTRIBUTES_MATCH} reads. `extra` columns follow trace_id.
 */
export function mergedTraceColumns(attributes: boolean, extra: readonly string[] = []): string {
  return [
    'trace_id',
    ...extra,
    'max(max_end) AS end_time',
    'max(last_stored) AS stored',
    'max(has_error) AS span_error',
    'argMaxMerge(header_name) AS header_name',
    'argMaxMerge(header_status) AS header_status',
    'argMaxMerge(header_attributes) AS header_attributes',
    'min(root) AS root_span',
    ...(attributes ? ["mapUpdate(JSONExtract(root_span.5, 'Map(String, String)'), header_attributes) AS attributes"] : []),
  ].join(',\n    ');
}

/** True when the rule filters on attributes. */
export const filtersAttributes = (filter: OnlineRuleFilter): boolean => filter.attributes !== undefined && Object.keys(filter.attributes).length > 0;

/**
 * A rule's next batch past its watermark, traces' or sessions' alike: `sql(afterId)` selects `id`,
 * end_ms and stored_ms in (stored, id) order with the bound parameters below (`afterId` names the
 * watermark's id parameter), one more than `limit` read to tell a full batch.
 */
export async function scanNext<K extends 'trace_id' | 'session_id'>(
  rows: Rows,
  read: { sql(afterId: boolean): string; id: K; afterId: 'afterTrace' | 'afterSession' },
  projectId: string,
  filter: OnlineRuleFilter,
  { after, sinceMs, quietMs, limit }: ScanQuery,
): Promise<{ items: Array<Record<K, string> & { end_ms: number; stored_ms: number }>; untilMs: number; nextStoredMs: number | null }> {
  const attrs = Object.entries(filter.attributes ?? {});
  const untilMs = await scanBound(rows, quietMs);
  if (untilMs <= after.storedMs) return { items: [], untilMs, nextStoredMs: null };
  const found = await rows<Record<K, string> & { end_ms: number | string; stored_ms: number | string }>(read.sql(after.traceId !== null), {
    project: projectId,
    afterStored: toClickHouseTime(after.storedMs),
    [read.afterId]: after.traceId ?? '',
    until: toClickHouseTime(untilMs),
    since: toClickHouseTime(sinceMs),
    limit: limit + 1,
    name: filter.trace_name,
    status: filter.status,
    componentType: filter.component_type,
    attrKeys: attrs.map(([k]) => k),
    attrValues: attrs.map(([, v]) => v),
  });
  const items = found.map((r) => ({ ...r, end_ms: Number(r.end_ms), stored_ms: Number(r.stored_ms) }));
  return { items: items.slice(0, limit), untilMs, nextStoredMs: items.length > limit ? items[limit].stored_ms : null };
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

export type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

/** A scan's upper bound: the store's own clock, minus the rule's quiet time and the settle time. */
export async function scanBound(rows: Rows, quietMs: number): Promise<number> {
  const [clock] = await rows<{ now_ms: number | string }>('SELECT toUnixTimestamp64Milli(now64(3)) AS now_ms', {});
  return Number(clock.now_ms) - quietMs - INSERT_SETTLE_MS;
}

/** The given traces with their spans (at most `maxSpans` each, texts cut to `cap`): what scorers read. */
export async function readTracesForScoring(
  rows: Rows,
  projectId: string,
  traceIds: string[],
  caps: { cap: number; maxSpans: number },
): Promise<Map<string, TraceForScoring>> {
  const out = new Map<string, TraceForScoring>();
  if (traceIds.length === 0) return out;
  const params = { project: projectId, traces: traceIds, ...caps };
  const [summaries, spans] = await Promise.all([rows<TraceRow>(TRACE_SUMMARIES, params), rows<SpanRow>(SPANS_FOR_SCORING, params)]);
  for (const s of summaries.map(traceSummary)) {
    out.set(s.trace_id, {
      trace_id: s.trace_id,
      name: s.name,
      status: s.status,
      start_ms: Date.parse(s.start_time),
      end_ms: Date.parse(s.end_time),
      duration_ms: s.duration_ms,
      total_input_tokens: s.total_input_tokens,
      total_output_tokens: s.total_output_tokens,
      span_count: s.span_count,
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
}
