import type { ScoreInput, ScoreTrace } from './scorer.js';
import { buildSpanTree, type SpanTree } from './trajectory/span-tree.js';

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

/** Trees built from a trace's spans, so the trajectory scorers of one case build it once. */
const builtTrees = new WeakMap<ScoreTrace, SpanTree>();

/**
 * The same execution as a span tree, for the trajectory scorers: the tree the input carries
 * (`spanTree`, built by the caller from the stored, normalized spans), else one built from the
 * spans judges see (`trace.spans`: span views of a stored trace, or the agent's own spans in the
 * ingest shape, read leniently: core/scoring/trajectory/span-tree.ts); undefined when the input
 * has neither (the SDK's local runs).
 */
export function spanTreeOf(input: Pick<ScoreInput, 'spanTree' | 'trace'>): SpanTree | undefined {
  if (input.spanTree) return input.spanTree;
  if (!input.trace) return undefined;
  let tree = builtTrees.get(input.trace);
  if (!tree) {
    tree = buildSpanTree(input.trace.spans, input.trace.trace_id ?? null);
    builtTrees.set(input.trace, tree);
  }
  return tree;
}
