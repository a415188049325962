import type { ScoreInput } from './scorer.js';

/**
 * The `trace` judges and HTTP custom scorers see: the tool calls the agent reported, the spans
 * of the execution (the agent's own, or a stored trace's), token usage and latency. One shape
 * for both, so a custom scorer can be prototyped as a judge prompt and back.
 */
export function traceView(input: Pick<ScoreInput, 'toolCalls' | 'trace' | 'usage' | 'latencyMs'>): Record<string, unknown> {
  return {
    ...(input.trace?.trace_id ? { trace_id: input.trace.trace_id } : {}),
    tool_calls: input.toolCalls,
    spans: input.trace?.spans ?? [],
    usage: input.usage ?? null,
    latency_ms: input.latencyMs,
  };
}
