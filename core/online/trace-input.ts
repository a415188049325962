import type { Expected, ToolCall } from '../model/eval-case.js';
import type { ScoreInput } from '../scoring/scorer.js';
import { TOOL_NAME_KEYS } from '../scoring/trajectory/span-tree.js';
import type { ScoredSpan, TraceForScoring } from '../store/online-traces.js';

/**
 * What a rule's scorers see of a stored production trace (docs/online-evals.md, "What scorers
 * see"): the same ScoreInput a case execution gives them, read from the trace's spans.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** The span that stands for the trace: the earliest root (no parent, or a parent not in the trace), else the earliest span. */
function rootOf(spans: readonly ScoredSpan[]): ScoredSpan | undefined {
  const ids = new Set(spans.map((s) => s.span_id));
  return spans.find((s) => s.parent_span_id === null || !ids.has(s.parent_span_id)) ?? spans[0];
}

function toolCall(span: ScoredSpan): ToolCall {
  const named = TOOL_NAME_KEYS.map((k) => span.attributes[k]).find((v) => v !== undefined && v !== '');
  return { name: named ?? span.name, ...(span.input ? { input: span.input } : {}), ...(span.output ? { output: span.output } : {}) };
}

/**
 * A span as judges and HTTP custom scorers see it in `trace.spans`: the ingest shape. The
 * trajectory scorers read the same spans as a span tree (spanTreeOf, core/scoring/trace-view.ts).
 */
function spanView(s: ScoredSpan): Record<string, unknown> {
  return {
    span_id: s.span_id,
    parent_span_id: s.parent_span_id,
    name: s.name,
    type: s.type,
    component_type: s.component_type,
    status: s.status,
    ...(s.status_message ? { status_message: s.status_message } : {}),
    start_time: iso(s.start_ms),
    end_time: iso(s.end_ms),
    ...(s.model ? { model: s.model } : {}),
    input: s.input,
    output: s.output,
    input_tokens: s.input_tokens,
    output_tokens: s.output_tokens,
    ...(s.cost_usd !== undefined && s.cost_usd !== null ? { cost: { total: s.cost_usd } } : {}),
    attributes: s.attributes,
  };
}

/**
 * `input` is the root span's input (else the first span's that has one), `output` the root's
 * output (else that of the span that ended last among those with one); tool calls are the tool
 * spans in start order; usage the trace's generation tokens; latency its duration; `expected`
 * the rule's. Spans come in (start, span id) order, as stored.
 */
export function scoreInputFromTrace(trace: TraceForScoring, expected: Expected): Omit<ScoreInput, 'config'> {
  const spans = trace.spans;
  const root = rootOf(spans);
  const input = root?.input || spans.find((s) => s.input)?.input || '';
  const lastOutput = spans.filter((s) => s.output).reduce<ScoredSpan | undefined>((last, s) => (!last || s.end_ms >= last.end_ms ? s : last), undefined);
  const output = root?.output || lastOutput?.output || '';
  return {
    input,
    output,
    expected,
    toolCalls: spans.filter((s) => s.type === 'tool' || s.component_type === 'tool').map(toolCall),
    usage: { input_tokens: trace.total_input_tokens, output_tokens: trace.total_output_tokens },
    latencyMs: trace.duration_ms,
    trace: { trace_id: trace.trace_id, spans: spans.map(spanView) },
  };
}
