import type { RowBatch, SpanRecord, TraceHeader } from '../../model/span.js';
import { encodeRow, encodeSpanRow } from './rows.js';
import { toClickHouseTicks } from './time.js';
import { wellFormedJson } from '../../model/well-formed-json.js';
import { sessionIdsOf } from '../../model/trace-session-ids.js';

/** Flags of a span in `trace_stats.span_stats` (migrations/clickhouse/002). */
const FLAG = { stored: 1, error: 2, tool: 4, generation: 8 } as const;

/**
 * Bounds that keep a stats row small (a few KiB) whatever the spans hold, far below the smallest
 * MAX_SPAN_BYTES, so it always fits a Kafka message: span ids per row (by their total length),
 * and the root's name and resource attributes, which only name the trace and give its attributes.
 */
const SPANS_PER_ROW = 1000;
const ID_CHARS_PER_ROW = 4096;
const ROOT_NAME_MAX = 1024;
const ROOT_RESOURCE_MAX = 4096;
/** The resource attributes kept when all of them are too large: the ones that name the service. */
const ESSENTIAL_RESOURCE = /^(service\.|deployment\.|telemetry\.sdk\.)/;

type Root = [number, number, string, string, Record<string, string>];

interface Contribution {
  projectId: string;
  traceId: string;
  minStart: number;
  maxEnd: number;
  hasError: number;
  root: Root;
  ids: string[];
  idChars: number;
  flags: number[];
  inputTokens: number[];
  outputTokens: number[];
  /** Priced generation spans (migrations/clickhouse/003): ids and [priced at, total cost, priced 0/1]. */
  costIds: string[];
  costs: Array<[number, number, number]>;
  /** The trace's session and user ids (session-ids.ts), folded by `max` as trace_stats does (migration 009). */
  sessionId: string;
  userId: string;
}

/** The larger of two ids as ClickHouse's `max` over String orders them: by their UTF-8 bytes. */
function maxId(a: string, b: string | null): string {
  if (b === null || b === a) return a;
  if (a === '') return b;
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) >= 0 ? a : b;
}

/** `session_id` and `user_id` of a row, when known (absent keys read as '' and never win the fold). */
function ids(sessionId: string, userId: string): { session_id?: string; user_id?: string } {
  return { ...(sessionId ? { session_id: sessionId } : {}), ...(userId ? { user_id: userId } : {}) };
}

/** The root's resource attributes as JSON of at most ROOT_RESOURCE_MAX characters. */
function resourceJson(resource: Record<string, string>): string {
  // Well-formed: ClickHouse's JSON functions read an object with a `\udXXX` escape as empty.
  const all = wellFormedJson(resource);
  if (all.length <= ROOT_RESOURCE_MAX) return all;
  const essential = Object.fromEntries(Object.entries(resource).filter(([k, v]) => ESSENTIAL_RESOURCE.test(k) && v.length <= 256));
  const some = wellFormedJson(essential);
  return some.length <= ROOT_RESOURCE_MAX ? some : '{}';
}

const before = (a: Root, b: Root): boolean => (a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]);

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
        root: [isChild, toClickHouseTicks(start), spanId, name.slice(0, ROOT_NAME_MAX), resourceJson(resource)],
        span_stats: [c.ids, c.flags, c.inputTokens, c.outputTokens],
        ...(c.costIds.length > 0 ? { span_costs: [c.costIds, c.costs] } : {}),
        ...ids(c.sessionId, c.userId),
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
        c = {
          projectId: s.project_id,
          traceId: s.trace_id,
          minStart: s.start_time,
          maxEnd: s.end_time,
          hasError: error,
          root,
          ids: [],
          idChars: 0,
          flags: [],
          inputTokens: [],
          outputTokens: [],
          costIds: [],
          costs: [],
          sessionId: '',
          userId: '',
        };
        open.set(key, c);
      } else {
        if (s.start_time < c.minStart) c.minStart = s.start_time;
        if (s.end_time > c.maxEnd) c.maxEnd = s.end_time;
        if (error) c.hasError = 1;
        if (before(root, c.root)) c.root = root;
      }
      const session = sessionIdsOf(s.attributes, s.resource_attributes);
      c.sessionId = maxId(c.sessionId, session.sessionId);
      c.userId = maxId(c.userId, session.userId);
      const generation = s.span_type === 'generation';
      c.ids.push(s.span_id);
      c.idChars += s.span_id.length;
      c.flags.push(FLAG.stored | (error ? FLAG.error : 0) | (s.span_type === 'tool' ? FLAG.tool : 0) | (generation ? FLAG.generation : 0));
      c.inputTokens.push(generation ? s.input_tokens : 0);
      c.outputTokens.push(generation ? s.output_tokens : 0);
      if (generation && s.pricing) {
        // Keyed by span and ordered by pricing time, so the newest pricing of a span wins (a recompute too).
        const cost = s.pricing.cost;
        c.costIds.push(s.span_id);
        c.costs.push([s.pricing.at, cost ? cost.total : 0, cost ? 1 : 0]);
      }
      if (c.ids.length >= SPANS_PER_ROW || c.idChars >= ID_CHARS_PER_ROW) {
        emit(c);
        open.delete(key);
      }
    },
    /**
     * An explicit trace header (the JSON ingest body): the newest one by the store's clock wins.
     * Returns its encoded row, so the caller can bound its size.
     */
    addHeader(h: TraceHeader): string {
      const header = sessionIdsOf(h.attributes);
      const line = encodeRow({
        project_id: h.project_id,
        trace_id: h.trace_id,
        min_start: toClickHouseTicks(h.start_time),
        max_end: toClickHouseTicks(h.start_time + h.duration_ms),
        header: 1,
        header_name: h.name,
        header_status: h.status,
        header_attributes: h.attributes,
        ...ids(header.sessionId ?? '', header.userId ?? ''),
      });
      rows.push(line);
      return line;
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
