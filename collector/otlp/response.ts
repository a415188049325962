import type { IngestOutcome } from '../ingest.js';
import type { GrpcCode } from '../../core/wire-error.js';
import { otlpTypes } from './proto.js';

/** The two OTLP/HTTP encodings; a response uses the request's (OTLP spec, "OTLP/HTTP Response"). */
export type OtlpEncoding = 'protobuf' | 'json';

/** How many rejection reasons the partial_success error_message lists before summarizing. */
const MAX_LISTED_REASONS = 10;

/** ExportTracePartialSuccess fields, or undefined when everything was accepted. */
export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/**
 * The partial_success of an export: set only when spans were rejected, left unset on full
 * success (OTLP spec, "Partial Success"). The message names each rejected span by its position
 * in the request and its id.
 */
export function partialSuccessOf(outcome: IngestOutcome): PartialSuccess | undefined {
  if (outcome.kind !== 'partial' || outcome.rejected.length === 0) return undefined;
  const listed = outcome.rejected.slice(0, MAX_LISTED_REASONS).map((r) => `spans[${r.index}]${r.spanId ? ` (span_id ${r.spanId})` : ''}: ${r.reason}`);
  const more = outcome.rejected.length - listed.length;
  const tail = more > 0 ? `; and ${more} more` : '';
  return {
    rejectedSpans: outcome.rejected.length,
    errorMessage: `${outcome.rejected.length} span(s) rejected: ${listed.join('; ')}${tail}`,
  };
}

/** An ExportTraceServiceResponse in the given encoding. */
export function encodeExportResponse(partial: PartialSuccess | undefined, encoding: OtlpEncoding): Buffer {
  if (encoding === 'json') {
    // proto3 JSON mapping: lowerCamelCase names, int64 as a decimal string.
    const body = partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {};
    return Buffer.from(JSON.stringify(body));
  }
  const { ExportTraceServiceResponse } = otlpTypes();
  const message = ExportTraceServiceResponse.fromObject(partial ? { partialSuccess: partial } : {});
  return Buffer.from(ExportTraceServiceResponse.encode(message).finish());
}

/** A google.rpc.RetryInfo packed in google.protobuf.Any, for google.rpc.Status.details. */
function retryInfoAny(retryAfterSeconds: number): { type_url: string; value: Uint8Array } {
  const { RetryInfo } = otlpTypes();
  const seconds = Math.max(0, Math.floor(retryAfterSeconds));
  const nanos = Math.round((Math.max(0, retryAfterSeconds) - seconds) * 1e9);
  const value = RetryInfo.encode(RetryInfo.fromObject({ retryDelay: { seconds, nanos } })).finish();
  // protobufjs's bundled google.protobuf.Any keeps the proto field name type_url.
  return { type_url: 'type.googleapis.com/google.rpc.RetryInfo', value };
}

/**
 * A google.rpc.Status, the body of every OTLP/HTTP 4xx/5xx response and the rich error detail
 * of OTLP/gRPC (OTLP spec, "Failures"). A retry delay is attached as RetryInfo, which the spec
 * names for throttling ("OTLP/gRPC Throttling").
 */
export function encodeStatus(code: GrpcCode, message: string, encoding: OtlpEncoding, retryAfterSeconds?: number): Buffer {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  const { Status } = otlpTypes();
  const details = retryAfterSeconds === undefined ? [] : [retryInfoAny(retryAfterSeconds)];
  return Buffer.from(Status.encode(Status.fromObject({ code, message, details })).finish());
}
