import type { RowBatch } from '../model/span.js';
import type { CreateScore, Score } from '../model/score.js';
import type { PromptTraceList, PromptTraceQuery } from '../model/prompt.js';
import type { SpanPageQuery } from '../model/span-page.js';
import type { SpanView, TraceDetail, TraceList, TraceListQuery } from '../model/trace.js';
import type { AnalyticsReads, CalibrationReads, CostReads } from './analytics-reads.js';
import type { AlertMetrics } from './alert-metrics.js';
import type { OnlineTraceReads } from './online-traces.js';
import type { TraceErasure } from './trace-erasure.js';
import type { ExportReads } from './exports.js';
import type { SessionReads } from './trace-sessions.js';
import type { StoreConnection } from './store-connection.js';

/**
 * The contract of the analytical store (traces, spans, scores; ClickHouse, embedded chDB or a
 * server: store/clickhouse/analytics-store.ts implements it). Everything outside core/store/
 * reaches ClickHouse's data only through this interface: the API, the workflow activities, the
 * alert and online evaluators, deletions. Same promises embedded and distributed.
 *
 * Promises:
 * - Isolation: every read and write names a project, and only that project's rows are read,
 *   counted or changed.
 * - Durability: a write resolves only once its rows are on disk (fsync) on the store; a rejected
 *   write may be retried as it is.
 * - Idempotency: spans are keyed (project, trace, span) and the newest row of a key is read; trace
 *   summaries are merged, order-free states; scores are keyed by id. So any write may be repeated,
 *   in any order, by any number of writers, and its effect is once.
 * - Visibility: on one server (embedded chDB, a single ClickHouse), a read started after a write
 *   resolved sees it; with replicas (CLICKHOUSE_CLUSTER), once the write reached the replica read.
 * - Failures are classified where the store is called (core/errors.ts): DataRejectedError when
 *   the store refuses the data itself, anything else is transient (503, retry).
 * - What a caller gets is its own: objects returned are fresh copies, free to keep or change;
 *   nothing is cached inside the store.
 */
export interface AnalyticsStore extends BatchWriter, StoreConnection {
  /** The trace's summary and one page of its spans; the first page of DEFAULT_SPANS_PAGE when `page` is absent. */
  getTrace(projectId: string, traceId: string, page?: SpanPageQuery): Promise<TraceDetail | null>;
  listTraces(projectId: string, query: TraceListQuery): Promise<TraceList>;
  getSpan(projectId: string, spanId: string): Promise<SpanView | null>;
  /** Stores a score under the client's id when it gives one (`score.id`), else a new UUID. */
  insertScore(projectId: string, score: CreateScore): Promise<Score>;
  /** The project's score with this id (the first written), or null. */
  findScore(projectId: string, id: string): Promise<Score | null>;
  /** Scores with their ids and times already set (evaluation runs); idempotent by id. */
  writeScores(projectId: string, scores: Score[]): Promise<void>;
  listScores(projectId: string, traceId: string): Promise<Score[]>;
  /** Traces whose spans name a prompt (attributes in core/store/clickhouse/prompt-links.ts), newest first. */
  listPromptTraces(projectId: string, query: PromptTraceQuery): Promise<PromptTraceList>;
  /** The dashboard's aggregates over traces, spans and scores (GET /api/analytics/*). */
  aggregates: AnalyticsReads;
  /** Costs of runs' traces and repricing of stored spans (docs/costs.md). */
  costs: CostReads;
  /** Agreement of judges with people (GET /api/judges/calibration, docs/judges.md). */
  calibration: CalibrationReads;
  /** Alert rules' metrics over traces and scores (docs/alerts.md). */
  alerts: AlertMetrics;
  /** Online evaluation's scans and the traces its scorers read (docs/online-evals.md). */
  online: OnlineTraceReads;
  /** Traces grouped by the conversation they belong to (docs/api.md, "Sessions"). */
  sessions: SessionReads;
  /** Deleting traces, a subject's traces and a project's data for good (docs/api.md, "Deleting data"). */
  erasure: TraceErasure;
  /** Bulk exports of traces, spans and scores, written by ClickHouse (docs/api.md, "Bulk export"). */
  exports: ExportReads;
}

/**
 * The store-side writer every sink ends in: an idempotent insert of encoded span and trace-header
 * rows (encoded once by the collector with the store's RowCodec, core/store/row-codec.ts).
 *
 * Promises: a batch is stored whole or not at all (its spans and the summaries of exactly those
 * spans, never one without the other); it resolves only once durable; writing the same batch
 * again changes nothing a read sees. The writer keeps no reference to the batch after it settles.
 */
export interface BatchWriter {
  /**
   * Resolves once the rows are on disk and their traces' summaries updated. Rejects with a
   * DataRejectedError (400: the data itself is refused) or a ServiceUnavailableError (503: retry).
   */
  writeRows(batch: RowBatch): Promise<void>;
}
