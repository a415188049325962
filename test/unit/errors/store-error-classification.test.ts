import { describe, expect, it } from 'vitest';
import { classifyStoreError, isInfrastructureFailure, NotFoundError } from '../../../core/errors.js';

describe('store error classification', () => {
  it('treats ECONNREFUSED, ETIMEDOUT, UNAVAILABLE and connect errors as infrastructure failures', () => {
    expect(isInfrastructureFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isInfrastructureFailure(new Error('connect ETIMEDOUT 10.0.0.1:9000'))).toBe(true);
    expect(isInfrastructureFailure(new Error('14 UNAVAILABLE: No connection established'))).toBe(true);
    expect(isInfrastructureFailure(new AggregateError([new Error('connect ECONNREFUSED ::1:5432')]))).toBe(true);
    expect(isInfrastructureFailure(new Error('Syntax error near SELECT'))).toBe(false);
  });

  it('treats PostgreSQL SQLSTATEs of an unavailable, overloaded or restarting server as infrastructure failures, not data errors', () => {
    const pgError = (code: string) => Object.assign(new Error('server said no'), { code });
    for (const code of ['08006', '08001', '53300', '53100', '57P01', '57P03', '40001', '40P01'])
      expect(isInfrastructureFailure(pgError(code)), code).toBe(true);
    // unique violation, invalid text representation, undefined table, check violation
    for (const code of ['23505', '22P02', '42P01', '23514']) expect(isInfrastructureFailure(pgError(code)), code).toBe(false);
  });

  it('maps to the SPEC texts: 503 per store, 500 Failed to <operation>, AppErrors unchanged', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:8123');
    expect(classifyStoreError('analytics', 'create score', refused)).toMatchObject({ status: 503, message: 'Analytical store service unavailable' });
    expect(classifyStoreError('metadata', 'create suite', refused)).toMatchObject({ status: 503, message: 'Database not available' });
    expect(classifyStoreError('workflow', 'create eval run', refused)).toMatchObject({ status: 503, message: 'Workflow engine service unavailable' });
    expect(classifyStoreError('analytics', 'create score', new Error('boom'))).toMatchObject({
      status: 500,
      message: 'Failed to create score',
      details: 'boom',
    });
    const notFound = new NotFoundError('Span not found');
    expect(classifyStoreError('analytics', 'get span details', notFound)).toBe(notFound);
  });
});
