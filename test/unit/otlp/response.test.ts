import { describe, expect, it } from 'vitest';
import { BackpressureError, ServiceUnavailableError, BadRequestError, writeFailure, ValidationError } from '../../../core/errors.js';
import { GrpcCode, toWireError } from '../../../core/wire-error.js';
import { encodeExportResponse, encodeStatus, OtlpDecodeError, otlpTypes, partialSuccessOf } from '../../../collector/otlp/index.js';

/** google.rpc.Status as protobufjs's toObject gives it. */
interface RpcStatus {
  code: number;
  message: string;
  details: Array<{ type_url: string; value: Uint8Array }>;
}

describe('partialSuccessOf', () => {
  it('is unset on full success', () => {
    expect(partialSuccessOf({ kind: 'ok', accepted: 3 })).toBeUndefined();
  });
  it('counts the rejected spans and names them', () => {
    const rejected = Array.from({ length: 12 }, (_, i) => ({ index: i, spanId: i === 0 ? '' : `s${i}`, reason: 'trace_id is empty' }));
    const partial = partialSuccessOf({ kind: 'partial', accepted: 1, rejected })!;
    expect(partial.rejectedSpans).toBe(12);
    expect(partial.errorMessage).toMatch(/^12 span\(s\) rejected: spans\[0\]: trace_id is empty; spans\[1\] \(span_id s1\)/);
    expect(partial.errorMessage).toMatch(/and 2 more$/);
  });
});

describe('encodeExportResponse', () => {
  it('writes protobuf and proto3 JSON (int64 as a string)', () => {
    const partial = { rejectedSpans: 2, errorMessage: 'bad' };
    const { ExportTraceServiceResponse } = otlpTypes();
    const decoded = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(encodeExportResponse(partial, 'protobuf')), { longs: Number });
    expect(decoded).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: 'bad' } });
    expect(JSON.parse(encodeExportResponse(partial, 'json').toString())).toEqual({ partialSuccess: { rejectedSpans: '2', errorMessage: 'bad' } });
    expect(encodeExportResponse(undefined, 'protobuf').length).toBe(0);
    expect(encodeExportResponse(undefined, 'json').toString()).toBe('{}');
  });
});

describe('encodeStatus', () => {
  it('writes google.rpc.Status with RetryInfo when a delay is given', () => {
    const { Status, RetryInfo } = otlpTypes();
    const status = Status.toObject(Status.decode(encodeStatus(GrpcCode.UNAVAILABLE, 'busy', 'protobuf', 2.5)), { longs: Number }) as RpcStatus;
    expect(status).toMatchObject({ code: 14, message: 'busy' });
    expect(status.details[0].type_url).toBe('type.googleapis.com/google.rpc.RetryInfo');
    expect(RetryInfo.toObject(RetryInfo.decode(status.details[0].value), { longs: Number })).toEqual({ retryDelay: { seconds: 2, nanos: 500_000_000 } });
    expect(JSON.parse(encodeStatus(GrpcCode.INVALID_ARGUMENT, 'bad', 'json').toString())).toEqual({ code: 3, message: 'bad' });
  });
});

describe('toWireError: the one mapping every ingress answers with', () => {
  it('maps each failure to the OTLP retry semantics', () => {
    expect(toWireError(new BackpressureError(3, 429))).toMatchObject({ httpStatus: 429, grpcCode: GrpcCode.RESOURCE_EXHAUSTED, retryAfterSeconds: 3 });
    expect(toWireError(new BackpressureError(7))).toMatchObject({ httpStatus: 503, grpcCode: GrpcCode.UNAVAILABLE, retryAfterSeconds: 7 });
    expect(toWireError(new ServiceUnavailableError('analytics'))).toMatchObject({ httpStatus: 503, grpcCode: GrpcCode.UNAVAILABLE, retryAfterSeconds: 5 });
    expect(toWireError(new OtlpDecodeError('bad'))).toMatchObject({ httpStatus: 400, grpcCode: GrpcCode.INVALID_ARGUMENT, message: 'bad' });
    expect(toWireError(new BadRequestError('Workspace context required'))).toMatchObject({ httpStatus: 400, message: 'Workspace context required' });
    expect(toWireError(new ValidationError([{ field: 'spans[0]', message: 'x' }]))).toMatchObject({ httpStatus: 422, grpcCode: GrpcCode.INVALID_ARGUMENT });
    const internal = toWireError(new Error('secret detail'));
    expect(internal).toMatchObject({ httpStatus: 500, grpcCode: GrpcCode.INTERNAL });
    expect(internal.message).not.toContain('secret');
  });

  it('answers a store that is down, timing out or overloaded as retryable, and data the store refuses as not', () => {
    const overloads = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }),
      new Error('Timeout error.'),
      Object.assign(new Error('Too many parts (3001). Merges are processing significantly slower than inserts'), { type: 'TOO_MANY_PARTS', code: '252' }),
      Object.assign(new Error('Memory limit (total) exceeded'), { type: 'MEMORY_LIMIT_EXCEEDED', code: '241' }),
      Object.assign(new Error('Too many simultaneous queries. Maximum: 100'), { type: 'TOO_MANY_SIMULTANEOUS_QUERIES', code: '202' }),
      new Error('something nobody classified'),
    ];
    for (const err of overloads) {
      expect(toWireError(writeFailure('analytics', err))).toMatchObject({
        httpStatus: 503,
        grpcCode: GrpcCode.UNAVAILABLE,
        retryAfterSeconds: 5,
        message: 'Analytical store service unavailable',
      });
    }
    const parse = Object.assign(new Error('Cannot parse escape sequence: missing second part of surrogate pair'), {
      type: 'CANNOT_PARSE_ESCAPE_SEQUENCE',
      code: '25',
    });
    expect(toWireError(writeFailure('analytics', parse))).toMatchObject({ httpStatus: 400, grpcCode: GrpcCode.INVALID_ARGUMENT, retryAfterSeconds: undefined });
  });
});
