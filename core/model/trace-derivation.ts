import type { SpanStatus, TraceHeader } from './span.js';

/** What the store reports about a trace's stored spans (newest row per span). */
export interface SpanAggregate {
  start_ms: number;
  end_ms: number;
  /** Name of the earliest root span ('' when no root span arrived yet). */
  root_name: string;
  /** Name of the earliest span, for traces whose root has not arrived. */
  first_name: string;
  root_resource: Record<string, string>;
  /** Sums over generation spans only: wrappers never double count (docs/conventions.md). */
  input_tokens: number;
  output_tokens: number;
  tool_calls: number;
  llm_calls: number;
  spans: number;
  errors: number;
}

export interface DerivedTrace {
  project_id: string;
  trace_id: string;
  name: string;
  status: SpanStatus;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  total_input_tokens: number;
  total_output_tokens: number;
  tool_call_count: number;
  llm_call_count: number;
  span_count: number;
  error_count: number;
  attributes: Record<string, string>;
}

/**
 * Trace-level fields from everything stored for the trace: its spans (any order, any number of
 * batches) and the newest explicit header (the JSON ingest body), if any.
 * - name: the header's, else the root span's, else the earliest span's
 * - status: error when the header says so or any span errored
 * - time range: earliest start to latest end, widened by the header's start + duration
 * - attributes: the root span's resource attributes, updated by the header's attributes
 */
export function deriveTrace(
  key: { project_id: string; trace_id: string },
  spans: SpanAggregate | undefined,
  header: Pick<TraceHeader, 'name' | 'status' | 'start_time' | 'duration_ms' | 'attributes'> | undefined,
): DerivedTrace {
  const starts: number[] = [];
  const ends: number[] = [];
  if (spans) {
    starts.push(spans.start_ms);
    ends.push(spans.end_ms);
  }
  if (header) {
    starts.push(header.start_time);
    ends.push(header.start_time + header.duration_ms);
  }
  const start = starts.length ? Math.min(...starts) : 0;
  const end = Math.max(start, ...ends);
  return {
    ...key,
    name: header?.name || spans?.root_name || spans?.first_name || '',
    status: header?.status === 'error' || (spans?.errors ?? 0) > 0 ? 'error' : 'ok',
    start_ms: start,
    end_ms: end,
    duration_ms: Math.round(end - start),
    total_input_tokens: spans?.input_tokens ?? 0,
    total_output_tokens: spans?.output_tokens ?? 0,
    tool_call_count: spans?.tool_calls ?? 0,
    llm_call_count: spans?.llm_calls ?? 0,
    span_count: spans?.spans ?? 0,
    error_count: spans?.errors ?? 0,
    attributes: { ...(spans?.root_resource ?? {}), ...(header?.attributes ?? {}) },
  };
}
