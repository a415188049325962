import type { SpanStatus } from '../../model/span.js';
import type { TraceSummary } from '../../model/trace.js';
import { fromClickHouseTime } from './time.js';

/**
 * A trace's summary as TRACE_SUMMARIES and TRACE_SUMMARY read it (trace-stats-sql.ts): its merged
 * states nearly as stored, the few sums ClickHouse does in one call each. The derived fields (name,
 * status, duration, counts, cost, attributes) are computed here, not in SQL: each expression of a
 * statement costs ClickHouse analysis time whatever it reads, and the derived select list was a
 * third of a trace's summary read (docs/benchmarks.md, "A trace's summary as its states").
 *
 * The same derivations exist in SQL (trace-stats-sql.ts: NAME, STATUS, TRACE_COST,
 * UNPRICED_CALLS, and `traceSummariesSql` for the bulk export, which ClickHouse formats itself):
 * test/integration/trace-summary-row.test.ts holds the two to the same answers.
 */
export interface TraceRow {
  trace_id: string;
  start_time: string;
  end_time: string;
  /** 1 when any span of the trace is an error. */
  span_error: number | string;
  /** The newest explicit trace header's name and status ('' when none). */
  header_name: string;
  header_status: string;
  header_attributes: Record<string, string>;
  /** (is_child, start_time, span_id, name, resource attributes as JSON) of the span that names the trace: its root, else its earliest span. */
  root_span: [number | string, string, string, string, string];
  /** '' when the trace has none (migration 009). */
  session_id: string;
  user_id: string;
  /** Per span, once each: flags (1 stored, 2 error, 4 tool, 8 generation). */
  span_flags: Array<number | string>;
  total_input_tokens: number | string;
  total_output_tokens: number | string;
  /** The sum of the generations' costs, and per generation whether it was priced (1) or not (0). */
  cost_sum: number | string;
  cost_priced: Array<number | string>;
}

const ERROR = 2;
const TOOL = 4;
const GENERATION = 8;

/** The span that names the trace, where its previews are read. */
export const rootSpanId = (r: TraceRow): string => r.root_span[2];

export function traceSummary(r: TraceRow): TraceSummary {
  const start = fromClickHouseTime(r.start_time);
  const end = fromClickHouseTime(r.end_time);
  let errors = 0;
  let tools = 0;
  let generations = 0;
  for (const f of r.span_flags) {
    const flags = Number(f);
    if (flags & ERROR) errors++;
    if (flags & TOOL) tools++;
    if (flags & GENERATION) generations++;
  }
  const priced = r.cost_priced.map(Number);
  return {
    trace_id: r.trace_id,
    name: r.header_name !== '' ? r.header_name : r.root_span[3],
    status: (Number(r.span_error) === 1 || r.header_status === 'error' ? 'error' : 'ok') satisfies SpanStatus,
    start_time: start,
    end_time: end,
    duration_ms: Math.max(0, Date.parse(end) - Date.parse(start)),
    span_count: r.span_flags.length,
    error_count: errors,
    total_input_tokens: Number(r.total_input_tokens),
    total_output_tokens: Number(r.total_output_tokens),
    tool_call_count: tools,
    llm_call_count: generations,
    total_cost: priced.includes(1) ? Number(r.cost_sum) : null,
    unpriced_llm_call_count: priced.filter((p) => p === 0).length,
    attributes: { ...resourceAttributes(r.root_span[4]), ...r.header_attributes },
    session_id: r.session_id === '' ? null : r.session_id,
    user_id: r.user_id === '' ? null : r.user_id,
  };
}

/**
 * The root's resource attributes from their JSON, as ClickHouse's `JSONExtract(json, 'Map(String,
 * String)')` reads them: not an object, nothing; a value that is not a string, its JSON text (null
 * as ''). The write path stores an object of strings (trace-stats-rows.ts).
 */
function resourceAttributes(json: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  // fromEntries defines each key as an own property: an attribute named `__proto__` stays a key.
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : v === null ? '' : JSON.stringify(v)]));
}
