/**
 * Errors are data with a status (Koa's error recipe, Hono's HTTPException). One middleware in
 * api/ turns them into the SPEC's bodies; the gRPC receiver maps the same classes to status codes.
 */

export interface FieldIssue {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: string | FieldIssue[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400 with the SPEC's general body `{error, status}`. */
export class BadRequestError extends AppError {
  constructor(message: string, code = 'BAD_REQUEST') {
    super(400, code, message);
  }
}

/** 422 `{error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed', details}`. */
export class ValidationError extends AppError {
  constructor(readonly issues: FieldIssue[]) {
    super(422, 'VALIDATION_ERROR', 'Field validation failed', issues);
  }
}

/** 404 in the reference form `{error, message, code}`. */
export class NotFoundError extends AppError {
  constructor(message: string, code = 'NOT_FOUND') {
    super(404, code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/**
 * The write path is full: answer 429 or 503 with Retry-After so OTel exporters retry
 * (they retry 429, 502, 503, 504 and gRPC RESOURCE_EXHAUSTED / UNAVAILABLE).
 */
export class BackpressureError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    status: 429 | 503 = 503,
    message = 'Ingestion is at capacity, retry later',
  ) {
    super(status, status === 429 ? 'RATE_LIMITED' : 'BACKPRESSURE', message);
  }
}

export type StoreKind = 'analytics' | 'metadata' | 'workflow';

const UNAVAILABLE_MESSAGES: Record<StoreKind, string> = {
  analytics: 'Analytical store service unavailable',
  metadata: 'Database not available',
  workflow: 'Workflow engine service unavailable',
};

/** 503: a dependency is unreachable. */
export class ServiceUnavailableError extends AppError {
  constructor(
    readonly store: StoreKind,
    cause?: unknown,
  ) {
    super(503, 'SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGES[store], errorMessage(cause), { cause });
  }
}

/** 500 with the SPEC's fixed `Failed to <verb> <object>` text; `details` holds the cause's message. */
export class OperationFailedError extends AppError {
  constructor(operation: string, cause: unknown) {
    super(500, 'INTERNAL_ERROR', `Failed to ${operation}`, errorMessage(cause), { cause });
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

const INFRA_PATTERN = /ECONNREFUSED|ETIMEDOUT|UNAVAILABLE|ECONNRESET|EHOSTUNREACH|ENOTFOUND|connect error|connection (refused|terminated)|Connection terminated|socket hang up/i;

/** The SPEC's rule: an exception whose message names ECONNREFUSED, ETIMEDOUT, UNAVAILABLE or a connect error is an infrastructure failure. */
export function isInfrastructureFailure(err: unknown): boolean {
  if (err instanceof ServiceUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && INFRA_PATTERN.test(code)) return true;
  if (err instanceof AggregateError) return err.errors.some(isInfrastructureFailure);
  return INFRA_PATTERN.test(errorMessage(err));
}

/**
 * Wraps a store call: infrastructure failures become 503 for that store, anything else a 500
 * with the operation's fixed text. AppErrors pass through unchanged.
 */
export function classifyStoreError(store: StoreKind, operation: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isInfrastructureFailure(err)) return new ServiceUnavailableError(store, err);
  return new OperationFailedError(operation, err);
}
