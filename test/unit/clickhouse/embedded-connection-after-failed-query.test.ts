import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ChdbConnection } from 'chdb/connection';
import { serializedChdbConnection } from '../../../core/store/clickhouse/embedded-connection.js';

// The queue in front of chDB (test/integration/chdb-failed-query-output.test.ts runs it against
// chDB itself). Here chDB is a stand-in with chDB 3.4's fault, so that the one path real chDB
// cannot be made to take is covered: the cleanup query itself failing.

/** chDB as it behaves: a failed query's output stays on the connection, ahead of the next answer. */
function chdbWithLeftovers() {
  const state = { leftover: '', down: false, ran: [] as string[] };
  async function run(sql: string): Promise<string> {
    await new Promise((resolve) => setImmediate(resolve));
    state.ran.push(sql);
    if (state.down) throw new Error('Code: 236. DB::Exception: the engine is down. (ABORTED)');
    if (sql.startsWith('FAIL')) {
      state.leftover += 'stale\n';
      throw new Error('Code: 159. DB::Exception: Timeout exceeded. (TIMEOUT_EXCEEDED)');
    }
    const out = `${state.leftover}${sql}\n`;
    state.leftover = '';
    return out;
  }
  const inner = {
    query: async ({ query }: { query: string }) => ({ stream: Readable.from([await run(query)]), query_id: 'q', response_headers: {}, http_status_code: 200 }),
    chdb: { queryAsync: (sql: string) => run(sql) },
  };
  return { state, inner: inner as unknown as ChdbConnection };
}

async function answer(connection: ReturnType<typeof serializedChdbConnection>, query: string): Promise<string> {
  const { stream } = await connection.query({ query });
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('the embedded connection after a failed query', () => {
  it('takes the leftovers before the next call, even one already waiting', async () => {
    const { inner } = chdbWithLeftovers();
    const connection = serializedChdbConnection(inner);
    const [failed, next] = await Promise.allSettled([answer(connection, 'FAIL'), answer(connection, 'GOOD')]);
    expect(failed.status).toBe('rejected');
    expect(next).toEqual({ status: 'fulfilled', value: 'GOOD\n' });
  });

  it('fails the next call rather than hand it stale bytes when the cleanup fails too, and recovers', async () => {
    const { state, inner } = chdbWithLeftovers();
    const connection = serializedChdbConnection(inner);
    await expect(answer(connection, 'FAIL')).rejects.toThrow(/TIMEOUT_EXCEEDED/);
    state.down = true;
    await expect(answer(connection, 'GOOD 1')).rejects.toThrow(/ABORTED/);
    state.down = false;
    expect(await answer(connection, 'GOOD 2')).toBe('GOOD 2\n');
    expect(state.ran.filter((sql) => sql.startsWith('GOOD'))).toEqual(['GOOD 2']);
  });
});
