import type { ClickHouseClient } from '@clickhouse/client';
import type { WriteBatch } from '../../model/span.js';
import { deriveTrace, type SpanAggregate } from '../../model/trace-derivation.js';
import { spanRow, toClickHouseTime, toClickHouseMicros, traceHeaderRow } from './rows.js';
import { LATEST_HEADERS, SPAN_AGGREGATES } from './trace-sql.js';

type Num = number | string;
type AggregateRow = { project_id: string; trace_id: string } & { [K in keyof SpanAggregate]: SpanAggregate[K] extends number ? Num : SpanAggregate[K] };
interface HeaderRow {
  project_id: string;
  trace_id: string;
  name: string;
  status: 'ok' | 'error';
  start_ms: Num;
  duration_ms: Num;
  attributes: Record<string, string>;
}

let lastVersion = 0;
/**
 * Microseconds since the epoch, strictly increasing within the process. Taken BEFORE the reads a
 * derivation is based on: a newer version has always seen at least what an older one saw.
 */
function nextVersion(): number {
  lastVersion = Math.max(lastVersion + 1, Math.floor((performance.timeOrigin + performance.now()) * 1000));
  return lastVersion;
}

/**
 * The idempotent write of a batch: insert spans and trace headers, then re-derive the touched
 * traces from everything stored for them (docs/architecture.md: derived, never accumulated).
 */
export function createBatchWriter(client: ClickHouseClient) {
  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await client.query({ query, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async function deriveTraces(keys: Map<string, { project_id: string; trace_id: string }>): Promise<void> {
    const version = nextVersion();
    const params = {
      projects: [...new Set([...keys.values()].map((k) => k.project_id))],
      traces: [...new Set([...keys.values()].map((k) => k.trace_id))],
    };
    const [aggregates, headers] = await Promise.all([rows<AggregateRow>(SPAN_AGGREGATES, params), rows<HeaderRow>(LATEST_HEADERS, params)]);
    const aggByKey = new Map(aggregates.map((a) => [`${a.project_id}/${a.trace_id}`, a]));
    const headerByKey = new Map(headers.map((h) => [`${h.project_id}/${h.trace_id}`, h]));
    const derived = [...keys].map(([id, key]) => {
      const a = aggByKey.get(id);
      const h = headerByKey.get(id);
      const trace = deriveTrace(
        key,
        a && {
          start_ms: Number(a.start_ms),
          end_ms: Number(a.end_ms),
          root_name: a.root_name,
          first_name: a.first_name,
          root_resource: a.root_resource,
          input_tokens: Number(a.input_tokens),
          output_tokens: Number(a.output_tokens),
          tool_calls: Number(a.tool_calls),
          llm_calls: Number(a.llm_calls),
          spans: Number(a.spans),
          errors: Number(a.errors),
        },
        h && { name: h.name, status: h.status, start_time: Number(h.start_ms), duration_ms: Number(h.duration_ms), attributes: h.attributes },
      );
      const { start_ms, end_ms, ...rest } = trace;
      return { ...rest, start_time: toClickHouseTime(start_ms), end_time: toClickHouseTime(end_ms), version: toClickHouseMicros(version) };
    });
    await client.insert({ table: 'agent_eval.traces', values: derived, format: 'JSONEachRow' });
  }

  return {
    async writeBatch(batch: WriteBatch): Promise<void> {
      if (batch.spans.length === 0 && batch.traces.length === 0) return;
      const inserts: Promise<unknown>[] = [];
      if (batch.spans.length) inserts.push(client.insert({ table: 'agent_eval.spans', values: batch.spans.map(spanRow), format: 'JSONEachRow' }));
      if (batch.traces.length) {
        inserts.push(client.insert({ table: 'agent_eval.trace_headers', values: batch.traces.map(traceHeaderRow), format: 'JSONEachRow' }));
      }
      await Promise.all(inserts);
      const keys = new Map<string, { project_id: string; trace_id: string }>();
      for (const item of [...batch.spans, ...batch.traces]) keys.set(`${item.project_id}/${item.trace_id}`, { project_id: item.project_id, trace_id: item.trace_id });
      await deriveTraces(keys);
    },
  };
}
