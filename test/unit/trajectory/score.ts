import { ExpectedSchema, type ScoreDetail, type ToolCall } from '../../../core/model/eval-case.js';
import type { Scorer, ScoreTrace } from '../../../core/scoring/scorer.js';
import { buildSpanTree, type SpanTree } from '../../../core/scoring/trajectory/span-tree.js';

/** Runs a trajectory scorer the way a run does: config parsed by its schema, expected by the case schema, the trace as a tree. */
export async function scoreTree(
  scorer: Scorer,
  tree: SpanTree | undefined,
  config: Record<string, unknown> = {},
  extra: { expected?: Record<string, unknown>; toolCalls?: ToolCall[]; trace?: ScoreTrace; signal?: AbortSignal } = {},
): Promise<ScoreDetail> {
  return await Promise.resolve(
    scorer.evaluate(
      {
        input: 'plan a trip',
        output: 'done',
        expected: ExpectedSchema.parse(extra.expected ?? {}),
        toolCalls: extra.toolCalls ?? [],
        latencyMs: 10,
        ...(tree ? { spanTree: tree } : {}),
        ...(extra.trace ? { trace: extra.trace } : {}),
        config: scorer.configSchema.parse(config),
      },
      extra.signal,
    ),
  );
}

/** A tool call as a span of the ingest shape, for properties (fast: no SDK round trip). */
export interface PlainCall {
  name: string;
  args: unknown;
  error?: boolean;
}

/** A tree of tool spans in sequence under one root, from plain calls. */
export function plainTree(calls: readonly PlainCall[], extra: Array<Record<string, unknown>> = []): SpanTree {
  return buildSpanTree([
    { span_id: 'root', name: 'agent', type: 'span', start_time: 0, end_time: 10 * calls.length + 10 },
    ...calls.map((c, i) => ({
      span_id: `c${i}`,
      parent_span_id: 'root',
      name: c.name,
      type: 'tool',
      status: c.error ? 'error' : 'ok',
      start_time: 10 * i + 1,
      end_time: 10 * i + 9,
      input: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
      attributes: { tool_name: c.name },
    })),
    ...extra,
  ]);
}
