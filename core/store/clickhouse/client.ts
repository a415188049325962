import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { TRACE_ID_BLOOM } from './trace-id-bloom.js';
import { serializedChdbConnection, type EmbeddedConnection } from './embedded-connection.js';
import { openInsertLanes } from './insert-lanes.js';
import type { RowFormat } from './rows.js';
import { createWriteGate, gatedInserts, type WriteGate } from './write-gate.js';

export type { ClickHouseClient, EmbeddedConnection };

/**
 * Every table lives in this database, named in the SQL itself: chDB's connection ignores the
 * client's `database` option, and one fixed name keeps the SQL identical on both forms.
 */
export const DATABASE = 'agent_eval';

/** The rows a query answers, one JSON object each (`params` bound to its {name:Type} placeholders). */
export async function selectRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T[]> {
  const rs = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return rs.json<T>();
}

export interface ClickHouseTarget {
  /** HTTP ClickHouse server; when absent, chDB runs in-process with data under `dataDir`. */
  url?: string;
  dataDir: string;
}

/** A connected ClickHouse: the client for queries, and the one way rows are inserted. */
export interface ClickHouse {
  client: ClickHouseClient;
  /**
   * Inserts encoded rows (rows.ts: RowFormat) as they are, without parsing them in JS: handed to
   * chDB's parser zero-copy in-process, streamed as the request body over HTTP.
   */
  insertRows(table: string, format: RowFormat, rows: Buffer): Promise<void>;
  /** The in-process chDB connection, when embedded: what the gateway (gateway.ts) serves to other processes. */
  chdb?: EmbeddedConnection;
  /** Holds embedded chDB's inserts while a backup clones the tables (write-gate.ts). */
  writeGate?: WriteGate;
  /**
   * Embedded: a chDB connection of its own for long reads (bulk exports), opened on first use, so
   * an export's statements never queue the dashboard's queries behind them (chDB runs one
   * statement at a time per connection, connections in parallel). Absent over HTTP, where the
   * server runs queries side by side.
   */
  longReads?: () => ClickHouseClient;
  close(): Promise<void>;
}

/** Every statement's settings; the trace id's bloom filter serves one-trace reads only (trace-id-bloom.ts). */
const SETTINGS = { date_time_input_format: 'best_effort', ignore_data_skipping_indices: TRACE_ID_BLOOM } as const;

/**
 * In-process, nobody reads chDB's system.query_log, and logging every query costs about a
 * millisecond of CPU each (measured: docs/benchmarks.md). A server keeps its own logging settings.
 */
const EMBEDDED_SETTINGS = { log_queries: 0 } as const;

/**
 * The write path's chDB connections in-process, besides the one of the queries (insert-lanes.ts):
 * one per table a batch writes (`spans`, `trace_stats_input`), so a small batch's two inserts run
 * side by side; past 1 MiB of rows in flight (~450 spans of 2 KB), inserts run one at a time.
 */
const EMBEDDED_INSERT_LANES = { lanes: 2, parallelMaxBytes: 1024 * 1024 } as const;

/** A server over HTTP: rows are the request body of `INSERT INTO t [(columns)] FORMAT f`. */
export function httpClickHouse(client: ClickHouseClient): ClickHouse {
  return {
    client,
    async insertRows(table, format, rows) {
      // Not client.insert: for JSON formats it takes a stream of row objects and JSON-encodes each
      // element, so encoded bytes would arrive as one `{"type":"Buffer",...}` row (stored as defaults).
      // exec sends the statement in the URL and the bytes as they are as the body.
      const columns = format.columns ? ` (${format.columns.join(', ')})` : '';
      const result = await client.exec({
        query: `INSERT INTO ${table}${columns} FORMAT ${format.format}`,
        values: Readable.from([rows], { objectMode: false }),
        clickhouse_settings: format.settings,
      });
      result.stream.resume();
      await finished(result.stream);
    },
    close: () => client.close(),
  };
}

/**
 * One `@clickhouse/client` for both forms: an HTTP server (`CLICKHOUSE_URL`) or chDB in-process.
 * The SQL is the same; only the connection differs (DESIGN: embedded by default, distributed when outgrown).
 */
export async function connectClickHouse(target: ClickHouseTarget): Promise<ClickHouse> {
  let ch: ClickHouse;
  if (target.url) {
    ch = httpClickHouse(createClient({ url: target.url, request_timeout: 60_000, clickhouse_settings: SETTINGS }));
  } else {
    const dir = path.join(target.dataDir, 'clickhouse');
    fs.mkdirSync(dir, { recursive: true });
    // Every user of chDB (reads, writes, the gateway) goes through this one wrapper: chDB hands a
    // failed query's partial output to the next query, which the wrapper prevents (embedded-connection.ts).
    // Inserts pass the write gate, so a backup can clone every table at one moment.
    const writeGate = createWriteGate();
    const connection = gatedInserts(serializedChdbConnection(createChdbConnection({ path: dir })), writeGate);
    // chdb types its Connection against @clickhouse/client-common, which @clickhouse/client now
    // bundles under another path; the shapes are identical, the declarations are not.
    const client = createClient({
      connection: connection as unknown as ClickHouseClientConfigOptions['connection'],
      clickhouse_settings: { ...SETTINGS, ...EMBEDDED_SETTINGS },
    });
    const lanes = openInsertLanes(dir, EMBEDDED_INSERT_LANES);
    let longReads: ClickHouseClient | undefined;
    ch = {
      client,
      chdb: connection,
      writeGate,
      longReads: () =>
        (longReads ??= createClient({
          connection: serializedChdbConnection(createChdbConnection({ path: dir })) as unknown as ClickHouseClientConfigOptions['connection'],
          clickhouse_settings: { ...SETTINGS, ...EMBEDDED_SETTINGS },
        })),
      // client.insert would serialize the body into the SQL text; rawInsert passes the bytes through.
      insertRows: (table, format, rows) => writeGate.run(() => lanes.insert(table, format, rows, EMBEDDED_SETTINGS)),
      close: async () => {
        await lanes.close();
        await longReads?.close();
        await client.close();
      },
    };
  }
  await ch.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${DATABASE}` });
  return ch;
}
