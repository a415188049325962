import type { OnlineRuleFilter } from '../model/online-rule.js';
import type { SpanContent, SpanStatus, SpanType } from '../model/span.js';

/**
 * The analytical store's side of online evaluation (docs/online-evals.md): a rule's next traces,
 * and what its scorers read of them. Implemented over ClickHouse by
 * store/clickhouse/online-trace-reads.ts; reached as `AnalyticsStore.online`.
 *
 * Promises:
 * - Scans are in (last stored, trace id) order, and the position is the store's own clock: when a
 *   write of the trace landed, stamped by the store, never a worker's clock, so a trace stored
 *   long after it ended is still found. A scan stays behind the store's clock by the rule's
 *   quiet time plus INSERT_SETTLE_MS (the implementation's allowance for writes in flight).
 * - Reads only: nothing here changes the store, so any call may be retried or repeated at will.
 * - Traces made by the service itself (online rules' judge traces, evaluation runs' case traces)
 *   are never returned by a scan.
 * - What a caller gets is a copy: it may keep and change the objects; the bounds below hold for
 *   every trace returned (spans at most MAX_SPANS_FOR_SCORERS, texts cut to
 *   SPAN_TEXT_CAP_FOR_SCORERS).
 */

/** A position in a rule's scan: every trace at or before it was decided. `traceId` null: all traces last stored at `storedMs`. */
export interface ScanPosition {
  storedMs: number;
  traceId: string | null;
}

/** A trace as a scan finds it: its end by its spans' clocks, and when the store last received a write of it. */
export interface ScannedTrace {
  trace_id: string;
  end_ms: number;
  stored_ms: number;
}

/** A session as a session rule's scan finds it: idle since `stored_ms` (the store's last write of any of its traces), its latest trace ending at `end_ms`. */
export interface ScannedSession {
  session_id: string;
  end_ms: number;
  stored_ms: number;
}

export interface ScanQuery {
  after: ScanPosition;
  /** Traces that ended before this are not the rule's (its `since`). */
  sinceMs: number;
  /** Only traces the store received no write of for this long: the rule's delay. */
  quietMs: number;
  limit: number;
}

export interface ScanBatch {
  /** In scan order; at most `limit`. */
  traces: ScannedTrace[];
  /** The scan's upper bound: the store's clock minus the quiet time. Every trace last stored at or before it was considered. */
  untilMs: number;
  /** When the first matching trace after the batch was last stored, when the batch was full (a backlog remains). */
  nextStoredMs: number | null;
}

/** A session rule's scan batch: as ScanBatch, of sessions (in (last stored, session id) order). */
export interface SessionScanBatch {
  sessions: ScannedSession[];
  untilMs: number;
  nextStoredMs: number | null;
}

/** A span as scorers see it (the ingest shape, `input` and `output` cut to {@link SPAN_TEXT_CAP_FOR_SCORERS}). */
export interface ScoredSpan extends SpanContent {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  type: SpanType;
  component_type: string | null;
  status: SpanStatus;
  status_message: string | null;
  start_ms: number;
  end_ms: number;
  /** What the span's model call cost in USD, from the price table at ingest; null when it was not priced. */
  cost_usd?: number | null;
  attributes: Record<string, string>;
}

/** A stored trace as a rule's scorers read it. */
export interface TraceForScoring {
  trace_id: string;
  name: string;
  status: SpanStatus;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  total_input_tokens: number;
  total_output_tokens: number;
  span_count: number;
  attributes: Record<string, string>;
  /** In (start time, span id) order, at most {@link MAX_SPANS_FOR_SCORERS}. */
  spans: ScoredSpan[];
}

/** A session as a session rule's scorers read it: its latest turns, each a trace. */
export interface SessionForScoring {
  session_id: string;
  /** Every trace of the session the rule may see (service traces never). */
  trace_count: number;
  /**
   * Its latest traces, at most {@link MAX_SESSION_TURNS_FOR_SCORERS}, in (start time, trace id)
   * order; each with at most {@link MAX_TURN_SPANS_FOR_SCORERS} spans, texts cut to {@link SESSION_SPAN_TEXT_CAP}.
   */
  traces: TraceForScoring[];
}

export interface OnlineTraceReads {
  /** The next `limit` traces of the project after `after`, quiet for `quietMs`, that ended at or after `sinceMs` and match `filter`. */
  nextTraces(projectId: string, filter: OnlineRuleFilter, scan: ScanQuery): Promise<ScanBatch>;
  /** The given traces with their spans; traces not found are absent. */
  tracesForScoring(projectId: string, traceIds: string[]): Promise<Map<string, TraceForScoring>>;
  /**
   * The next `limit` sessions of the project after `after` (positions name session ids) that the
   * store received no write of for `quietMs`, whose latest trace ended at or after `sinceMs`, and
   * that match `filter` (docs/online-evals.md, "Session rules": `trace_name`, `attributes` and
   * `component_type` by at least one of their traces, `status` by the session's).
   */
  nextSessions(projectId: string, filter: OnlineRuleFilter, scan: ScanQuery): Promise<SessionScanBatch>;
  /** The session's latest turns with their spans; null when the project has no trace of it a rule may see. */
  sessionForScoring(projectId: string, sessionId: string): Promise<SessionForScoring | null>;
}

/** Turns (traces) of one session its rule's scorers see at most: its latest ones. */
export const MAX_SESSION_TURNS_FOR_SCORERS = 100;
/** Spans of each of those turns (its earliest); a session's scorers see at most 100 x 200 spans. */
export const MAX_TURN_SPANS_FOR_SCORERS = 200;
/** Characters of each span's input and output a session's scorers see (the turns' user and assistant texts among them). */
export const SESSION_SPAN_TEXT_CAP = 8192;

/** Spans a scorer sees of one trace (the earliest ones); judges cut the trace again to fit a prompt. */
export const MAX_SPANS_FOR_SCORERS = 1000;
/** Characters of each span's input and output a scorer sees, as in the trace view. */
export const SPAN_TEXT_CAP_FOR_SCORERS = 16_384;
