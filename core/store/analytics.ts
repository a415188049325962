import type { RowBatch } from '../model/span.js';
import type { CreateScore, Score } from '../model/score.js';
import type { PromptTraceList, PromptTraceQuery } from '../model/prompt.js';
import type { SpanPageQuery } from '../model/span-page.js';
import type { SpanView, TraceDetail, TraceList, TraceListQuery } from '../model/trace.js';
import type { AnalyticsReads } from './clickhouse/analytics-reads.js';
import type { CostReads } from './clickhouse/cost-reads.js';
import type { CalibrationReads } from './clickhouse/calibration-reads.js';

/** The store-side writer every sink ends in: an idempotent insert of encoded span and trace-header rows. */
export interface BatchWriter {
  /**
   * Resolves once the rows are on disk and their traces' summaries updated. Rejects with a
   * DataRejectedError (400: the data itself is refused) or a ServiceUnavailableError (503: retry).
   */
  writeRows(batch: RowBatch): Promise<void>;
}

/** The analytical store (ClickHouse): traces, spans, scores. Every read filters by project. */
export interface AnalyticsStore extends BatchWriter {
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
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
