import { AppError, BackpressureError, ServiceUnavailableError } from './errors.js';

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

const GRPC_BY_STATUS: Record<number, GrpcCode> = {
  401: GrpcCode.UNAUTHENTICATED,
  403: GrpcCode.PERMISSION_DENIED,
  404: GrpcCode.NOT_FOUND,
  413: GrpcCode.RESOURCE_EXHAUSTED,
  429: GrpcCode.RESOURCE_EXHAUSTED,
  503: GrpcCode.UNAVAILABLE,
};

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
  const grpcCode = GRPC_BY_STATUS[status] ?? (status >= 400 && status < 500 ? GrpcCode.INVALID_ARGUMENT : status === 503 ? GrpcCode.UNAVAILABLE : GrpcCode.INTERNAL);
  let retryAfterSeconds: number | undefined;
  if (error instanceof BackpressureError || error instanceof ServiceUnavailableError) retryAfterSeconds = error.retryAfterSeconds;
  else if (status === 503) retryAfterSeconds = 5;
  return { error, httpStatus: status, grpcCode, retryAfterSeconds, message: error.message };
}
