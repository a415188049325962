import type { ComponentType, Convention, SpanStatus, SpanType } from './span.js';

/** A trace as listed by GET /api/traces. Times are ISO 8601 with milliseconds. */
export interface TraceSummary {
  trace_id: string;
  name: string;
  status: SpanStatus;
  start_time: string;
  end_time: string;
  duration_ms: number;
  span_count: number;
  error_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  tool_call_count: number;
  llm_call_count: number;
  attributes: Record<string, string>;
}

/** A span as the API shows it. `type` is the SPEC's name for the stored span_type. */
export interface SpanView {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  type: SpanType;
  component_type: ComponentType | null;
  /** Which convention classified the span (genai, openinference, vercel-ai, openllmetry, spec, none). */
  convention: Convention;
  kind: string | null;
  status: SpanStatus;
  status_message: string | null;
  start_time: string;
  end_time: string;
  duration_ms: number;
  model: string | null;
  input: string;
  output: string;
  input_tokens: number;
  output_tokens: number;
  attributes: Record<string, string>;
  resource_attributes: Record<string, string>;
  scope: { name: string; version: string };
  events: Array<{ name: string; time: number; attributes: Record<string, unknown> }>;
}

export interface TraceDetail extends TraceSummary {
  spans: SpanView[];
}

export interface TraceListQuery {
  limit: number;
  offset: number;
  status?: SpanStatus;
  /** Case-insensitive substring of the trace name. */
  name?: string;
  startTime?: Date;
  endTime?: Date;
}

export interface TraceList {
  traces: TraceSummary[];
  total: number;
  limit: number;
  offset: number;
}
