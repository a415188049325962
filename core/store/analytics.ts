import type { WriteBatch } from '../model/span.js';
import type { CreateScore, Score } from '../model/score.js';
import type { SpanView, TraceDetail, TraceList, TraceListQuery } from '../model/trace.js';

/** The store-side writer every sink ends in: an idempotent insert of spans and trace headers. */
export interface BatchWriter {
  /** Resolves once the rows are written to disk and the affected traces re-derived. */
  writeBatch(batch: WriteBatch): Promise<void>;
}

/** The analytical store (ClickHouse): traces, spans, scores. Every read filters by project. */
export interface AnalyticsStore extends BatchWriter {
  getTrace(projectId: string, traceId: string): Promise<TraceDetail | null>;
  listTraces(projectId: string, query: TraceListQuery): Promise<TraceList>;
  getSpan(projectId: string, spanId: string): Promise<SpanView | null>;
  insertScore(projectId: string, score: CreateScore): Promise<Score>;
  listScores(projectId: string, traceId: string): Promise<Score[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
