import { describe, expect, it } from 'vitest';
import { BackpressureError, ServiceUnavailableError, BadRequestError } from '../../../core/errors.js';
import { classifyExportFailure, encodeExportResponse, encodeStatus, GrpcCode, OtlpDecodeError, otlpTypes, partialSuccessOf } from '../../../collector/otlp/index.js';

describe('partialSuccessOf', () => {
  it('is unset on full success', () => {
    expect(partialSuccessOf({ kind: 'ok', accepted: 3, traceIds: ['t'] })).toBeUndefined();
  });
  it('counts the rejected spans and names them', () => {
    const rejected = Array.from({ length: 12 }, (_, i) => ({ index: i, spanId: i === 0 ? '' : `s${i}`, reason: 'trace_id is empty' }));
    const partial = partialSuccessOf({ kind: 'partial', accepted: 1, traceIds: [], rejected })!;
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
    const status = Status.toObject(Status.decode(encodeStatus(GrpcCode.UNAVAILABLE, 'busy', 'protobuf', 2.5)), { longs: Number });
    expect(status).toMatchObject({ code: 14, message: 'busy' });
    expect(status.details[0].type_url).toBe('type.googleapis.com/google.rpc.RetryInfo');
    expect(RetryInfo.toObject(RetryInfo.decode(status.details[0].value), { longs: Number })).toEqual({ retryDelay: { seconds: 2, nanos: 500_000_000 } });
    expect(JSON.parse(encodeStatus(GrpcCode.INVALID_ARGUMENT, 'bad', 'json').toString())).toEqual({ code: 3, message: 'bad' });
  });
});

describe('classifyExportFailure', () => {
  it('maps each failure to the OTLP retry semantics', () => {
    expect(classifyExportFailure(new BackpressureError(3, 429))).toMatchObject({ httpStatus: 429, grpcCode: GrpcCode.RESOURCE_EXHAUSTED, retryAfterSeconds: 3 });
    expect(classifyExportFailure(new BackpressureError(7))).toMatchObject({ httpStatus: 503, grpcCode: GrpcCode.UNAVAILABLE, retryAfterSeconds: 7 });
    expect(classifyExportFailure(new ServiceUnavailableError('analytics'))).toMatchObject({ httpStatus: 503, grpcCode: GrpcCode.UNAVAILABLE, retryAfterSeconds: 5 });
    expect(classifyExportFailure(new OtlpDecodeError('bad'))).toMatchObject({ httpStatus: 400, grpcCode: GrpcCode.INVALID_ARGUMENT, message: 'bad' });
    expect(classifyExportFailure(new BadRequestError('Workspace context required'))).toMatchObject({ httpStatus: 400, message: 'Workspace context required' });
    const internal = classifyExportFailure(new Error('secret detail'));
    expect(internal).toMatchObject({ httpStatus: 500, grpcCode: GrpcCode.INTERNAL });
    expect(internal.message).not.toContain('secret');
  });
});
