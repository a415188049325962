import { z } from 'zod';
import { cursorParam, decodeCursorTuple, encodeCursorTuple } from './keyset-cursor.js';
import { Timestamp } from './ingest-body.js';
import { COMPONENT_TYPES, SPAN_TYPES } from './span.js';
import { SCORE_SOURCES, SCORE_TYPES } from './score.js';
import { MAX_SESSION_ID_CHARS } from './trace-session-ids.js';

/**
 * Bulk export of traces, spans and scores (docs/api.md, "Bulk export"): what a client asks for
 * (a kind, a format, filters and a time range, a row limit, a cursor) and what a background
 * export job is. The store streams the rows (core/store/exports.ts); ClickHouse writes them.
 */

export const EXPORT_KINDS = ['traces', 'spans', 'scores'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** `jsonl`: JSON Lines; `csv`: RFC 4180 with a header row, CRLF line ends; `parquet`: one file, jobs only. */
export const EXPORT_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Formats a GET streams: a Parquet file is written whole before it can be read, so it is a job's. */
export const STREAMED_FORMATS = ['jsonl', 'csv'] as const;

/** Rows one streamed response carries when the request does not say. */
export const DEFAULT_EXPORT_ROWS = 100_000;
/** Most rows one streamed response may carry (`limit`); the next cursor takes it on. */
export const MAX_EXPORT_ROWS = 1_000_000;
/** Most rows one export job writes. */
export const MAX_JOB_ROWS = 10_000_000;

const text = (max: number) => z.string().min(1).max(max);

/** Filters every kind takes: the time range (a trace's start, a span's start, a score's creation) and a trace. */
const common = {
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  trace_id: text(1024).optional(),
};

/** The filters of each kind, by the names of its query parameters (GET) or body fields (POST /api/exports). */
export const EXPORT_FILTERS = {
  traces: z.object({
    ...common,
    status: z.enum(['ok', 'error']).optional(),
    name: text(1024).optional(),
    model: text(256).optional(),
    component_type: z.enum(COMPONENT_TYPES).optional(),
    min_duration_ms: z.coerce.number().int().min(0).max(315_360_000_000).optional(),
    has_errors: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
    session_id: text(MAX_SESSION_ID_CHARS).optional(),
    user_id: text(MAX_SESSION_ID_CHARS).optional(),
    environment: text(256).optional(),
    tag: text(256).optional(),
  }),
  spans: z.object({
    ...common,
    type: z.enum(SPAN_TYPES).optional(),
    status: z.enum(['ok', 'error']).optional(),
    model: text(256).optional(),
    component_type: z.enum(COMPONENT_TYPES).optional(),
  }),
  scores: z.object({
    ...common,
    name: text(256).optional(),
    source: z.enum(SCORE_SOURCES).optional(),
    score_type: z.enum(SCORE_TYPES).optional(),
    session_id: text(MAX_SESSION_ID_CHARS).optional(),
  }),
} as const;

export type TraceExportFilters = z.output<(typeof EXPORT_FILTERS)['traces']>;
export type SpanExportFilters = z.output<(typeof EXPORT_FILTERS)['spans']>;
export type ScoreExportFilters = z.output<(typeof EXPORT_FILTERS)['scores']>;
export type ExportFilters = TraceExportFilters | SpanExportFilters | ScoreExportFilters;

/**
 * Where an export stands: after this row, in the kind's order. Traces: newest first, then trace
 * id descending (the trace list's order); spans: by (trace_id, span_id); scores: by (trace_id,
 * score_id) (both the tables' own order, so a page is a range of the primary key).
 */
export type ExportPosition = { kind: 'traces'; startMs: number; traceId: string } | { kind: 'spans' | 'scores'; traceId: string; id: string };

/** base64url of the JSON `[kind, a, b]`: opaque to clients, and ids may hold any character. */
export function encodeExportCursor(p: ExportPosition): string {
  return encodeCursorTuple(p.kind === 'traces' ? [p.kind, p.startMs, p.traceId] : [p.kind, p.traceId, p.id]);
}

export function decodeExportCursor(cursor: string): ExportPosition | undefined {
  const parsed = decodeCursorTuple(cursor, 3);
  if (!parsed) return undefined;
  const [kind, a, b] = parsed;
  if (typeof b !== 'string' || b === '') return undefined;
  if (kind === 'traces') return Number.isSafeInteger(a) && (a as number) >= 0 ? { kind, startMs: a as number, traceId: b } : undefined;
  if ((kind === 'spans' || kind === 'scores') && typeof a === 'string' && a !== '') return { kind, traceId: a, id: b };
  return undefined;
}

/** A `cursor` parameter of `kind`'s export: a 422 naming it when it is not a next cursor of that kind. */
export function exportCursorParam(kind: ExportKind) {
  const ofKind = (v: string) => {
    const p = decodeExportCursor(v);
    return p?.kind === kind ? p : undefined;
  };
  return cursorParam(4096, ofKind, `must be an X-Next-Cursor of a ${kind} export`);
}

/** What the store exports: a kind's filters, where to start, how many rows at most. */
export interface ExportRequest {
  kind: ExportKind;
  filters: ExportFilters;
  after?: ExportPosition;
  limit: number;
}

/** POST /api/exports: a background job writing one file (any format; the only way to Parquet). */
export const CreateExportJobSchema = z.object({
  kind: z.enum(EXPORT_KINDS),
  format: z.enum(EXPORT_FORMATS),
  /** The kind's filters (as the GET's query parameters). */
  filters: z.record(z.string(), z.unknown()).default({}),
  limit: z.coerce.number().int().min(1).max(MAX_JOB_ROWS).default(MAX_JOB_ROWS),
});
export type CreateExportJob = z.output<typeof CreateExportJobSchema>;

export const EXPORT_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ExportJobStatus = (typeof EXPORT_JOB_STATUSES)[number];

/** An export job as GET /api/exports/{id} shows it. */
export const ExportJobViewSchema = z
  .object({
    id: z.string(),
    kind: z.enum(EXPORT_KINDS),
    format: z.enum(EXPORT_FORMATS),
    filters: z.record(z.string(), z.unknown()),
    limit: z.number().int(),
    status: z.enum(EXPORT_JOB_STATUSES),
    /** Rows written; null until the job succeeded. */
    rows: z.number().int().nullable(),
    /** Size of the file; null until the job succeeded. */
    bytes: z.number().int().nullable(),
    /** Why the job failed; null otherwise. */
    error: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    /** When the file and this record are removed. */
    expires_at: z.string(),
    /** `/api/exports/{id}/download` once the job succeeded, else null. */
    download_url: z.string().nullable(),
  })
  .meta({ id: 'ExportJob' });
export type ExportJobView = z.output<typeof ExportJobViewSchema>;

export const ExportJobListSchema = z.object({ jobs: z.array(ExportJobViewSchema) });
export type ExportJobList = z.output<typeof ExportJobListSchema>;

/** The file name a download suggests. */
export function exportFileName(kind: ExportKind, format: ExportFormat, id: string): string {
  return `agent-eval-${kind}-${id}.${format}`;
}

/** Content types of the formats. */
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  parquet: 'application/vnd.apache.parquet',
};
