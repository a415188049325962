import http from 'node:http';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { failureKind, isInfrastructureFailure, writeFailure } from '../../core/errors.js';
import { connectClickHouse, httpClickHouse, type ClickHouse } from '../../core/store/clickhouse/client.js';
import { startClickHouseGateway, type RunningGateway } from '../../core/store/clickhouse/gateway.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { openStores, type Stores } from '../../runtime/stores.js';
import { makeDataDir } from '../helpers/data-dir.js';
import { removeDir } from '../helpers/processes.js';
import { JSON_ROWS } from '../../core/store/clickhouse/rows.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { createBatchWriter } from '../../core/store/clickhouse/batch-writer.js';
import type { SpanRecord } from '../../core/model/span.js';
import { failure } from '../helpers/eventually.js';
import { spanRecord } from '../helpers/span-record.js';

// The ClickHouse gateway (core/store/clickhouse/gateway.ts): chDB in this process, started with
// the gateway by the runtime's openStores, and a second @clickhouse/client reaching it over HTTP
// exactly as it reaches a ClickHouse server (connectClickHouse({url})). Nothing is mocked: the
// remote answers are compared with what the in-process client gets from the same chDB.

// Characters the URL's userinfo must carry percent-encoded; the client decodes them.
const PASSWORD = 'gateway s3cret:/@%';
const TABLE = 'agent_eval.gateway_rows';

let dataDir: string;
let stores: Stores;
let local: ClickHouseClient;
/** Another in-process connection to the same chDB: its insertRows is the in-process raw insert. */
let embedded: ClickHouse;
let remote: ClickHouse;

function urlWith(base: string, password: string): string {
  const url = new URL(base);
  url.username = 'default';
  url.password = encodeURIComponent(password);
  return url.toString();
}

/** A client of the gateway; the failures it logs are the ones these tests cause. */
function gatewayClient(url: string, password: string, options: ClickHouseClientConfigOptions = {}): ClickHouseClient {
  return createClient({ url: urlWith(url, password), log: { level: ClickHouseLogLevel.OFF }, ...options });
}

async function rows<T>(client: ClickHouseClient, query: string, query_params?: Record<string, unknown>): Promise<T[]> {
  return (await client.query({ query, query_params, format: 'JSONEachRow' })).json<T>();
}

/** A raw HTTP request to the gateway (for what @clickhouse/client never sends). */
async function post(
  base: string,
  search: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: string; text: string }> {
  const auth = `Basic ${Buffer.from(`default:${PASSWORD}`).toString('base64')}`;
  const res = await fetch(`${base}/${search}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers: { authorization: auth, ...headers },
  });
  return { status: res.status, code: res.headers.get('x-clickhouse-exception-code') ?? undefined, text: await res.text() };
}

beforeAll(async () => {
  dataDir = makeDataDir('agent-eval-gateway-');
  const config = loadConfig({
    AGENT_EVAL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CLICKHOUSE_GATEWAY_PORT: '0',
    CLICKHOUSE_GATEWAY_PASSWORD: PASSWORD,
  });
  stores = await openStores(config, createLogger('silent'), { gateway: true });
  local = stores.clickhouse;
  embedded = await connectClickHouse({ dataDir });
  remote = await connectClickHouse({ url: urlWith(stores.clickhouseGatewayUrl!, PASSWORD), dataDir });
  await local.command({
    query: `CREATE TABLE IF NOT EXISTS ${TABLE} (id UInt32, name String, at DateTime64(3, 'UTC'), tags Array(String)) ENGINE = MergeTree ORDER BY id`,
  });
});

afterAll(async () => {
  await remote?.close();
  await embedded?.close();
  await stores?.close();
  if (dataDir) removeDir(dataDir);
});

describe('the ClickHouse gateway: embedded chDB over ClickHouse HTTP', () => {
  it('listens on loopback and answers ping', async () => {
    expect(stores.clickhouseGatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await remote.client.ping()).toEqual({ success: true });
    const res = await fetch(`${stores.clickhouseGatewayUrl}/ping`);
    expect([res.status, await res.text()]).toEqual([200, 'Ok.\n']);
  });

  it('binds query parameters of every kind to the same values as in-process, quotes and backslashes included', async () => {
    const query = `SELECT {s:String} AS s, {t:DateTime64(3, 'UTC')} AS t, {ts:DateTime64(3, 'UTC')} AS ts, {a:Array(String)} AS a,
      {n:UInt32} AS n, {m:Map(String, String)} AS m, {z:Nullable(String)} AS z, {e:String} AS e`;
    const params = {
      s: "it's a \\ back\\slash, a\ttab and a\nnewline",
      t: new Date('2024-05-06T07:08:09.123Z'),
      ts: '2024-05-06 07:08:09.456',
      a: ["o'brien", 'back\\slash', "quote'and\\back", 'tab\tx', ''],
      n: 42,
      m: { "k'ey": 'v\\al' },
      z: null,
      e: '',
    };
    const got = await rows<Record<string, unknown>>(remote.client, query, params);
    expect(got).toEqual([
      {
        s: params.s,
        t: '2024-05-06 07:08:09.123',
        ts: '2024-05-06 07:08:09.456',
        a: params.a,
        n: 42,
        m: params.m,
        z: null,
        e: '',
      },
    ]);
    // In-process, chDB binds a Date to whole seconds ('YYYY-MM-DD HH:MM:SS'); over HTTP the client
    // sends epoch milliseconds, as to a ClickHouse server. Everything else binds the same.
    const inProcess = await rows<Record<string, unknown>>(local, query, params);
    expect({ ...got[0], t: undefined }).toEqual({ ...inProcess[0], t: undefined });
  });

  it('takes query parameters far beyond 16 KB of URL (ClickHouse allows 1 MiB)', async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `trace-${i}-${'x'.repeat(32)}`);
    expect(await rows(remote.client, 'SELECT length({ids:Array(String)}) AS n, {ids:Array(String)}[5000] AS last', { ids })).toEqual([
      { n: 5000, last: ids[4999] },
    ]);
  });

  it('runs commands, and inserts JSONEachRow rows that read back the same on both sides', async () => {
    await remote.client.command({ query: 'CREATE TABLE IF NOT EXISTS agent_eval.gateway_ddl (k String) ENGINE = MergeTree ORDER BY k' });
    expect(await rows(local, `SELECT name FROM system.tables WHERE database = 'agent_eval' AND name = 'gateway_ddl'`)).toEqual([{ name: 'gateway_ddl' }]);

    // The service's write path: encoded rows as bytes (client.ts insertRows).
    await remote.insertRows(
      TABLE,
      JSON_ROWS,
      Buffer.from(
        `{"id":1,"name":"one","at":"2024-01-02T03:04:05.678Z","tags":["a","b'c"]}\n{"id":2,"name":"two \\"quoted\\"","at":1704164645678,"tags":[]}\n`,
      ),
    );
    // And the client's own insert of objects.
    await remote.client.insert({ table: TABLE, values: [{ id: 3, name: 'three', at: '2024-01-02 03:04:05.000', tags: ['x'] }], format: 'JSONEachRow' });
    const query = `SELECT id, name, at, tags FROM ${TABLE} WHERE id <= 3 ORDER BY id`;
    const back = await rows(remote.client, query);
    expect(back).toEqual([
      { id: 1, name: 'one', at: '2024-01-02 03:04:05.678', tags: ['a', "b'c"] },
      { id: 2, name: 'two "quoted"', at: '2024-01-02 03:04:05.678', tags: [] },
      { id: 3, name: 'three', at: '2024-01-02 03:04:05.000', tags: ['x'] },
    ]);
    expect(back).toEqual(await rows(local, query));
  });

  it("serves the service's own analytics store as in-process: a worker's scores, read on both sides", async () => {
    const overGateway = createAnalyticsStore(remote);
    const score = await overGateway.insertScore('proj-gateway', {
      trace_id: 'trace-gw',
      name: "judge's verdict",
      value: 0.75,
      score_type: 'numeric',
      source: 'eval',
      reason: 'quotes \' " and a back\\slash\non two lines',
      evidence: ['tab\there', ''],
    });
    const expected = [expect.objectContaining({ id: score.id, name: score.name, value: 0.75, reason: score.reason, evidence: score.evidence })];
    expect(await overGateway.listScores('proj-gateway', 'trace-gw')).toEqual(expected);
    expect(await stores.analytics.listScores('proj-gateway', 'trace-gw')).toEqual(await overGateway.listScores('proj-gateway', 'trace-gw'));
    expect(await overGateway.ping()).toBe(true);
  });

  it("takes the write path's span rows (TabSeparated) with NUL bytes, blank lines and quotes in their values, as in-process", async () => {
    const overGateway = createAnalyticsStore(remote);
    const start = Date.now() - 60_000;
    const text = 'nul\u0000byte, "quoted"\n\nsecond paragraph \\ end\r\n\r\n';
    const span = spanRecord({
      project_id: 'proj-gateway',
      trace_id: 'trace-csv',
      span_id: 'span-csv',
      name: text,
      kind: 'client',
      start_time: start,
      end_time: start + 5,
      duration_ms: 5,
      model: 'gpt-4o',
      input: text,
      output: `${text}!`,
      input_tokens: 1,
      output_tokens: 2,
      attributes: { "it's": text },
      resource_attributes: { 'service.name': 'gw' },
    });
    await overGateway.writeRows(encodeRowBatch([span]));
    const back = await overGateway.getSpan('proj-gateway', 'span-csv');
    expect(back).toMatchObject({ name: text, input: text, output: `${text}!`, attributes: { "it's": text } });
    expect(await stores.analytics.getSpan('proj-gateway', 'span-csv')).toEqual(back);
    expect((await overGateway.getTrace('proj-gateway', 'trace-csv'))?.span_count).toBe(1);
  });

  it('passes settings through, and answers the default format without a FORMAT clause', async () => {
    const rs = await remote.client.query({
      query: "SELECT toString(getSetting('max_execution_time')) AS v",
      clickhouse_settings: { max_execution_time: 17 },
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([{ v: '17' }]);
    const exec = await remote.client.exec({ query: "SELECT 1, 'a'" });
    expect(exec.response_headers['x-clickhouse-format']).toBe('TabSeparated');
    let text = '';
    for await (const chunk of exec.stream) text += String(chunk);
    expect(text).toBe('1\ta\n');
  });

  it('maps errors to the same ClickHouseError code and type, and the service classifies them the same', async () => {
    const cases: Array<{ name: string; run: (ch: ClickHouse) => Promise<unknown>; code: string; type: string; kind: 'permanent' | 'transient' }> = [
      {
        name: 'unknown table',
        run: (ch) => ch.client.query({ query: 'SELECT * FROM agent_eval.no_such_table' }),
        code: '60',
        type: 'UNKNOWN_TABLE',
        kind: 'transient',
      },
      { name: 'syntax', run: (ch) => ch.client.query({ query: 'SELEKT 1' }), code: '62', type: 'SYNTAX_ERROR', kind: 'transient' },
      {
        name: 'unknown setting',
        run: (ch) => ch.client.query({ query: 'SELECT 1', clickhouse_settings: { no_such_setting_at_all: 1 } }),
        code: '115',
        type: 'UNKNOWN_SETTING',
        kind: 'transient',
      },
      {
        name: 'a data error on insert',
        run: (ch) =>
          ch.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":10,"name":"ok","at":0,"tags":[]}\n{"id":"not a number","name":"x","at":0,"tags":[]}\n')),
        code: '27',
        type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
        kind: 'permanent',
      },
      {
        name: 'an overload (memory limit)',
        // JSONEachRow: chDB (3.4.0) keeps the output a query wrote before failing and hands it to the
        // connection's next query, in-process as through the gateway; this one writes none.
        run: (ch) => ch.client.query({ query: 'SELECT groupArray(number) FROM numbers(10000000) SETTINGS max_memory_usage = 1000000', format: 'JSONEachRow' }),
        code: '241',
        type: 'MEMORY_LIMIT_EXCEEDED',
        kind: 'transient',
      },
    ];
    for (const c of cases) {
      const [mine, theirs] = [await failure(c.run(embedded)), await failure(c.run(remote))];
      expect(theirs, c.name).toBeInstanceOf(ClickHouseError);
      expect({ code: (theirs as ClickHouseError).code, type: (theirs as ClickHouseError).type }, c.name).toEqual({ code: c.code, type: c.type });
      expect(failureKind(theirs), c.name).toBe(c.kind);
      expect(failureKind(mine), c.name).toBe(c.kind);
      expect(isInfrastructureFailure(theirs), c.name).toBe(isInfrastructureFailure(mine));
      expect(writeFailure('analytics', theirs).status, c.name).toBe(writeFailure('analytics', mine).status);
    }
    // Nothing of the refused insert was written (one INSERT, as in-process).
    expect(await rows(remote.client, `SELECT count() AS n FROM ${TABLE} WHERE id = 10`)).toEqual([{ n: 0 }]);
  });

  it('refuses a wrong password, or none, with AUTHENTICATION_FAILED', async () => {
    const wrong = gatewayClient(stores.clickhouseGatewayUrl!, 'not the password');
    try {
      const err = await failure(wrong.query({ query: 'SELECT 1' }));
      expect(err).toBeInstanceOf(ClickHouseError);
      expect({ code: (err as ClickHouseError).code, type: (err as ClickHouseError).type }).toEqual({ code: '516', type: 'AUTHENTICATION_FAILED' });
      expect(failureKind(err)).toBe('transient');
    } finally {
      await wrong.close();
    }
    const none = await fetch(`${stores.clickhouseGatewayUrl}/`, { method: 'POST', body: 'SELECT 1' });
    expect([none.status, none.headers.get('x-clickhouse-exception-code')]).toEqual([401, '516']);
    expect(await none.text()).toMatch(/^Code: 516\. DB::Exception: .*\(AUTHENTICATION_FAILED\)\n$/);
    // ClickHouse's other ways of sending credentials.
    const headers = await fetch(`${stores.clickhouseGatewayUrl}/?query=SELECT%2042`, {
      headers: { 'x-clickhouse-user': 'default', 'x-clickhouse-key': PASSWORD },
    });
    expect([headers.status, await headers.text()]).toEqual([200, '42\n']);
  });

  it('runs 50 concurrent queries and inserts, each answered correctly', async () => {
    const base = 1000;
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        if (i % 2 === 0) {
          await remote.insertRows(TABLE, JSON_ROWS, Buffer.from(`{"id":${base + i},"name":"c${i}","at":${i},"tags":["t${i}"]}\n`));
        } else {
          const got = await rows<{ i: number; s: string; a: string[] }>(remote.client, 'SELECT {i:UInt32} AS i, {s:String} AS s, {a:Array(String)} AS a', {
            i,
            s: `q'${i}`,
            a: [`x${i}`],
          });
          expect(got).toEqual([{ i, s: `q'${i}`, a: [`x${i}`] }]);
        }
      }),
    );
    const ids = await rows<{ id: number }>(remote.client, `SELECT id FROM ${TABLE} WHERE id >= ${base} ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, k) => base + 2 * k));
  });

  it('answers a huge or garbage body with an error, and keeps serving', async () => {
    const base = stores.clickhouseGatewayUrl!;
    const huge = await post(base, '', randomBytes(17 * 1024 * 1024));
    expect([huge.status, huge.code]).toEqual([413, '229']);
    expect(huge.text).toMatch(/\(QUERY_IS_TOO_LARGE\)\n$/);

    // chDB reads SQL up to a NUL byte: random bytes must not run as their first few characters.
    const binary = await post(base, '', Buffer.concat([Buffer.from('SELECT 1;'), Buffer.from([0]), randomBytes(4096)]));
    expect([binary.status, binary.code]).toEqual([400, '62']);
    const garbage = await post(base, '', `)(${randomBytes(4096).toString('base64')}`);
    expect([garbage.status, garbage.code]).toEqual([400, '62']);
    expect(garbage.text).toMatch(/^Code: 62\. DB::Exception: .*\(SYNTAX_ERROR\)\n$/s);

    const badGzip = await post(base, '', randomBytes(1024), { 'content-encoding': 'gzip' });
    expect([badGzip.status, badGzip.code]).toEqual([500, '271']);

    const lines = Array.from({ length: 2000 }, () => randomBytes(600).toString('base64')).join('\n');
    const insert = await post(base, `?query=${encodeURIComponent(`INSERT INTO ${TABLE} FORMAT JSONEachRow`)}`, lines);
    expect(insert.status).toBe(400);
    expect(insert.text).toMatch(/\(CANNOT_PARSE_[A-Z_]+\)\n$/);

    expect(await rows(remote.client, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('takes gzip request bodies and answers gzip when asked (enable_http_compression)', async () => {
    const gz = gatewayClient(stores.clickhouseGatewayUrl!, PASSWORD, { compression: { request: true, response: true } });
    try {
      await gz.insert({ table: TABLE, values: [{ id: 500, name: 'gzipped', at: 0, tags: [] }], format: 'JSONEachRow' });
      const rs = await gz.query({ query: `SELECT name FROM ${TABLE} WHERE id = 500`, format: 'JSONEachRow' });
      expect(rs.response_headers['content-encoding']).toBe('gzip');
      expect(await rs.json()).toEqual([{ name: 'gzipped' }]);
    } finally {
      await gz.close();
    }
  });

  it('a request the client aborts leaves chDB serving the next ones', async () => {
    const controller = new AbortController();
    const slow = remote.client.query({ query: 'SELECT sleepEachRow(0.1) FROM numbers(20) SETTINGS max_block_size = 1', abort_signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await failure(slow)).message).toMatch(/abort/i);

    // An insert cut off mid-body.
    const { hostname, port } = new URL(stores.clickhouseGatewayUrl!);
    await new Promise<void>((resolve) => {
      const req = http.request({
        hostname,
        port,
        method: 'POST',
        path: `/?query=${encodeURIComponent(`INSERT INTO ${TABLE} FORMAT JSONEachRow`)}`,
        auth: `default:${PASSWORD}`,
      });
      req.on('error', () => resolve());
      req.write('{"id":600,"name":"half","at":0,"tags":[]}\n{"id":601,"na');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });

    const started = Date.now();
    expect(await rows(remote.client, 'SELECT 2 AS two')).toEqual([{ two: 2 }]);
    expect(Date.now() - started).toBeLessThan(15_000);
    await remote.insertRows(TABLE, JSON_ROWS, Buffer.from('{"id":602,"name":"after","at":0,"tags":[]}\n'));
    expect(await rows(remote.client, `SELECT name FROM ${TABLE} WHERE id = 602`)).toEqual([{ name: 'after' }]);
  });
});

describe('the gateway with small limits (startClickHouseGateway on the same connection)', () => {
  let gateway: RunningGateway;
  let client: ClickHouseClient;

  beforeAll(async () => {
    gateway = await startClickHouseGateway({
      connection: embedded.chdb!,
      host: '127.0.0.1',
      port: 0,
      password: PASSWORD,
      maxQueryBytes: 1024,
      maxInsertChunkBytes: 64 * 1024,
      maxConcurrent: 1,
      maxQueued: 1,
    });
    client = gatewayClient(gateway.url, PASSWORD);
  });

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  const row = (id: number, name = 'x'.repeat(100)) => `{"id":${id},"name":"${name}","at":0,"tags":[]}\n`;

  it('refuses SQL over the limit with QUERY_IS_TOO_LARGE', async () => {
    const err = await failure(client.query({ query: `SELECT 1 -- ${'x'.repeat(2000)}` }));
    expect({ code: (err as ClickHouseError).code, type: (err as ClickHouseError).type }).toEqual({ code: '229', type: 'QUERY_IS_TOO_LARGE' });
  });

  it('streams an insert larger than a chunk in several, and reports a bad row of a later chunk as a data error', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => row(10_000 + i)).join(''); // ~250 KB: four chunks
    await httpClickHouse(client).insertRows(TABLE, JSON_ROWS, Buffer.from(many));
    expect(await rows(client, `SELECT count() AS n FROM ${TABLE} WHERE id >= 10000 AND id < 12000`)).toEqual([{ n: 2000 }]);

    const bad = Array.from({ length: 1500 }, (_, i) => row(20_000 + i)).join('') + '{"id":"bad"}\n';
    const err = await failure(httpClickHouse(client).insertRows(TABLE, JSON_ROWS, Buffer.from(bad)));
    expect(err).toBeInstanceOf(ClickHouseError);
    expect(failureKind(err)).toBe('permanent');

    const line = `{"id":1,"name":"${'y'.repeat(100_000)}"`; // no row boundary within a chunk
    const long = await failure(httpClickHouse(client).insertRows(TABLE, JSON_ROWS, Buffer.from(line)));
    expect((long as ClickHouseError).type).toBe('TOO_LARGE_STRING_SIZE');
    expect(await rows(client, 'SELECT 3 AS three')).toEqual([{ three: 3 }]);
  });

  it('takes a write batch over its chunk limit, streamed in chunks (span rows are TabSeparated: a row ends at a raw newline), every span once', async () => {
    const start = Date.now() - 60_000;
    const spans: SpanRecord[] = Array.from({ length: 200 }, (_, i) =>
      spanRecord({
        project_id: 'proj-gateway',
        trace_id: `trace-parts-${i % 4}`,
        span_id: `span-parts-${i}`,
        kind: 'client',
        start_time: start + i,
        end_time: start + i + 5,
        duration_ms: 5,
        model: 'gpt-4o',
        input: `ünïcödé\n\n${'ü'.repeat(500)}\n\n${i}`,
        output: 'ok\n\nbye',
        input_tokens: 1,
        output_tokens: 1,
        resource_attributes: { 'service.name': 'gw' },
      }),
    );
    const batch = encodeRowBatch(spans);
    expect(Buffer.byteLength(batch.spans.join('\n'))).toBeGreaterThan(3 * 64 * 1024);
    await createBatchWriter(httpClickHouse(client), { maxInsertBytes: 1 << 30 }).writeRows(batch);
    // And again in parts the batch writer cuts: the same rows, so nothing counts twice.
    await createBatchWriter(httpClickHouse(client), { maxInsertBytes: 48 * 1024 }).writeRows(batch);
    const stored = await rows<{ n: string; ids: string }>(
      client,
      "SELECT count() AS n, uniqExact(span_id) AS ids FROM agent_eval.spans WHERE span_id LIKE 'span-parts-%'",
    );
    expect(Number(stored[0].ids)).toBe(200);
    expect((await stores.analytics.getTrace('proj-gateway', 'trace-parts-1'))?.span_count).toBe(50);
    expect((await stores.analytics.getSpan('proj-gateway', 'span-parts-7'))?.input).toBe(spans[7].input);
  });

  it('refuses insert data with an empty line, whole or streamed, before storing any of it', async () => {
    const before = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${TABLE}`);
    const body = `${JSON.stringify({ id: 90_001, name: 'a' })}\n\n${JSON.stringify({ id: 90_002, name: 'b' })}\n`;
    const streamed = await failure(httpClickHouse(client).insertRows(TABLE, JSON_ROWS, Buffer.from(body)));
    expect(streamed).toBeInstanceOf(ClickHouseError);
    expect(streamed.message).toMatch(/empty line/);
    expect(failureKind(streamed)).toBe('permanent');
    const csv = await failure(
      client
        .exec({ query: `INSERT INTO ${TABLE} FORMAT CSV`, values: Readable.from([Buffer.from('90003,"x\n\ny",2026-01-01 00:00:00.000,"[]"\n')]) })
        .then(async (r) => {
          r.stream.resume();
          await finished(r.stream);
        }),
    );
    expect(csv.message).toMatch(/empty line/);
    expect(await rows<{ n: string }>(client, `SELECT count() AS n FROM ${TABLE}`)).toEqual(before);
  });

  it('answers TOO_MANY_SIMULTANEOUS_QUERIES beyond its queue, and runs the rest', async () => {
    const slow = () => client.command({ query: 'SELECT sleepEachRow(0.05) FROM numbers(6) SETTINGS max_block_size = 1' });
    const results = await Promise.allSettled([slow(), slow(), slow()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason as ClickHouseError;
    expect({ code: refused.code, type: refused.type }).toEqual({ code: '202', type: 'TOO_MANY_SIMULTANEOUS_QUERIES' });
    expect(isInfrastructureFailure(refused)).toBe(true);
  });
});
