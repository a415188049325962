import { encodeKeysetCursor } from '../../model/keyset-cursor.js';
import type { TraceList, TraceListQuery, TraceSummary } from '../../model/trace.js';
import { toClickHouseTime, traceSummary, type TraceRow } from './rows.js';
import { TRACE_FILTERS, TRACE_SUMMARIES, traceCountSql, tracePageSql, type TraceFilter } from './trace-stats-sql.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

/** A keyset position in the trace list: after the trace that started at `startMs` with id `traceId`. */
export interface TraceCursor {
  startMs: number;
  traceId: string;
}

/** Reads of trace summaries (trace_stats); `rows` is the store's one query function. */
export function createTraceReads(rows: Rows) {
  /** Summaries of the given traces of a project, in no particular order; absent traces are left out. */
  async function summaries(projectId: string, traceIds: string[]): Promise<TraceSummary[]> {
    if (traceIds.length === 0) return [];
    const list = await rows<TraceRow>(TRACE_SUMMARIES, { project: projectId, traces: traceIds });
    return list.map(traceSummary);
  }

  async function listTraces(projectId: string, q: TraceListQuery): Promise<TraceList> {
    const filters = (Object.keys(TRACE_FILTERS) as TraceFilter[]).filter((f) => q[f] !== undefined);
    const params = {
      project: projectId,
      // One extra row says whether a next page exists.
      limit: q.limit + 1,
      offset: q.offset,
      status: q.status,
      name: q.name,
      startTime: q.startTime ? toClickHouseTime(q.startTime.getTime()) : undefined,
      endTime: q.endTime ? toClickHouseTime(q.endTime.getTime()) : undefined,
      cursorStart: q.cursor ? toClickHouseTime(q.cursor.startMs) : undefined,
      cursorTrace: q.cursor?.traceId,
    };
    const page = await rows<{ trace_id: string; start_ms: string | number; total: string | number }>(tracePageSql(filters, q.cursor !== undefined), params);
    let total = page.length ? Number(page[0].total) : 0;
    if (page.length === 0 && (q.offset > 0 || q.cursor)) {
      // Past the last page the window count has no row to ride on.
      const [count] = await rows<{ total: string }>(traceCountSql(filters), params);
      total = Number(count?.total ?? 0);
    }
    const more = page.length > q.limit;
    const ids = page.slice(0, q.limit);
    const byId = new Map((await summaries(projectId, ids.map((p) => p.trace_id))).map((t) => [t.trace_id, t]));
    const traces = ids.map((p) => byId.get(p.trace_id)).filter((t): t is TraceSummary => t !== undefined);
    const last = ids.at(-1);
    const nextCursor = more && last ? { startMs: Number(last.start_ms), traceId: last.trace_id } : null;
    return { traces, total, limit: q.limit, offset: q.offset, next_cursor: nextCursor && encodeKeysetCursor({ startMs: nextCursor.startMs, id: nextCursor.traceId }) };
  }

  return { summaries, listTraces };
}
