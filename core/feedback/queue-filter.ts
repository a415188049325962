import { classifyStoreError } from '../errors.js';
import { decodeKeysetCursor } from '../model/keyset-cursor.js';
import type { QueueFilter } from '../model/queue.js';
import type { TraceSummary } from '../model/trace.js';
import type { AnalyticsStore } from '../store/analytics.js';

/** Most traces a filter reads (pages of GET /api/traces) looking for matches. */
export const MAX_FILTER_SCAN = 20_000;
/** Score lookups a `score_below` filter runs at once. */
const SCORE_LOOKUPS = 8;

function attributesMatch(trace: TraceSummary, wanted: Record<string, string> | undefined): boolean {
  if (!wanted) return true;
  return Object.entries(wanted).every(([k, v]) => Object.hasOwn(trace.attributes, k) && trace.attributes[k] === v);
}

/** Whether the trace's latest score named `name` is below `value` (a trace without one is not). */
async function scoreBelow(analytics: Pick<AnalyticsStore, 'listScores'>, projectId: string, traceId: string, name: string, value: number): Promise<boolean> {
  const scores = await analytics.listScores(projectId, traceId);
  const latest = scores.find((s) => s.name === name);
  return latest !== undefined && latest.value < value;
}

/**
 * The traces a review queue's filter selects (docs/feedback.md), newest first, at most `max`:
 * GET /api/traces' own filters (name, status, time) run in the store; attributes and
 * `score_below` are checked here on each page. `truncated` when more traces may match than were
 * taken.
 */
export async function tracesMatching(
  analytics: AnalyticsStore,
  projectId: string,
  filter: QueueFilter,
  max: number,
): Promise<{ traceIds: string[]; truncated: boolean }> {
  const postFilter = filter.attributes !== undefined || filter.score_below !== undefined;
  const ids: string[] = [];
  let cursor: { startMs: number; traceId: string } | undefined;
  let scanned = 0;
  try {
    while (scanned < MAX_FILTER_SCAN) {
      const page = await analytics.listTraces(projectId, {
        limit: postFilter ? 1000 : Math.min(1000, max - ids.length),
        offset: 0,
        status: filter.status,
        name: filter.trace_name,
        startTime: filter.since === undefined ? undefined : new Date(filter.since),
        endTime: filter.until === undefined ? undefined : new Date(filter.until),
        cursor,
      });
      scanned += page.traces.length;
      let matches = page.traces.filter((t) => attributesMatch(t, filter.attributes));
      const below = filter.score_below;
      if (below) {
        const kept: typeof matches = [];
        for (let i = 0; i < matches.length; i += SCORE_LOOKUPS) {
          const chunk = matches.slice(i, i + SCORE_LOOKUPS);
          const flags = await Promise.all(chunk.map((t) => scoreBelow(analytics, projectId, t.trace_id, below.name, below.value)));
          kept.push(...chunk.filter((_, j) => flags[j]));
        }
        matches = kept;
      }
      ids.push(...matches.map((t) => t.trace_id));
      if (ids.length >= max) return { traceIds: ids.slice(0, max), truncated: ids.length > max || page.next_cursor !== null };
      const next = page.next_cursor === null ? undefined : decodeKeysetCursor(page.next_cursor);
      if (!next) return { traceIds: ids, truncated: false };
      cursor = { startMs: next.startMs, traceId: next.id };
    }
  } catch (err) {
    throw classifyStoreError('analytics', 'fetch traces', err);
  }
  return { traceIds: ids, truncated: true };
}
