import { AppError, BackpressureError, ServiceUnavailableError, STORE_DOWN_RETRY_AFTER_SECONDS } from './errors.js';

/** gRPC status codes used by the receivers (google.rpc.Code). */
export const GrpcCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** How a failure is answered, in every ingress's terms. */
export interface WireError {
  /** The AppError the failure is (anything else becomes a generic 500). */
  error: AppError;
  httpStatus: number;
  grpcCode: GrpcCode;
  /** Set for retryable failures: the client should wait this long (Retry-After / RetryInfo). */
  retryAfterSeconds?: number;
  /** Shown to the client; generic for unexpected 500s (messages are shown only below 500). */
  message: string;
}

/**
 * The one table from an error's HTTP status to the gRPC code the collector answers with, and
 * whether clients should retry (then with Retry-After / RetryInfo). Every AppError's status is in
 * it (test/unit/errors/error-table.test.ts walks it).
 */
export const WIRE_TABLE: Readonly<Record<number, { grpc: GrpcCode; retryable: boolean }>> = Object.freeze({
  400: { grpc: GrpcCode.INVALID_ARGUMENT, retryable: false },
  401: { grpc: GrpcCode.UNAUTHENTICATED, retryable: false },
  403: { grpc: GrpcCode.PERMISSION_DENIED, retryable: false },
  404: { grpc: GrpcCode.NOT_FOUND, retryable: false },
  409: { grpc: GrpcCode.INVALID_ARGUMENT, retryable: false },
  413: { grpc: GrpcCode.RESOURCE_EXHAUSTED, retryable: false },
  415: { grpc: GrpcCode.INVALID_ARGUMENT, retryable: false },
  422: { grpc: GrpcCode.INVALID_ARGUMENT, retryable: false },
  429: { grpc: GrpcCode.RESOURCE_EXHAUSTED, retryable: true },
  500: { grpc: GrpcCode.INTERNAL, retryable: false },
  503: { grpc: GrpcCode.UNAVAILABLE, retryable: true },
});

/** Wraps what is not an AppError (a bug, not bad input) so it is answered as a plain 500. */
class UnexpectedError extends AppError {
  constructor(cause: unknown) {
    super(500, 'INTERNAL_ERROR', 'Internal error', undefined, { cause });
  }
}

/**
 * The one mapping from a failure to the answer of every ingress: the API's HTTP status and
 * Retry-After, OTLP/HTTP's status and OTLP/gRPC's code (OTLP spec, "Failures"): retryable
 * conditions are 429/503 and RESOURCE_EXHAUSTED/UNAVAILABLE with a delay, which OTel exporters
 * retry; bad input is 4xx and INVALID_ARGUMENT, which they drop; anything else 500/INTERNAL.
 * Store failures arrive already classified (core/errors.ts: `writeFailure`, `classifyStoreError`).
 */
export function toWireError(thrown: unknown): WireError {
  const error = thrown instanceof AppError ? thrown : new UnexpectedError(thrown);
  const status = error.status;
  const row = WIRE_TABLE[status] ?? WIRE_TABLE[status >= 400 && status < 500 ? 400 : 500];
  let retryAfterSeconds: number | undefined;
  if (error instanceof BackpressureError || error instanceof ServiceUnavailableError) retryAfterSeconds = error.retryAfterSeconds;
  else if (row.retryable) retryAfterSeconds = STORE_DOWN_RETRY_AFTER_SECONDS;
  const grpcCode = row.grpc;
  return { error, httpStatus: status, grpcCode, retryAfterSeconds, message: error.message };
}
