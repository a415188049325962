import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseError } from '@clickhouse/client';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { startClickHouseGateway, type RunningGateway } from '../../core/store/clickhouse/gateway.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { removeDir } from '../helpers/processes.js';
import { JSON_ROWS } from '../../core/store/clickhouse/rows.js';
import { failure } from '../helpers/eventually.js';

// A query that fails after chDB formatted part of its result (a timeout, a memory limit, a
// throwIf on a later block) leaves those bytes in the connection's result buffer, and chDB 3.4
// hands them out with the next result of that connection, whoever asked for it
// (core/store/clickhouse/embedded-connection.ts). Real chDB, nothing mocked: every good query
// here must read back exactly its own rows.

const TABLE = 'agent_eval.failed_output_rows';
const PASSWORD = 'failed-output';

/** Queries that fail only after some blocks were formatted, as the product meets them. */
const FAILING = {
  // The API's reads run with max_execution_time; sleepEachRow makes the timeout land mid-result.
  timeout: {
    query:
      "SELECT toUInt32(number) AS n, sleepEachRow(0.01) AS z FROM numbers(1000) SETTINGS max_block_size = 5, max_threads = 1, max_execution_time = 0.2, timeout_overflow_mode = 'throw'",
    type: 'TIMEOUT_EXCEEDED',
  },
  throwIf: {
    query: "SELECT toUInt32(number) AS n, throwIf(number = 5000, 'fails after output') AS z FROM numbers(10000) SETTINGS max_block_size = 100, max_threads = 1",
    type: 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO',
  },
  resultRows: {
    query: "SELECT toUInt32(number) AS n FROM numbers(10000) SETTINGS max_block_size = 100, max_result_rows = 500, result_overflow_mode = 'throw'",
    type: 'TOO_MANY_ROWS_OR_BYTES',
  },
  memory: {
    query:
      'SELECT toUInt32(number) AS n, groupArray(number) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a FROM numbers(30000) SETTINGS max_block_size = 100, max_threads = 1, max_memory_usage = 8000000',
    type: 'MEMORY_LIMIT_EXCEEDED',
  },
} as const;

let dataDir: string;
let ch: ClickHouse;

async function text(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function rows<T>(client: ClickHouseClient, query: string, query_params?: Record<string, unknown>): Promise<T[]> {
  return (await client.query({ query, query_params, format: 'JSONEachRow' })).json<T>();
}

/** A query whose answer is known and different for every `i`: i, then 0..(i % 7); every other one with bound parameters, as the API's reads. */
function good(i: number): { query: string; query_params?: Record<string, unknown>; expected: Array<{ i: number; n: number }> } {
  const count = (i % 7) + 1;
  const expected = Array.from({ length: count }, (_, n) => ({ i, n }));
  if (i % 2) return { query: 'SELECT {i:UInt32} AS i, toUInt32(number) AS n FROM numbers({count:UInt32}) ORDER BY n', query_params: { i, count }, expected };
  return { query: `SELECT toUInt32(${i}) AS i, toUInt32(number) AS n FROM numbers(${count}) ORDER BY n`, expected };
}

beforeAll(async () => {
  dataDir = makeDataDir('agent-eval-failed-output-');
  ch = await connectClickHouse({ dataDir });
  await ch.client.command({ query: `CREATE TABLE IF NOT EXISTS ${TABLE} (id UInt32) ENGINE = MergeTree ORDER BY id` });
});

afterAll(async () => {
  await ch?.close();
  if (dataDir) removeDir(dataDir);
});

describe('a query that fails after writing part of its result', () => {
  for (const [name, failing] of Object.entries(FAILING)) {
    it(`(${name}) fails for its caller, and the next query reads exactly its own rows`, async () => {
      const err = await failure(ch.client.query({ query: failing.query, format: 'JSONEachRow' }));
      expect((err as ClickHouseError).type).toBe(failing.type);
      expect(await rows(ch.client, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      // And through exec, whose raw bytes are what the gateway answers with.
      await failure(ch.client.query({ query: failing.query, format: 'JSONEachRow' }));
      const exec = await ch.client.exec({ query: 'SELECT 2 AS two FORMAT JSONEachRow' });
      expect(await text(exec.stream)).toBe('{"two":2}\n');
    });
  }

  it('with max_execution_time sent as the API sends it (clickhouse_settings)', async () => {
    const slow = 'SELECT toUInt32(number) AS n, sleepEachRow(0.01) AS z FROM numbers(1000) SETTINGS max_block_size = 5, max_threads = 1';
    try {
      const err = await failure(
        ch.client.query({ query: slow, format: 'JSONEachRow', clickhouse_settings: { max_execution_time: 0.2, timeout_overflow_mode: 'throw' } }),
      );
      expect((err as ClickHouseError).type).toBe('TIMEOUT_EXCEEDED');
      expect(await rows(ch.client, 'SELECT 5 AS five')).toEqual([{ five: 5 }]);
    } finally {
      // chDB applies clickhouse_settings with SET on the connection: they outlast the query.
      await ch.client.command({ query: 'SELECT 1', clickhouse_settings: { max_execution_time: 0 } });
    }
  });

  it('in every output format', async () => {
    for (const format of ['JSONEachRow', 'CSV', 'TabSeparated', 'JSON', 'JSONCompactEachRow'] as const) {
      await failure(ch.client.query({ query: FAILING.throwIf.query, format }));
      const answer = await ch.client.query({ query: 'SELECT 3 AS three', format: 'CSV' });
      expect(await answer.text()).toBe('3\n');
    }
  });

  it('an insert right after it stores exactly its rows, and the next read is still exact', async () => {
    await failure(ch.client.query({ query: FAILING.throwIf.query, format: 'JSONEachRow' }));
    await ch.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":1}\n{"id":2}\n'));
    expect(await rows(ch.client, `SELECT id FROM ${TABLE} WHERE id <= 2 ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('aborted by its caller while it runs: the caller sees the abort, the next query its own rows', async () => {
    const controller = new AbortController();
    const aborted = ch.client.query({ query: FAILING.timeout.query, format: 'JSONEachRow', abort_signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(aborted)).message).toMatch(/abort/i);
    expect(await rows(ch.client, 'SELECT 4 AS four')).toEqual([{ four: 4 }]);
  });

  it('aborted by its caller before its turn: it never runs', async () => {
    const busy = ch.client.command({ query: 'SELECT sleep(0.3)' });
    const controller = new AbortController();
    const insert = ch.client.command({ query: `INSERT INTO ${TABLE} VALUES (77)`, abort_signal: controller.signal });
    controller.abort();
    expect((await failure(insert)).message).toMatch(/abort/i);
    await busy;
    expect(await rows(ch.client, `SELECT count() AS c FROM ${TABLE} WHERE id = 77`)).toEqual([{ c: 0 }]);
  });
});

describe('failing queries racing good ones on the one connection', () => {
  it('every good query reads exactly its own rows, every failing one fails', async () => {
    const failing = Object.values(FAILING);
    const calls: Array<Promise<void>> = [];
    for (let i = 0; i < 40; i++) {
      if (i % 5 === 2) {
        const { query, type } = failing[((i / 5) % failing.length) | 0];
        calls.push(failure(ch.client.query({ query, format: 'JSONEachRow' })).then((err) => expect((err as ClickHouseError).type).toBe(type)));
      } else {
        const { query, query_params, expected } = good(i);
        calls.push(rows(ch.client, query, query_params).then((got) => expect(got).toEqual(expected)));
      }
      if (i % 10 === 0) calls.push(ch.insertRows(TABLE, JSON_ROWS, Buffer.from(`{"id":${1000 + i}}\n`)));
    }
    await Promise.all(calls);
    expect(await rows(ch.client, `SELECT count() AS c FROM ${TABLE} WHERE id >= 1000`)).toEqual([{ c: 4 }]);
  });

  it('through the ClickHouse gateway: a remote failure never reaches another request', async () => {
    let gateway: RunningGateway | undefined;
    let remote: ClickHouseClient | undefined;
    try {
      gateway = await startClickHouseGateway({ connection: ch.chdb!, host: '127.0.0.1', port: 0, password: PASSWORD });
      const url = new URL(gateway.url);
      url.username = 'default';
      url.password = PASSWORD;
      remote = createClient({ url: url.toString(), log: { level: ClickHouseLogLevel.OFF } });
      const client = remote;
      const calls: Array<Promise<void>> = [];
      for (let i = 0; i < 20; i++) {
        // Failures come from the remote side, good queries from both sides.
        if (i % 4 === 1) calls.push(failure(client.query({ query: FAILING.throwIf.query, format: 'JSONEachRow' })).then(() => undefined));
        else {
          const { query, query_params, expected } = good(i);
          calls.push(rows(i % 3 ? client : ch.client, query, query_params).then((got) => expect(got).toEqual(expected)));
        }
      }
      await Promise.all(calls);
    } finally {
      await remote?.close();
      await gateway?.close();
    }
  });
});
