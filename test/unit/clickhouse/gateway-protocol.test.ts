import { describe, expect, it } from 'vitest';
import { bindParams, outputFormat, parseRequestUrl, passthroughInsert } from '../../../core/store/clickhouse/gateway-protocol.js';
import { errorReply } from '../../../core/store/clickhouse/gateway-errors.js';

// The ClickHouse gateway's reading of a request (test/integration/clickhouse-gateway.test.ts runs
// it against chDB). Query parameters arrive in ClickHouse's escaped text; chDB escapes strings
// itself, so each is unescaped into the string whose chDB escaping binds the same value.

describe('the gateway: query parameters as chDB binds them', () => {
  it('unescapes scalar text; a quote needs no escape outside quoted strings', () => {
    const sql = "SELECT {s:String}, {n:UInt32}, {z:Nullable(String)}, {d:DateTime64(3, 'UTC')}";
    expect(bindParams(sql, { s: "it\\'s a \\\\ and a\\ttab\\n", n: '42', z: '\\N', d: '1714979289.123' })).toEqual({
      s: "it's a \\ and a\ttab\n",
      n: '42',
      z: null,
      d: '1714979289.123',
    });
  });

  it('keeps quoted strings of arrays, maps and tuples quoted, with a quote escaped SQL-style', () => {
    const sql = 'SELECT {a:Array(String)}, {m:Map(String, String)}, {t:Tuple(String, UInt8)}, {l:LowCardinality(Nullable(String))}';
    expect(bindParams(sql, { a: "['o\\'brien','b\\\\s','']", m: "{'k\\'':'v'}", t: "('x\\'y',1)", l: "o\\'k" })).toEqual({
      a: "['o''brien','b\\s','']",
      m: "{'k''':'v'}",
      t: "('x''y',1)",
      l: "o'k",
    });
  });
});

describe('the gateway: what a request asks for', () => {
  it('separates the HTTP interface parameters, query parameters and settings', () => {
    const url = new URL(
      'http://gw/?query=SELECT%201&query_id=q1&database=x&default_format=JSON&param_p=v&max_threads=2&wait_end_of_query=1&enable_http_compression=1&session_id=s',
    );
    expect(parseRequestUrl(url)).toEqual({
      query: 'SELECT 1',
      queryId: 'q1',
      params: { p: 'v' },
      settings: { max_threads: '2' },
      defaultFormat: 'JSON',
      compressResponse: true,
      user: undefined,
      password: undefined,
    });
    expect(() => parseRequestUrl(new URL('http://gw/?compress=1'))).toThrow(/native compression/);
  });

  it('passes only plain INSERT ... FORMAT on as bytes: streamed when its format is line-delimited, whole when it is CSV', () => {
    expect(passthroughInsert('INSERT INTO agent_eval.spans FORMAT JSONEachRow')).toEqual({
      table: 'agent_eval.spans',
      columns: undefined,
      format: 'JSONEachRow',
      streamed: true,
    });
    expect(passthroughInsert('insert into t (a, b) format TabSeparated')).toEqual({ table: 't', columns: ['a', 'b'], format: 'TabSeparated', streamed: true });
    expect(passthroughInsert('INSERT INTO agent_eval.spans (project_id, trace_id) FORMAT CSV')).toEqual({
      table: 'agent_eval.spans',
      columns: ['project_id', 'trace_id'],
      format: 'CSV',
      streamed: false,
    });
    expect(passthroughInsert('INSERT INTO t FORMAT CSVWithNames')).toBeUndefined();
    expect(passthroughInsert('INSERT INTO t (* EXCEPT (a)) FORMAT JSONEachRow')).toBeUndefined();
    expect(passthroughInsert('INSERT INTO t SETTINGS async_insert=1 FORMAT JSONEachRow')).toBeUndefined();
    expect(passthroughInsert('INSERT INTO t VALUES')).toBeUndefined();
    expect(outputFormat('SELECT 1 \nFORMAT JSONEachRow', 'TabSeparated')).toBe('JSONEachRow');
    expect(outputFormat('SELECT 1', 'TabSeparated')).toBe('TabSeparated');
  });
});

describe('the gateway: errors as ClickHouse answers them', () => {
  it("sends chDB's own text, found along the cause chain", () => {
    const native = new Error("Code: 60. DB::Exception: Unknown table expression identifier 'x'. (UNKNOWN_TABLE)");
    expect(errorReply(new Error('Unknown table', { cause: native }))).toEqual({ status: 404, code: 60, body: `${native.message}\n` });
  });

  it('gives errors raised in JS the code ClickHouse has for them', () => {
    expect(errorReply(Object.assign(new Error('Insert aborted'), { code: 'CHDB_ABORT' }))).toMatchObject({
      code: 394,
      body: 'Code: 394. DB::Exception: Insert aborted. (QUERY_WAS_CANCELLED)\n',
    });
    expect(errorReply(Object.assign(new Error('too long'), { reason: 'row-too-large' }))).toMatchObject({ status: 400, code: 131 });
    expect(errorReply(new Error('Invalid setting name: "a b"'))).toMatchObject({ status: 404, code: 115 });
    expect(errorReply(new Error('something\nbroke.'))).toEqual({
      status: 500,
      code: 1001,
      body: 'Code: 1001. DB::Exception: something broke. (STD_EXCEPTION)\n',
    });
  });
});
