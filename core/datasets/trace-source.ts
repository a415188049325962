import { classifyStoreError, NotFoundError } from '../errors.js';
import { MAX_CONVERSATION_TURNS } from '../model/conversation.js';
import { decodeKeysetCursor } from '../model/keyset-cursor.js';
import { MAX_SPANS_PAGE } from '../model/span-page.js';
import type { SpanView, TraceListQuery } from '../model/trace.js';
import type { AnalyticsStore } from '../store/analytics.js';
import type { TraceForCase } from './case-from-trace.js';

/**
 * What cases are made from, read from the analytical store for one project only: a trace with
 * its spans (the chosen span's texts and its tool spans' whole, not the trace view's cut), a
 * span's trace, the traces a filter selects (newest first, up to a cap), a session's traces.
 */

type Reads = Pick<AnalyticsStore, 'getTrace' | 'getSpan' | 'listTraces'>;

/** Spans of one trace read for a case (the first pages of the trace view). */
export const MAX_CASE_TRACE_SPANS = 20_000;
/** Traces read at once. */
const PARALLEL_TRACES = 4;

const traceNotFound = (id: string) => new NotFoundError(`Trace with ID '${id}' not found`, 'TRACE_NOT_FOUND');

async function store<T>(operation: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw classifyStoreError('analytics', operation, err);
  }
}

/** Whether a case reads the span's texts: the chosen span (a root when none is), and tool calls for their arguments. */
function readWhole(s: SpanView, spanId: string | undefined): boolean {
  return s.span_id === spanId || (spanId === undefined && s.parent_span_id === null) || s.component_type === 'tool' || s.type === 'tool';
}

/** The trace as a case reads it; 404 when the project has no such trace (or no such span in it). */
export async function readTraceForCase(analytics: Reads, projectId: string, traceId: string, spanId?: string): Promise<TraceForCase> {
  return store('fetch trace', async () => {
    const first = await analytics.getTrace(projectId, traceId, { limit: MAX_SPANS_PAGE });
    if (!first) throw traceNotFound(traceId);
    const spans = [...first.spans];
    let cursor = first.spans_next_cursor;
    while (cursor !== null && spans.length < MAX_CASE_TRACE_SPANS) {
      const position = decodeKeysetCursor(cursor);
      if (!position) break;
      const page = await analytics.getTrace(projectId, traceId, { limit: MAX_SPANS_PAGE, after: { startMs: position.startMs, spanId: position.id } });
      if (!page) break;
      spans.push(...page.spans);
      cursor = page.spans_next_cursor;
    }
    if (spanId !== undefined && !spans.some((s) => s.span_id === spanId)) throw new NotFoundError(`Span with ID '${spanId}' not found`, 'SPAN_NOT_FOUND');
    // The view cuts long texts: the spans a case reads (the case's own, tool calls' arguments) are read whole.
    const whole: SpanView[] = await Promise.all(
      spans.map(async (s) => ((s.input_truncated || s.output_truncated) && readWhole(s, spanId) ? ((await analytics.getSpan(projectId, s.span_id)) ?? s) : s)),
    );
    return { trace: first, spans: whole, spanId };
  });
}

/** The trace a span belongs to, with the span chosen; 404 when the project has no such span. */
export async function readSpanForCase(analytics: Reads, projectId: string, spanId: string): Promise<TraceForCase> {
  const span = await store('fetch span', () => analytics.getSpan(projectId, spanId));
  if (!span) throw new NotFoundError(`Span with ID '${spanId}' not found`, 'SPAN_NOT_FOUND');
  return readTraceForCase(analytics, projectId, span.trace_id, spanId);
}

/** Several traces, in the order given, a few at a time. */
export async function readTracesForCases(analytics: Reads, projectId: string, traceIds: readonly string[]): Promise<TraceForCase[]> {
  const out: TraceForCase[] = [];
  for (let i = 0; i < traceIds.length; i += PARALLEL_TRACES) {
    out.push(...(await Promise.all(traceIds.slice(i, i + PARALLEL_TRACES).map((id) => readTraceForCase(analytics, projectId, id)))));
  }
  return out;
}

/** The ids of the traces a filter selects, newest first, at most `cap`; `truncated` when more match. */
export async function traceIdsMatching(
  analytics: Reads,
  projectId: string,
  filter: Omit<TraceListQuery, 'limit' | 'offset' | 'cursor'>,
  cap: number,
): Promise<{ traceIds: string[]; truncated: boolean }> {
  return store('fetch traces', async () => {
    const ids: string[] = [];
    let cursor: TraceListQuery['cursor'];
    for (;;) {
      // One more than the cap tells whether more traces match.
      const page = await analytics.listTraces(projectId, { ...filter, limit: Math.min(1000, cap + 1 - ids.length), offset: 0, cursor });
      ids.push(...page.traces.map((t) => t.trace_id));
      if (ids.length > cap) return { traceIds: ids.slice(0, cap), truncated: true };
      const next = page.next_cursor === null ? undefined : decodeKeysetCursor(page.next_cursor);
      if (!next || page.traces.length === 0) return { traceIds: ids, truncated: false };
      cursor = { startMs: next.startMs, traceId: next.id };
    }
  });
}

/** A session's traces, oldest first (at most a conversation's turns); 404 when it has none. */
export async function readSessionForCase(analytics: Reads, projectId: string, sessionId: string): Promise<TraceForCase[]> {
  const { traceIds } = await traceIdsMatching(analytics, projectId, { sessionId }, MAX_CONVERSATION_TURNS);
  if (!traceIds.length) throw new NotFoundError(`Session with ID '${sessionId}' not found`, 'SESSION_NOT_FOUND');
  return readTracesForCases(analytics, projectId, traceIds.reverse());
}
