import { classifyStoreError, writeFailure } from '../errors.js';
import type { Score } from '../model/score.js';
import type { AnalyticsStore } from '../store/analytics.js';

/**
 * What feedback and review queues read from and write to the analytical store: a trace's input
 * and output (a comparison's outputs, a reviewed trace's case input) and annotation scores.
 */

/** Spans read to find a trace's root span: it starts first, so it is on the first page. */
const ROOT_SEARCH_SPANS = 100;

/**
 * A trace's input and output: those of its root span (the first span without a parent, else
 * its first span), read whole. Null when the project has no such trace.
 */
export async function traceIO(
  analytics: Pick<AnalyticsStore, 'getTrace' | 'getSpan'>,
  projectId: string,
  traceId: string,
): Promise<{ input: string; output: string } | null> {
  try {
    const trace = await analytics.getTrace(projectId, traceId, { limit: ROOT_SEARCH_SPANS });
    if (!trace) return null;
    const root = trace.spans.find((s) => s.parent_span_id === null) ?? trace.spans[0];
    if (!root) return { input: '', output: '' };
    if (!root.input_truncated && !root.output_truncated) return { input: root.input, output: root.output };
    const whole = await analytics.getSpan(projectId, root.span_id);
    return { input: whole?.input ?? root.input, output: whole?.output ?? root.output };
  } catch (err) {
    throw classifyStoreError('analytics', 'fetch trace', err);
  }
}

/** Writes annotation scores; a store that refuses the data is a 400, one that is down a 503 (retry: ids are stable). */
export async function writeAnnotationScores(analytics: Pick<AnalyticsStore, 'writeScores'>, projectId: string, scores: Score[]): Promise<void> {
  try {
    await analytics.writeScores(projectId, scores);
  } catch (err) {
    throw writeFailure('analytics', err);
  }
}
