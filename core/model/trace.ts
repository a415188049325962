import type { SpanCost } from './cost.js';
import type { LlmConversation } from './messages.js';
import type { ComponentType, Convention, SpanContent, SpanStatus, SpanType } from './span.js';
import type { TraceListCursor, TraceSort } from './trace-sort.js';

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
  /** USD over the trace's priced generation spans (docs/costs.md); null when none is priced. */
  total_cost: number | null;
  /** Generation spans whose model the price table does not know: their cost is missing from `total_cost`. */
  unpriced_llm_call_count: number;
  attributes: Record<string, string>;
  /** The conversation the trace is a turn of, from its spans' attributes (docs/api.md, "Sessions"); null when none says. */
  session_id: string | null;
  /** The end user, likewise. */
  user_id: string | null;
}

/** A span as the API shows it. `type` is the SPEC's name for the stored span_type. */
export interface SpanView extends SpanContent {
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
  /** Input tokens served from a prompt cache (part of input_tokens); 0 when not reported. */
  cached_input_tokens: number;
  /** What the span cost (generation spans whose model the price table knows), else null. */
  cost: SpanCost | null;
  attributes: Record<string, string>;
  resource_attributes: Record<string, string>;
  scope: { name: string; version: string };
  events: Array<{ name: string; time: number; attributes: Record<string, unknown> }>;
  /**
   * Generation spans: the conversation in one shape for every convention (messages, tool calls,
   * tools, parameters, finish reasons; core/model/messages.ts); null on other spans. The API
   * builds it when it answers (core/messages), so a store read has none.
   */
  llm?: LlmConversation | null;
}

/** A span in the trace view: `input` and `output` cut to SPAN_TEXT_CAP (core/model/span-page.ts), flagged when cut. */
export interface TraceSpanView extends SpanView {
  input_truncated: boolean;
  output_truncated: boolean;
}

/** GET /api/traces/{id}: the summary and one page of spans in (start_time, span_id) order. */
export interface TraceDetail extends TraceSummary {
  spans: TraceSpanView[];
  /** Pass as `spans_cursor` for the next page; null on the last page. */
  spans_next_cursor: string | null;
}

export interface TraceListQuery {
  limit: number;
  offset: number;
  status?: SpanStatus;
  /** Case-insensitive substring of the trace name. */
  name?: string;
  startTime?: Date;
  endTime?: Date;
  /** Some span of the trace has this model (exact match). */
  model?: string;
  /** Some span of the trace has this component type. */
  componentType?: ComponentType;
  /** The trace lasted at least this long. */
  minDurationMs?: number;
  /** true: some span errored; false: no span errored. */
  hasErrors?: boolean;
  /** The trace belongs to this session / end user (exact ids). */
  sessionId?: string;
  userId?: string;
  /** The trace's service runs in this environment (resource attribute `deployment.environment.name`, or the older `deployment.environment`). */
  environment?: string;
  /** The trace carries this tag (a span's or the JSON body's tag attributes: trace-stats-sql.ts TAG_KEYS). */
  tag?: string;
  /** The trace's latest score named `name` is below `value`. */
  scoreBelow?: { name: string; value: number };
  /**
   * Case-insensitive substring of the trace's name or id (every trace), or of a span's name, input
   * or output (spans of the newest TRACE_SEARCH_WINDOW traces the other filters match).
   */
  search?: string;
  /** Who made the trace: production traffic, an evaluation run's case, or an online rule's judge ({@link TRACE_SOURCES}). */
  source?: TraceSource;
  /** The order of the list; newest first when absent. */
  sort?: TraceSort;
  /** Read each listed trace's root input and output previews (the list page shows them; callers that want ids and summaries do not pay for the spans read). */
  previews?: boolean;
  /** Keyset position: only traces after this one in the list's order. */
  cursor?: TraceListCursor;
}

/**
 * Where a trace comes from, by its trace attributes: an evaluation run's case trace names
 * `agent_eval.run_id`, an online rule's judge trace `agent_eval.online_rule_id`; any other is production.
 */
export const TRACE_SOURCES = ['production', 'evaluation', 'online-judge'] as const;
export type TraceSource = (typeof TRACE_SOURCES)[number];

/** The keys GET /api/traces sorts by (`sort`; core/model/trace-sort.ts). */
export const TRACE_SORTS = ['time', 'duration', 'cost', 'tokens', 'score'] as const;
export type TraceSortKey = (typeof TRACE_SORTS)[number];

/** Characters of a trace's root input and output the list shows (whitespace folded, `…` when cut). */
export const TRACE_PREVIEW_CHARS = 120;

/**
 * Traces whose span names, inputs and outputs a `search` reads: the newest that match the other
 * filters. Trace names and ids are searched in every trace.
 */
export const TRACE_SEARCH_WINDOW = 1000;

/** A score name of a trace in the list: its latest value and how many scores of that name the trace has. */
export interface TraceScoreSummary {
  name: string;
  value: number;
  count: number;
}

/** A trace as GET /api/traces lists it: the summary and its scores by name. */
export interface TraceListItem extends TraceSummary {
  scores: TraceScoreSummary[];
  /** The first {@link TRACE_PREVIEW_CHARS} characters of the root span's input / output on one line; null when it has none. */
  input_preview: string | null;
  output_preview: string | null;
}

export interface TraceList {
  traces: TraceListItem[];
  total: number;
  limit: number;
  offset: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  /**
   * With `search` only: true when more traces matched the other filters than the search read
   * span contents of (TRACE_SEARCH_WINDOW); older traces then match by name or id alone.
   */
  search_truncated?: boolean;
}
