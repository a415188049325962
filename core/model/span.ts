import type { SpanPricing } from './cost.js';

/** The normalized, stored span: SPEC "Span (stored fields)" plus component_type and provenance. */

export const SPAN_TYPES = ['span', 'generation', 'tool', 'retrieval'] as const;
export type SpanType = (typeof SPAN_TYPES)[number];

/**
 * The SPEC's eight component types, plus `simulated_user`: the calls of a simulated user's LLM in
 * an eval run's case trace (generation spans; docs/evals.md, "Simulated users"), apart from the
 * agent's own model calls.
 */
export const COMPONENT_TYPES = ['generation', 'tool', 'retrieval', 'reasoning', 'planning', 'routing', 'memory', 'prompt', 'simulated_user'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** Which convention classified a span; shown by the API so a user can see why a span got its type. */
export const CONVENTIONS = ['genai', 'openinference', 'vercel-ai', 'openllmetry', 'spec', 'none'] as const;
export type Convention = (typeof CONVENTIONS)[number];

export type SpanStatus = 'ok' | 'error';

/** What a span says and how many tokens it took: the same fields in the stored span, the API's view of one and what scorers read. */
export interface SpanContent {
  model: string | null;
  input: string;
  output: string;
  input_tokens: number;
  output_tokens: number;
}

export interface SpanRecord extends SpanContent {
  project_id: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  span_type: SpanType;
  component_type: ComponentType | null;
  convention: Convention;
  /** OTel span kind (internal, server, client, ...) or '' when unknown. */
  kind: string;
  status: SpanStatus;
  status_message: string;
  /** Milliseconds since the epoch. */
  start_time: number;
  end_time: number;
  duration_ms: number;
  /** All span attributes, stringified (objects and arrays as JSON). */
  attributes: Record<string, string>;
  resource_attributes: Record<string, string>;
  scope_name: string;
  scope_version: string;
  /** Span events as a JSON array of {name, time, attributes}. */
  events: string;
  /** Generation spans: input tokens served from a prompt cache (part of input_tokens), set when priced. */
  cached_input_tokens?: number;
  /** Generation spans: what the price table said at ingest (docs/costs.md); absent when never priced. */
  pricing?: SpanPricing;
}

/**
 * Trace-level fields a client stated explicitly (the JSON ingest body). Spans remain the
 * source of derived fields; explicit values take precedence for name, widen the time range,
 * and an explicit `error` status marks the trace as errored.
 */
export interface TraceHeader {
  project_id: string;
  trace_id: string;
  name: string;
  status: SpanStatus;
  start_time: number;
  duration_ms: number;
  attributes: Record<string, string>;
}

/**
 * One unit of work for the write path: rows encoded once, at ingest, as JSONEachRow lines
 * (core/store/clickhouse/rows.ts). The batcher concatenates them into one insert, Kafka messages
 * carry them, and the ingester inserts them as they are.
 */
export interface RowBatch {
  /** Rows of `spans`. */
  spans: string[];
  /** Rows of `trace_stats_input`: what these spans and trace headers add to their traces' summaries. */
  stats: string[];
}
