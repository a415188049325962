import { AppError, BackpressureError, ServiceUnavailableError } from '../../core/errors.js';

/**
 * The payload cannot be decoded as an OTLP ExportTraceServiceRequest (bad protobuf, bad JSON,
 * bad gzip, a field of the wrong type). OTLP/HTTP answers 400 and OTLP/gRPC INVALID_ARGUMENT;
 * clients must not retry it (OTLP spec, "Failures": non-retryable).
 */
export class OtlpDecodeError extends AppError {
  constructor(
    /** What is wrong, without the location. */
    readonly reason: string,
    /** Where in the request, e.g. `resourceSpans[0].scopeSpans[1].spans[2].traceId`. */
    readonly path = '',
    options?: { cause?: unknown },
  ) {
    super(400, 'OTLP_DECODE_ERROR', path ? `${path}: ${reason}` : reason, undefined, options);
  }

  /** The same error one level further out: `spans[2]` + `traceId` -> `spans[2].traceId`. */
  within(prefix: string): OtlpDecodeError {
    const path = !this.path ? prefix : this.path.startsWith('[') ? prefix + this.path : `${prefix}.${this.path}`;
    return new OtlpDecodeError(this.reason, path, { cause: this.cause });
  }
}

/** Runs `fn`, prefixing the path of any decode error it throws with `prefix`. */
export function within<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof OtlpDecodeError ? err.within(prefix) : err;
  }
}

/** gRPC status codes used by the receivers (google.rpc.Code). */
export const GrpcCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** Retry-After sent with a 503 for an unreachable store, which carries no delay of its own. */
export const STORE_DOWN_RETRY_AFTER_SECONDS = 5;

/** How a failed export is answered, in both transports' terms. */
export interface ExportFailure {
  httpStatus: number;
  grpcCode: GrpcCode;
  /** Shown to the client; generic for 500s (messages are shown only below 500). */
  message: string;
  /** Set for retryable failures: the client should wait this long (Retry-After / RetryInfo). */
  retryAfterSeconds?: number;
}

/**
 * Maps what a receiver caught to the OTLP answer (OTLP spec, "Failures" and "OTLP/HTTP
 * Throttling"): retryable conditions use 429/503 and RESOURCE_EXHAUSTED/UNAVAILABLE with a
 * delay, malformed input 400/INVALID_ARGUMENT, anything else 500/INTERNAL.
 */
export function classifyExportFailure(err: unknown): ExportFailure {
  if (err instanceof BackpressureError) {
    return {
      httpStatus: err.status,
      grpcCode: err.status === 429 ? GrpcCode.RESOURCE_EXHAUSTED : GrpcCode.UNAVAILABLE,
      message: err.message,
      retryAfterSeconds: err.retryAfterSeconds,
    };
  }
  if (err instanceof ServiceUnavailableError) {
    return { httpStatus: 503, grpcCode: GrpcCode.UNAVAILABLE, message: err.message, retryAfterSeconds: STORE_DOWN_RETRY_AFTER_SECONDS };
  }
  if (err instanceof AppError && err.status === 413) {
    return { httpStatus: 413, grpcCode: GrpcCode.RESOURCE_EXHAUSTED, message: err.message };
  }
  if (err instanceof AppError && err.status === 415) {
    return { httpStatus: 415, grpcCode: GrpcCode.INVALID_ARGUMENT, message: err.message };
  }
  if (err instanceof AppError && err.status >= 400 && err.status < 500) {
    return { httpStatus: 400, grpcCode: GrpcCode.INVALID_ARGUMENT, message: err.message };
  }
  return { httpStatus: 500, grpcCode: GrpcCode.INTERNAL, message: 'Internal error while exporting spans' };
}
