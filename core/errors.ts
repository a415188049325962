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

  /** The same error (class, status, message, details) under another code: a route's own vocabulary. */
  withCode(code: string): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object, Object.getOwnPropertyDescriptors(this)) as this;
    Object.defineProperty(copy, 'code', { value: code, enumerable: true });
    return copy;
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

/** 401 `Unauthorized` (SPEC): missing or invalid credentials. */
export class UnauthorizedError extends AppError {
  readonly hint = 'Provide a bearer token or an API key header';
  constructor(details = 'Valid authentication required') {
    super(401, 'UNAUTHORIZED', 'Unauthorized', details);
  }
}

/** 403 `Forbidden` (SPEC): an authenticated caller lacking a permission, or asking for another project. */
export class ForbiddenError extends AppError {
  readonly hint: string;
  constructor(details: string, hint = 'Use a key or token with this permission for this project', code = 'FORBIDDEN') {
    super(403, code, 'Forbidden', details);
    this.hint = hint;
  }
}

/** 409: the request conflicts with what is stored (a name already taken...). */
export class ConflictError extends AppError {
  constructor(message: string, code = 'CONFLICT') {
    super(409, code, message);
  }
}

/** 409 `RUN_STATE_CONFLICT`: a run was asked to do what its status or execution does not allow (resume a cancelled run...). */
export class RunStateConflictError extends AppError {
  constructor(message: string) {
    super(409, 'RUN_STATE_CONFLICT', message);
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

/** Retry-After sent with a 503 for a store that is down or overloaded, which carries no delay of its own. */
export const STORE_DOWN_RETRY_AFTER_SECONDS = 5;

/** 503: a dependency is unreachable, timing out or overloaded; the client should retry. */
export class ServiceUnavailableError extends AppError {
  readonly retryAfterSeconds = STORE_DOWN_RETRY_AFTER_SECONDS;
  constructor(
    readonly store: StoreKind,
    cause?: unknown,
  ) {
    super(503, 'SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGES[store], cause === undefined ? undefined : errorMessage(cause), { cause });
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

/** `err` itself when it is an Error (the usual case), else an Error carrying its text, with `err` as the cause. */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(errorMessage(err), { cause: err });
}

/** 400: the store refused the data itself; sending it again can never succeed. */
export class DataRejectedError extends AppError {
  constructor(reason: string, cause?: unknown) {
    super(400, 'DATA_REJECTED', `The analytical store rejected the data: ${reason}`, undefined, { cause });
  }
}

const INFRA_PATTERN =
  /ECONNREFUSED|ETIMEDOUT|UNAVAILABLE|ECONNRESET|EHOSTUNREACH|ENOTFOUND|EPIPE|connect error|connection (refused|terminated)|Connection terminated|socket hang up|Timeout error/i;

/**
 * ClickHouse error types that are the data's fault: the same rows fail the same way every time
 * (parse errors, values out of a type's range, malformed UTF-8 escapes, oversized values).
 */
const DATA_FAULT_TYPES = new Set([
  'CANNOT_PARSE_TEXT',
  'CANNOT_PARSE_ESCAPE_SEQUENCE',
  'CANNOT_PARSE_QUOTED_STRING',
  'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
  'CANNOT_PARSE_DATE',
  'CANNOT_PARSE_DATETIME',
  'CANNOT_PARSE_NUMBER',
  'CANNOT_PARSE_BOOL',
  'CANNOT_PARSE_UUID',
  'CANNOT_READ_ARRAY_FROM_TEXT',
  'CANNOT_READ_MAP_FROM_TEXT',
  'INCORRECT_DATA',
  'TYPE_MISMATCH',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'ARGUMENT_OUT_OF_BOUND',
  'TOO_LARGE_STRING_SIZE',
  'TOO_LARGE_ARRAY_SIZE',
  'DECIMAL_OVERFLOW',
  'INCORRECT_NUMBER_OF_COLUMNS',
  'SIZES_OF_ARRAYS_DONT_MATCH',
  'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN',
  'ATTEMPT_TO_READ_AFTER_EOF',
  'UNKNOWN_FIELD',
]);

/** The ClickHouse error type (`CANNOT_PARSE_TEXT`...), from @clickhouse/client's ClickHouseError or chDB's message. */
function clickhouseType(err: unknown): string | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && /^[A-Z_]+$/.test(type)) return type;
  return /\(([A-Z][A-Z_]+)\)\s*$/.exec(errorMessage(err))?.[1];
}

/**
 * How a failed store call bears on the data it carried, decided once where the store is called:
 * `permanent` when the store says the data itself is bad (it can never be written), otherwise
 * `transient` (OpenTelemetry Collector receivers' rule: default to retryable), so an outage,
 * a timeout or an overload (TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED, ...) never looks like bad data.
 */
export function failureKind(err: unknown): 'permanent' | 'transient' {
  if (err instanceof AppError) return err.status >= 500 || err.status === 429 ? 'transient' : 'permanent';
  const type = clickhouseType(err);
  return type !== undefined && DATA_FAULT_TYPES.has(type) ? 'permanent' : 'transient';
}

/** A failed write, as the client must see it: 400 for data the store refuses, else 503 (retry). */
export function writeFailure(store: StoreKind, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (failureKind(err) === 'permanent') return new DataRejectedError(errorMessage(err).split('\n')[0].slice(0, 500), err);
  return new ServiceUnavailableError(store, err);
}

/** ClickHouse error types that mean the store is overloaded or slow, not that a query is wrong. */
const OVERLOAD_TYPES = new Set([
  'TOO_MANY_PARTS',
  'MEMORY_LIMIT_EXCEEDED',
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'TIMEOUT_EXCEEDED',
  'SOCKET_TIMEOUT',
  'NETWORK_ERROR',
  'ALL_CONNECTION_TRIES_FAILED',
  'TABLE_IS_READ_ONLY',
  'NOT_ENOUGH_SPACE',
  'QUERY_WAS_CANCELLED',
  'ABORTED',
  'KEEPER_EXCEPTION',
  'ALL_REPLICAS_ARE_STALE',
  'TOO_MANY_QUERIES_FOR_USER',
  'UNKNOWN_TABLE',
  'UNKNOWN_DATABASE',
]);

/**
 * PostgreSQL SQLSTATEs of a server that is unreachable, overloaded, shutting down or starting,
 * or of a transaction that lost a race: class 08 (connection exception), class 53 (insufficient
 * resources: too many connections, out of memory or disk), 57P01-57P05 (admin or crash shutdown,
 * cannot connect now, idle session timeout), 40001 and 40P01 (serialization failure, deadlock).
 */
const PG_TRANSIENT_SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-5]|40001|40P01)$/;

/** The SPEC's rule: an exception whose message names ECONNREFUSED, ETIMEDOUT, UNAVAILABLE or a connect error is an infrastructure failure; so is a store that says it is overloaded. */
export function isInfrastructureFailure(err: unknown): boolean {
  if (err instanceof ServiceUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (INFRA_PATTERN.test(code) || PG_TRANSIENT_SQLSTATE.test(code))) return true;
  if (err instanceof AggregateError) return err.errors.some(isInfrastructureFailure);
  const type = clickhouseType(err);
  if (type !== undefined && OVERLOAD_TYPES.has(type)) return true;
  return INFRA_PATTERN.test(errorMessage(err));
}

/**
 * PostgreSQL SQLSTATEs that mean the request's own value cannot be stored or compared: 22021
 * (character_not_in_repertoire: `invalid byte sequence for encoding "UTF8": 0x00`), 22P05
 * (untranslatable_character: `\u0000` in jsonb), 22P02 (invalid_text_representation), 54001
 * (statement_too_complex: `stack depth limit exceeded`). Sending it again fails the same way.
 */
const PG_VALUE_REFUSED_SQLSTATE = new Set(['22021', '22P05', '22P02', '54001']);

/**
 * 400 for a value PostgreSQL refuses as data: the last guard behind the validation of request
 * bodies, path parameters and queries (which name the field), so such a value is never a 500.
 */
export class UnstorableValueError extends AppError {
  constructor(cause: unknown) {
    super(400, 'UNSTORABLE_VALUE', `The request holds a value the metadata store cannot take: ${errorMessage(cause).split('\n')[0].slice(0, 300)}`, undefined, {
      cause,
    });
  }
}

/** Whether `err` is PostgreSQL refusing a value of the request itself (a pg DatabaseError carries `severity` and the SQLSTATE as `code`). */
function isPgValueRefused(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | null;
  return typeof e?.severity === 'string' && typeof e.code === 'string' && PG_VALUE_REFUSED_SQLSTATE.has(e.code);
}

/**
 * A failed read: an unreachable or overloaded store is a 503 for that store, a value PostgreSQL
 * refuses as data a 400, anything else a 500 with the operation's fixed text. AppErrors pass
 * through unchanged.
 */
export function classifyStoreError(store: StoreKind, operation: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isInfrastructureFailure(err)) return new ServiceUnavailableError(store, err);
  if (isPgValueRefused(err)) return new UnstorableValueError(err);
  return new OperationFailedError(operation, err);
}

/** A setting of the environment is missing, malformed or inconsistent: the process does not start (main.ts prints it). */
export class ConfigError extends Error {}
