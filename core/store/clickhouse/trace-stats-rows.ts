import type { RowBatch, SpanRecord, TraceHeader } from '../../model/span.js';
import { encodeRow, encodeSpanRow, toClickHouseTicks } from './rows.js';

/** Flags of a span in `trace_stats.span_stats` (migrations/clickhouse/002). */
const STORED = 1;
const ERROR = 2;
const TOOL = 4;
const GENERATION = 8;

/** Spans per stats row: keeps a row far below MAX_SPAN_BYTES however many spans of one trace a request holds. */
const SPANS_PER_ROW = 1000;

type Root = [number, number, string, string, Record<string, string>];

interface Contribution {
  projectId: string;
  traceId: string;
  minStart: number;
  maxEnd: number;
  hasError: number;
  root: Root;
  ids: string[];
  flags: number[];
  inputTokens: number[];
  outputTokens: number[];
}

const before = (a: Root, b: Root): boolean => a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];

/**
 * The `trace_stats_input` rows of a write (migrations/clickhouse/002): per trace it touches, what
 * its spans contribute to the trace's summary (plain values that trace_stats merges: min, max,
 * maxMap by span id), and one row per explicit trace header. Built as spans are ingested and
 * encoded once with them, so the store never reads anything back to keep summaries current.
 */
export function createTraceStatsRows() {
  const open = new Map<string, Contribution>();
  const rows: string[] = [];

  function emit(c: Contribution): void {
    const [isChild, start, spanId, name, resource] = c.root;
    rows.push(
      encodeRow({
        project_id: c.projectId,
        trace_id: c.traceId,
        min_start: toClickHouseTicks(c.minStart),
        max_end: toClickHouseTicks(c.maxEnd),
        has_error: c.hasError,
        root: [isChild, toClickHouseTicks(start), spanId, name, JSON.stringify(resource)],
        span_stats: [c.ids, c.flags, c.inputTokens, c.outputTokens],
      }),
    );
  }

  return {
    add(s: SpanRecord): void {
      const key = `${s.project_id}\u0000${s.trace_id}`;
      const root: Root = [s.parent_span_id === null ? 0 : 1, s.start_time, s.span_id, s.name, s.resource_attributes];
      const error = s.status === 'error' ? 1 : 0;
      let c = open.get(key);
      if (!c) {
        c = { projectId: s.project_id, traceId: s.trace_id, minStart: s.start_time, maxEnd: s.end_time, hasError: error, root, ids: [], flags: [], inputTokens: [], outputTokens: [] };
        open.set(key, c);
      } else {
        if (s.start_time < c.minStart) c.minStart = s.start_time;
        if (s.end_time > c.maxEnd) c.maxEnd = s.end_time;
        if (error) c.hasError = 1;
        if (before(root, c.root)) c.root = root;
      }
      const generation = s.span_type === 'generation';
      c.ids.push(s.span_id);
      c.flags.push(STORED | (error ? ERROR : 0) | (s.span_type === 'tool' ? TOOL : 0) | (generation ? GENERATION : 0));
      c.inputTokens.push(generation ? s.input_tokens : 0);
      c.outputTokens.push(generation ? s.output_tokens : 0);
      if (c.ids.length >= SPANS_PER_ROW) {
        emit(c);
        open.delete(key);
      }
    },
    /** An explicit trace header (the JSON ingest body): the newest one by the store's clock wins. */
    addHeader(h: TraceHeader): void {
      rows.push(
        encodeRow({
          project_id: h.project_id,
          trace_id: h.trace_id,
          min_start: toClickHouseTicks(h.start_time),
          max_end: toClickHouseTicks(h.start_time + h.duration_ms),
          header: 1,
          header_name: h.name,
          header_status: h.status,
          header_attributes: h.attributes,
        }),
      );
    },
    /** The encoded rows of everything added. */
    rows(): string[] {
      for (const c of open.values()) emit(c);
      open.clear();
      return rows;
    },
  };
}

/** The rows of a write of these spans and headers, as ingest encodes them: span rows and their trace_stats_input rows. */
export function encodeRowBatch(spans: readonly SpanRecord[], headers: readonly TraceHeader[] = []): RowBatch {
  const stats = createTraceStatsRows();
  for (const s of spans) stats.add(s);
  for (const h of headers) stats.addHeader(h);
  return { spans: spans.map(encodeSpanRow), stats: stats.rows() };
}
