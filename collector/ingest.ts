import type { RawSpan } from '../core/model/raw-span.js';
import type { SpanRecord, TraceHeader } from '../core/model/span.js';
import type { SpanSink } from './sink.js';
import { normalizeSpan } from './normalize/index.js';

export interface RejectedSpan {
  /** Position of the span in the request, for messages like `spans[2]`. */
  index: number;
  spanId: string;
  reason: string;
}

/**
 * The outcome of one ingest call, a tagged union as in OpenTelemetry JS's ExportResult:
 * everything stored (`ok`), or stored except the listed invalid spans (`partial`).
 * Backpressure and store failures are thrown (BackpressureError / ServiceUnavailableError),
 * since a receiver answers them with a retryable status and nothing was stored.
 */
export type IngestOutcome =
  | { kind: 'ok'; accepted: number; traceIds: string[] }
  | { kind: 'partial'; accepted: number; traceIds: string[]; rejected: RejectedSpan[] };

/** Trace headers come without project; ingest stamps the caller's project on everything. */
export type TraceHeaderInput = Omit<TraceHeader, 'project_id'>;

export interface Ingest {
  (projectId: string, spans: RawSpan[], traces?: TraceHeaderInput[]): Promise<IngestOutcome>;
  /** Throws a BackpressureError when the write path is full; call before reading a request body. */
  admit?(): void;
}

const MAX_ID_LENGTH = 128;
const MIN_TIME_MS = Date.UTC(1970, 0, 2);
const MAX_TIME_MS = Date.UTC(2200, 0, 1);

/** Why a decoded span cannot be stored, or null when it can. */
export function invalidSpanReason(span: RawSpan): string | null {
  if (!span.traceId) return 'trace_id is empty';
  if (!span.spanId) return 'span_id is empty';
  if (span.traceId.length > MAX_ID_LENGTH || span.spanId.length > MAX_ID_LENGTH) return `ids must be at most ${MAX_ID_LENGTH} characters`;
  if (/^0+$/.test(span.traceId)) return 'trace_id is all zeroes';
  if (/^0+$/.test(span.spanId)) return 'span_id is all zeroes';
  if (!Number.isFinite(span.startTimeMs) || span.startTimeMs < MIN_TIME_MS || span.startTimeMs > MAX_TIME_MS) {
    return 'start time is missing or out of range';
  }
  if (!Number.isFinite(span.endTimeMs) || span.endTimeMs > MAX_TIME_MS) return 'end time is out of range';
  return null;
}

/**
 * The one ingest path: validate -> normalize -> sink. Every receiver (OTLP gRPC, OTLP HTTP
 * protobuf and JSON, the JSON ingest body, POST /api/spans) calls the function this returns.
 */
export function createIngest(sink: SpanSink): Ingest {
  const ingest: Ingest = async function ingest(projectId, rawSpans, traces = []) {
    const records: SpanRecord[] = [];
    const rejected: RejectedSpan[] = [];
    rawSpans.forEach((raw, index) => {
      const reason = invalidSpanReason(raw);
      if (reason) rejected.push({ index, spanId: raw.spanId, reason });
      else records.push(normalizeSpan(raw, projectId));
    });
    const headers: TraceHeader[] = traces.map((t) => ({ ...t, project_id: projectId }));
    if (records.length > 0 || headers.length > 0) await sink.write({ spans: records, traces: headers });
    const traceIds = [...new Set([...headers.map((t) => t.trace_id), ...records.map((s) => s.trace_id)])];
    if (rejected.length === 0) return { kind: 'ok', accepted: records.length, traceIds };
    return { kind: 'partial', accepted: records.length, traceIds, rejected };
  };
  ingest.admit = () => sink.admit();
  return ingest;
}
