import { createClient } from '@clickhouse/client';
import type { Context } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correlationErrorCodes } from '../../api/middleware/correlation-errors.js';
import { errorBody } from '../../api/middleware/errors.js';
import { AppError, ValidationError } from '../../core/errors.js';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { makeDataDir } from '../helpers/data-dir.js';

// The SPEC's five correlation error codes, from real failures: a real chDB query that times out
// or fails, a ClickHouse server address nothing listens on, an answer that is not JSON.
let ch: ClickHouse;
beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: makeDataDir() });
});
afterAll(async () => {
  await ch?.close();
});

/** What the route's handler throws, as the API answers it after the middleware. */
async function answered(handler: () => Promise<unknown>): Promise<AppError> {
  const ctx = { state: { operation: { name: 'fetch score correlation', store: 'analytics' } } } as unknown as Context;
  try {
    await correlationErrorCodes(ctx, async () => {
      await handler();
    });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the handler to fail');
}

describe('correlation analysis error codes (SPEC)', () => {
  it('INVALID_INPUT for a refused query, with the fields, as a 422', async () => {
    const err = await answered(() => Promise.reject(new ValidationError([{ field: 'score_name', message: 'is required' }])));
    expect(err.status).toBe(422);
    expect(errorBody(err)).toEqual({
      error: 'Validation error',
      code: 'INVALID_INPUT',
      message: 'Field validation failed',
      details: [{ field: 'score_name', message: 'is required' }],
    });
  });

  it('QUERY_TIMEOUT when the store gives up on the query, a retryable 503', async () => {
    const err = await answered(() =>
      ch.client
        .query({
          query: 'SELECT count() FROM numbers(1e12) WHERE NOT ignore(sipHash64(number))',
          clickhouse_settings: { max_execution_time: 0.2, timeout_overflow_mode: 'throw' },
        })
        .then((r) => r.json()),
    );
    expect(err).toMatchObject({ status: 503, code: 'QUERY_TIMEOUT' });
    expect((err as AppError & { retryAfterSeconds?: number }).retryAfterSeconds).toBeGreaterThan(0);
  });

  it('CONNECTION_ERROR when the store cannot be reached, a retryable 503', async () => {
    const nowhere = createClient({ url: 'http://127.0.0.1:1', request_timeout: 2000 });
    try {
      const err = await answered(() => nowhere.query({ query: 'SELECT 1' }).then((r) => r.json()));
      expect(err).toMatchObject({ status: 503, code: 'CONNECTION_ERROR' });
    } finally {
      await nowhere.close();
    }
  });

  it('QUERY_FAILED when the store fails the query otherwise, and PARSE_ERROR for an answer that is not the result', async () => {
    const failed = await answered(() => ch.client.query({ query: "SELECT throwIf(1, 'boom')" }).then((r) => r.json()));
    expect(failed).toMatchObject({ status: 500, code: 'QUERY_FAILED', message: 'Failed to fetch score correlation' });
    const parse = await answered(
      async () => JSON.parse(await (await ch.client.query({ query: "SELECT 'not json'", format: 'TabSeparated' })).text()) as unknown,
    );
    expect(parse).toMatchObject({ status: 500, code: 'PARSE_ERROR' });
  });
});
