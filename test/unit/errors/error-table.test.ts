import { describe, expect, it } from 'vitest';
import { errorBody } from '../../../api/middleware/errors.js';
import {
  AppError,
  BackpressureError,
  BadRequestError,
  ConflictError,
  DataRejectedError,
  ForbiddenError,
  NotFoundError,
  OperationFailedError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '../../../core/errors.js';
import { RateLimitedError } from '../../../core/limits/rate-limiter.js';
import { GrpcCode, toWireError, WIRE_TABLE } from '../../../core/wire-error.js';

/** Every error kind the service answers with, through the one wire table and the one body builder. */
const KINDS: Array<[AppError, { http: number; grpc: GrpcCode; retryAfter?: number; body: Record<string, unknown> }]> = [
  [new BadRequestError('name is required'), { http: 400, grpc: GrpcCode.INVALID_ARGUMENT, body: { error: 'name is required', status: 400 } }],
  [
    new DataRejectedError('bad row'),
    { http: 400, grpc: GrpcCode.INVALID_ARGUMENT, body: { error: 'The analytical store rejected the data: bad row', status: 400 } },
  ],
  [
    new UnauthorizedError(),
    {
      http: 401,
      grpc: GrpcCode.UNAUTHENTICATED,
      body: { error: 'Unauthorized', status: 401, details: 'Valid authentication required', hint: 'Provide a bearer token or an API key header' },
    },
  ],
  [
    new ForbiddenError('missing permission traces:write'),
    { http: 403, grpc: GrpcCode.PERMISSION_DENIED, body: { error: 'Forbidden', status: 403, details: 'missing permission traces:write' } },
  ],
  [
    new NotFoundError('Suite not found', 'SUITE_NOT_FOUND'),
    { http: 404, grpc: GrpcCode.NOT_FOUND, body: { error: 'Suite not found', message: 'Suite not found', code: 'SUITE_NOT_FOUND' } },
  ],
  [new ConflictError('taken'), { http: 409, grpc: GrpcCode.INVALID_ARGUMENT, body: { error: 'taken', status: 409 } }],
  [
    new PayloadTooLargeError(1024),
    { http: 413, grpc: GrpcCode.RESOURCE_EXHAUSTED, body: { error: 'Request body exceeds the limit of 1024 bytes', status: 413 } },
  ],
  [
    new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/x-protobuf or application/json'),
    { http: 415, grpc: GrpcCode.INVALID_ARGUMENT, body: { status: 415 } },
  ],
  [
    new ValidationError([{ field: 'name', message: 'is required' }]),
    {
      http: 422,
      grpc: GrpcCode.INVALID_ARGUMENT,
      body: { error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed', details: [{ field: 'name', message: 'is required' }] },
    },
  ],
  [
    new RateLimitedError({ limit: 5, remaining: 0, resetSeconds: 17 }),
    {
      http: 429,
      grpc: GrpcCode.RESOURCE_EXHAUSTED,
      retryAfter: 17,
      body: { error: 'Rate limit exceeded', status: 429, code: 'RATE_LIMITED', retry_after: 17 },
    },
  ],
  [new BackpressureError(2, 429), { http: 429, grpc: GrpcCode.RESOURCE_EXHAUSTED, retryAfter: 2, body: { status: 429, retry_after: 2 } }],
  [
    new OperationFailedError('create suite', new Error('boom')),
    { http: 500, grpc: GrpcCode.INTERNAL, body: { error: 'Failed to create suite', details: 'boom', status: 500 } },
  ],
  [
    new ServiceUnavailableError('metadata', new Error('ECONNREFUSED')),
    { http: 503, grpc: GrpcCode.UNAVAILABLE, retryAfter: 5, body: { error: 'Database not available', details: 'ECONNREFUSED', status: 503 } },
  ],
  [
    new ServiceUnavailableError('analytics'),
    { http: 503, grpc: GrpcCode.UNAVAILABLE, retryAfter: 5, body: { error: 'Analytical store service unavailable', status: 503 } },
  ],
  [
    new ServiceUnavailableError('workflow'),
    { http: 503, grpc: GrpcCode.UNAVAILABLE, retryAfter: 5, body: { error: 'Workflow engine service unavailable', status: 503 } },
  ],
  [new BackpressureError(1), { http: 503, grpc: GrpcCode.UNAVAILABLE, retryAfter: 1, body: { status: 503, retry_after: 1 } }],
];

describe('the error table', () => {
  it('maps every error kind to its HTTP status, gRPC code, retry delay and SPEC body', () => {
    for (const [error, want] of KINDS) {
      const wire = toWireError(error);
      expect({ kind: error.constructor.name, http: wire.httpStatus, grpc: wire.grpcCode, retryAfter: wire.retryAfterSeconds }).toEqual({
        kind: error.constructor.name,
        http: want.http,
        grpc: want.grpc,
        retryAfter: want.retryAfter,
      });
      expect(errorBody(wire.error)).toMatchObject(want.body);
    }
  });

  it('has a row for every status the service answers, and retry delays exactly on the retryable ones', () => {
    const statuses = new Set(KINDS.map(([, w]) => w.http));
    expect([...statuses].sort()).toEqual(Object.keys(WIRE_TABLE).map(Number).sort());
    for (const [status, row] of Object.entries(WIRE_TABLE)) {
      expect(row.retryable, status).toBe(status === '429' || status === '503');
    }
  });

  it('answers anything that is not an AppError as a plain 500 that shows no internals', () => {
    const wire = toWireError(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(wire).toMatchObject({ httpStatus: 500, grpcCode: GrpcCode.INTERNAL, message: 'Internal error' });
    expect(errorBody(wire.error)).toEqual({ error: 'Internal error', code: 'INTERNAL_ERROR', status: 500 });
  });
});
