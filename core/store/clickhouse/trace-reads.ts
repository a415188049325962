import { TRACE_SEARCH_WINDOW, type TraceList, type TraceListItem, type TraceListQuery, type TraceScoreSummary, type TraceSummary } from '../../model/trace.js';
import { encodeTraceCursor } from '../../model/trace-sort.js';
import { rootSpanId, traceSummary, type TraceRow } from './trace-summary-row.js';
import { toClickHouseTime } from './time.js';
import { PROJECT_TRACE_COUNT, newestCandidateRowsSql, newestPageSql, traceCountSql, tracePageSql } from './trace-page-sql.js';
import { SPAN_SEARCH, TRACE_FILTER_NAMES, TRACE_SCORES, TRACE_SUMMARIES, TRACE_SUMMARY, listParams } from './trace-stats-sql.js';
import { previewsOf, type TracePreview } from './trace-previews.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

/** A keyset position in the trace list: after the trace that started at `startMs` with id `traceId`. */
export interface TraceCursor {
  startMs: number;
  traceId: string;
}

/**
 * The newest page's summary rows (newestCandidateRowsSql): at first four per trace the page needs,
 * at least 200, eight times as many each time they hold too few whole traces (a trace written in
 * many small writes has as many rows), and past 20,000 the page merges every trace instead.
 */
const NEWEST_ROWS = { first: 200, perTrace: 4, growth: 8, max: 20_000 };

/** Reads of trace summaries (trace_stats); `rows` is the store's one query function. */
export function createTraceReads(rows: Rows) {
  /** Summaries of the given traces of a project, in no particular order; absent traces are left out. */
  async function summaries(projectId: string, traceIds: string[]): Promise<TraceSummary[]> {
    return (await summaryRows(projectId, traceIds)).map(traceSummary);
  }

  async function summaryRows(projectId: string, traceIds: string[]): Promise<TraceRow[]> {
    if (traceIds.length === 0) return [];
    return rows<TraceRow>(traceIds.length === 1 ? TRACE_SUMMARY : TRACE_SUMMARIES, { project: projectId, traces: traceIds });
  }

  /** The latest value per score name of each given trace. */
  async function scoresOf(projectId: string, traceIds: string[]): Promise<Map<string, TraceScoreSummary[]>> {
    const out = new Map<string, TraceScoreSummary[]>();
    if (traceIds.length === 0) return out;
    const list = await rows<{ trace_id: string; name: string; value: number; count: string | number }>(TRACE_SCORES, { project: projectId, traces: traceIds });
    for (const r of list) {
      let scores = out.get(r.trace_id);
      if (!scores) out.set(r.trace_id, (scores = []));
      scores.push({ name: r.name, value: Number(r.value), count: Number(r.count) });
    }
    return out;
  }

  type PageRow = { trace_id: string; start_ms: string | number; sort_key: string | number; total: string | number };

  async function listTraces(projectId: string, q: TraceListQuery): Promise<TraceList> {
    const params: Record<string, unknown> = {
      ...listParams(projectId, q),
      offset: q.offset,
      status: q.status,
      name: q.name,
      minDurationMs: q.minDurationMs,
      model: q.model,
      componentType: q.componentType,
      search: q.search,
      sessionId: q.sessionId,
      userId: q.userId,
      environment: q.environment,
      tag: q.tag,
      traceSource: q.source,
      sortScore: q.sort?.score,
      cursorStart: q.cursor && 'startMs' in q.cursor ? toClickHouseTime(q.cursor.startMs) : undefined,
      cursorKey: q.cursor && 'key' in q.cursor ? q.cursor.key : undefined,
      cursorTrace: q.cursor?.traceId,
    };
    // A filter applies when its parameter is given.
    const filters = TRACE_FILTER_NAMES.filter((f) => params[f] !== undefined);
    let searchTruncated: boolean | undefined;
    if (q.search !== undefined) {
      // Span contents are read for a bounded window: the newest traces the other filters match,
      // the same window for every page (no cursor), so paging through the results is stable.
      const others = filters.filter((f) => f !== 'search');
      const window = await rows<PageRow>(tracePageSql(others, false), { ...params, limit: TRACE_SEARCH_WINDOW, offset: 0 });
      searchTruncated = window.length > 0 && Number(window[0].total) > TRACE_SEARCH_WINDOW;
      const hits = window.length
        ? await rows<{ trace_id: string }>(SPAN_SEARCH, { project: projectId, traces: window.map((w) => w.trace_id), search: q.search })
        : [];
      params.searchHits = hits.map((h) => h.trace_id);
    }
    const bare = filters.length === 0 && (q.sort === undefined || (q.sort.by === 'time' && q.sort.order === 'desc'));
    const newest = bare ? await newestPage(params, q.cursor !== undefined) : null;
    const page = newest?.page ?? (await rows<PageRow>(tracePageSql(filters, q.cursor !== undefined, q.sort), params));
    let total = newest ? newest.total : page.length ? Number(page[0].total) : 0;
    if (!newest && page.length === 0 && (q.offset > 0 || q.cursor)) {
      // Past the last page the window count has no row to ride on.
      const [count] = await rows<{ total: string }>(traceCountSql(filters), params);
      total = Number(count?.total ?? 0);
    }
    const more = page.length > q.limit;
    const ids = page.slice(0, q.limit);
    const pageIds = ids.map((p) => p.trace_id);
    // The previews read the root spans the summaries name.
    const withPreviews = async (): Promise<[TraceRow[], Map<string, TracePreview>]> => {
      const found = await summaryRows(projectId, pageIds);
      const roots = found.map((t) => ({ trace_id: t.trace_id, root_span_id: rootSpanId(t) }));
      return [found, q.previews ? await previewsOf(rows, projectId, roots) : new Map<string, TracePreview>()];
    };
    const [[summaryList, previews], scores] = await Promise.all([withPreviews(), scoresOf(projectId, pageIds)]);
    const byId = new Map(summaryList.map((t) => [t.trace_id, traceSummary(t)]));
    const traces = ids
      .map((p) => byId.get(p.trace_id))
      .filter((t): t is TraceSummary => t !== undefined)
      .map((t): TraceListItem => ({
        ...t,
        scores: scores.get(t.trace_id) ?? [],
        ...(previews.get(t.trace_id) ?? { input_preview: null, output_preview: null }),
      }));
    const last = ids.at(-1);
    const position = last && { startMs: Number(last.start_ms), key: Number(last.sort_key), traceId: last.trace_id };
    const list: TraceList = {
      traces,
      total,
      limit: q.limit,
      offset: q.offset,
      next_cursor: more && position ? encodeTraceCursor(q.sort?.by ?? 'time', position) : null,
    };
    if (searchTruncated !== undefined) list.search_truncated = searchTruncated;
    return list;
  }

  /**
   * The newest page with no filter from the project's newest summary rows (trace-page-sql.ts,
   * newestCandidateRowsSql), and the project's trace count; null when too many rows would be needed
   * (the caller then merges every trace).
   */
  async function newestPage(params: Record<string, unknown>, withCursor: boolean): Promise<{ page: PageRow[]; total: number } | null> {
    const pageRows = Number(params.limit);
    const wanted = Number(params.offset) + pageRows;
    for (let candidates = Math.max(NEWEST_ROWS.first, NEWEST_ROWS.perTrace * wanted); candidates <= NEWEST_ROWS.max; candidates *= NEWEST_ROWS.growth) {
      const found = await rows<{ trace_id: string; row_start: string }>(newestCandidateRowsSql(withCursor), { ...params, candidates });
      // Fewer rows than asked for: they are every row there is, so every trace is whole.
      const complete = found.length < candidates;
      const traces = [...new Set(found.map((r) => r.trace_id))];
      const page = traces.length ? await rows<PageRow>(newestPageSql(withCursor, complete), { ...params, traces, threshold: found.at(-1)?.row_start }) : [];
      if (complete || page.length >= pageRows) {
        const [count] = await rows<{ total: string | number }>(PROJECT_TRACE_COUNT, params);
        return { page, total: Number(count?.total ?? 0) };
      }
    }
    return null;
  }

  return { summaries, listTraces };
}
