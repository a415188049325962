import { caseInput } from '../feedback/reviewed-case.js';
import type { CaseField } from '../model/dataset.js';
import type { ExpectedCall } from '../model/expected-trajectory.js';
import { pgSafeText } from '../model/pg-json.js';
import type { SpanView, TraceSummary } from '../model/trace.js';
import { buildSpanTree, type SpanNode, type SpanTree } from '../scoring/trajectory/span-tree.js';

/**
 * A trace, or one span of it, as a suite case (docs/api.md "Datasets from production"): the
 * span's input as the case input, its output as `expected.output` (or kept for reference), the
 * tool calls under it as `expected.trajectory.calls` (read by the span tree the trajectory
 * scorers use, arguments parsed the same way), chosen attributes as metadata, and where it came
 * from as `source`. Pure: the spans are read by core/datasets/trace-source.ts.
 */

/** A trace as read for a case: its summary and spans, the chosen span's texts and the tool spans' whole. */
export interface TraceForCase {
  trace: Pick<TraceSummary, 'trace_id' | 'name' | 'session_id' | 'user_id'>;
  spans: readonly SpanView[];
  /** The span the case is made from; the trace's root when absent. */
  spanId?: string;
}

export interface CaseOptions {
  fields: readonly CaseField[];
  expected_from_output: boolean;
  attributes: readonly string[];
}

/** The span a case is made from: the one named, else the trace's root (the first span without a parent, else its first span). */
export function caseSpan(tree: SpanTree, spanId?: string): SpanNode | undefined {
  if (spanId !== undefined) return tree.get(spanId);
  return tree.roots.find((n) => n.link === 'root') ?? tree.roots[0];
}

/** The tool calls made under `node` (itself included), in start order, with their arguments when they are JSON. */
export function trajectoryCalls(tree: SpanTree, node: SpanNode): ExpectedCall[] {
  const under = new Set([node, ...tree.descendants(node)]);
  return tree
    .toolCalls()
    .filter((call) => under.has(call.span))
    .map((call) => (call.arguments.kind === 'json' ? { name: call.name, args: call.arguments.value } : { name: call.name }));
}

function pickAttributes(span: SpanView, keys: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of keys) if (Object.hasOwn(span.attributes, key)) picked[key] = span.attributes[key];
  return picked;
}

/** What a case keeps of where it came from, beside its source ids (with `metadata` in fields). */
function metadataOf(t: TraceForCase, span: SpanView, isRoot: boolean, opts: CaseOptions): Record<string, unknown> {
  const meta: Record<string, unknown> = { trace_name: t.trace.name };
  if (!isRoot) meta.span_name = span.name;
  if (span.model) meta.model = span.model;
  if (t.trace.user_id) meta.user_id = t.trace.user_id;
  const attributes = pickAttributes(span, opts.attributes);
  if (Object.keys(attributes).length) meta.attributes = attributes;
  return meta;
}

/** The input and expectations a span gives a case (or a scripted turn). */
export function spanExpectations(tree: SpanTree, node: SpanNode, span: SpanView, opts: CaseOptions): { input: unknown; expected: Record<string, unknown> } {
  const expected: Record<string, unknown> = {};
  if (opts.fields.includes('output') && opts.expected_from_output) expected.output = pgSafeText(span.output);
  if (opts.fields.includes('trajectory')) expected.trajectory = { calls: trajectoryCalls(tree, node) };
  return { input: caseInput(span.input), expected };
}

/** The case (as a suite body gives it) a trace or span makes; null when the trace has no such span. */
export function caseFromTrace(t: TraceForCase, opts: CaseOptions, name: string): Record<string, unknown> | null {
  const tree = buildSpanTree(t.spans, t.trace.trace_id);
  const node = caseSpan(tree, t.spanId);
  const span = node && t.spans.find((s) => s.span_id === node.id);
  if (!node || !span) return null;
  const { input, expected } = spanExpectations(tree, node, span, opts);
  const c: Record<string, unknown> = { name, input, expected };
  const source: Record<string, string> = { trace_id: t.trace.trace_id };
  if (t.spanId !== undefined) source.span_id = t.spanId;
  if (t.trace.session_id) source.session_id = t.trace.session_id;
  c.source = source;
  const metadata: Record<string, unknown> = opts.fields.includes('metadata') ? metadataOf(t, span, t.spanId === undefined, opts) : {};
  if (opts.fields.includes('output') && !opts.expected_from_output) metadata.output = pgSafeText(span.output);
  if (Object.keys(metadata).length) c.metadata = metadata;
  return c;
}

/** A session's traces (oldest first) as one scripted conversation: each trace's root a user turn. */
export function conversationFromTraces(sessionId: string, traces: readonly TraceForCase[], opts: CaseOptions, name: string): Record<string, unknown> | null {
  const turns = [];
  for (const t of traces) {
    const tree = buildSpanTree(t.spans, t.trace.trace_id);
    const node = caseSpan(tree);
    const span = node && t.spans.find((s) => s.span_id === node.id);
    if (node && span) turns.push(spanExpectations(tree, node, span, opts));
  }
  if (!turns.length) return null;
  const c: Record<string, unknown> = { name, turns, source: { trace_id: traces[0].trace.trace_id, session_id: sessionId } };
  if (opts.fields.includes('metadata')) c.metadata = { trace_ids: traces.map((t) => t.trace.trace_id) };
  return c;
}
