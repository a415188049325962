import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { removeDir } from '../helpers/processes.js';
import { JSON_ROWS } from '../../core/store/clickhouse/rows.js';

// In-process, the write path inserts through chDB connections of its own (insert-lanes.ts): chDB
// runs one statement at a time per connection, so on the queries' connection an insert waited
// for whatever read was running. Real chDB, nothing mocked.

const TABLE = 'agent_eval.lane_rows';
/** A read that holds its connection for about 3 s (sleepEachRow, one row per block). */
const SLOW_READ = 'SELECT sum(sleepEachRow(0.3)) AS s FROM numbers(10) SETTINGS max_block_size = 1, max_threads = 1';

let dataDir: string;
let ch: ClickHouse;

beforeAll(async () => {
  dataDir = makeDataDir('agent-eval-insert-lanes-');
  ch = await connectClickHouse({ dataDir });
  await ch.client.command({ query: `CREATE TABLE ${TABLE} (id UInt32, body String) ENGINE = MergeTree ORDER BY id` });
});

afterAll(async () => {
  await ch?.close();
  removeDir(dataDir);
});

const count = async () => {
  const rs = await ch.client.query({ query: `SELECT count() AS n FROM ${TABLE}`, format: 'JSONEachRow' });
  return Number((await rs.json<{ n: string }>())[0].n);
};

describe('inserts of the in-process write path', () => {
  it('do not wait for a read that is running, and are visible to reads once they return', async () => {
    const readStarted = performance.now();
    const read = ch.client.query({ query: SLOW_READ, format: 'JSONEachRow' }).then((rs) => rs.json());
    await new Promise((r) => setTimeout(r, 200));
    const insertStarted = performance.now();
    await Promise.all([
      ch.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":1,"body":"a"}\n{"id":2,"body":"b"}\n')),
      ch.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":3,"body":"c"}\n')),
    ]);
    const insertMs = performance.now() - insertStarted;
    await read;
    const readMs = performance.now() - readStarted;
    // The read takes ~3 s; the inserts alone take milliseconds. Waiting behind the read, they would end with it.
    expect(readMs).toBeGreaterThan(2500);
    expect(insertMs).toBeLessThan(readMs / 2);
    expect(await count()).toBe(3);
  });

  it('fail alone when their data is bad, and the next inserts go through', async () => {
    await expect(ch.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":"not a number","body":"x"}\n'))).rejects.toThrow();
    await Promise.all([1, 2, 3, 4].map((n) => ch.insertRows(TABLE, JSON_ROWS, Buffer.from(`{"id":${100 + n},"body":"ok"}\n`))));
    expect(await count()).toBe(7);
  });

  it('take inserts larger than the bound of parallel inserts (1 MiB) mixed with small ones, all at once: every row lands once', async () => {
    const big = (n: number) => Buffer.from(Array.from({ length: 600 }, (_, i) => `{"id":${1000 + n * 1000 + i},"body":"${'y'.repeat(4000)}"}`).join('\n'));
    const small = (n: number) => Buffer.from(`{"id":${500 + n},"body":"s"}`);
    expect(big(0).length).toBeGreaterThan(1024 * 1024);
    await Promise.all([
      ch.insertRows(TABLE, JSON_ROWS, big(1)),
      ch.insertRows(TABLE, JSON_ROWS, small(1)),
      ch.insertRows(TABLE, JSON_ROWS, big(2)),
      ch.insertRows(TABLE, JSON_ROWS, small(2)),
      ch.insertRows(TABLE, JSON_ROWS, small(3)),
      ch.insertRows(TABLE, JSON_ROWS, big(3)),
    ]);
    expect(await count()).toBe(7 + 3 * 600 + 3);
  });

  it('close after the inserts in flight finish, and keep every one of them', async () => {
    const inserts = Array.from({ length: 6 }, (_, n) => ch.insertRows(TABLE, JSON_ROWS, Buffer.from(`{"id":${200 + n},"body":"${'x'.repeat(1000)}"}\n`)));
    await ch.close();
    await Promise.all(inserts);
    ch = await connectClickHouse({ dataDir });
    expect(await count()).toBe(7 + 3 * 600 + 3 + 6);
  });
});
