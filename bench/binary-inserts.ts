import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { SpanRecord } from '../core/model/span.js';
import { spanRowCodec } from '../core/store/clickhouse/row-codec.js';
import { WRITE_COLUMNS_SELECT, writeColumns, type ArrowColumn } from './arrow-columns.js';
import { appendSpanRow, appendSummaryRow, BinaryRows, WRITE_ROWS_STRUCTURE } from './row-binary.js';

interface NativeChdb {
  QueryAsyncConnection(connection: unknown, sql: string, format: string): Promise<unknown>;
  ArrowRegisterColumns(connection: unknown, name: string, columns: ArrowColumn[]): void;
  ArrowUnregister(connection: unknown, name: string): void;
}
interface ChdbSession {
  connection: unknown;
  close(): void;
}

/** The summary rows (JSON lines) of a write of these spans, as ingest builds them. */
const summaries = (spans: readonly SpanRecord[]): string[] => spanRowCodec.encodeBatch(spans).stats.flatMap((json) => json.split('\n'));

/** A write's rows as one RowBinary body of `write_rows` (row-binary.ts). */
export function rowBinaryBody(spans: readonly SpanRecord[]): Buffer {
  const out = new BinaryRows();
  for (const s of spans) appendSpanRow(out, s);
  for (const json of summaries(spans)) appendSummaryRow(out, json);
  return out.bytes();
}

/** A write's rows as Arrow columns of `write_rows` (arrow-columns.ts). */
export const arrowColumns = (spans: readonly SpanRecord[]): ArrowColumn[] => writeColumns(spans, summaries(spans));

export interface BinaryInserts {
  /** RowBinary through a tmpfs file: `INSERT INTO table SELECT * FROM file(..., RowBinary)`. */
  rowBinaryFile(table: string, body: Buffer): Promise<void>;
  /** Arrow columns registered with chDB, then `INSERT INTO table SELECT ... FROM arrowstream(...)`. */
  arrow(table: string, columns: ArrowColumn[]): Promise<void>;
  close(): void;
}

/**
 * Binary inserts into the chDB data dir `chdbDir` (the engine the service's connections share), on
 * a connection of their own, through chDB's native entry points: chdb-node's raw insert takes text
 * formats only, and inline insert data is cut at `\n\n` (row-binary.ts), so a binary body goes as a
 * file the engine reads, or as Arrow columns it reads from this process' memory.
 */
export function openBinaryInserts(chdbDir: string): BinaryInserts {
  const require = createRequire(import.meta.url);
  const native = (require(path.join(path.dirname(require.resolve('chdb')), 'dist', 'loader.js')) as { loadNative(): NativeChdb }).loadNative();
  const { Session } = require('chdb') as { Session: new (path: string) => ChdbSession };
  const session = new Session(chdbDir);
  const shm = fs.existsSync('/dev/shm') ? '/dev/shm' : chdbDir;
  const file = path.join(shm, `agent-eval-rowbinary-${process.pid}.bin`);
  const settings = 'SETTINGS parallel_view_processing = 1, log_queries = 0';
  let registered = 0;
  return {
    async rowBinaryFile(table, body) {
      fs.writeFileSync(file, body);
      const structure = WRITE_ROWS_STRUCTURE.replaceAll("'", "\\'");
      await native.QueryAsyncConnection(
        session.connection,
        `INSERT INTO ${table} SELECT * FROM file('${file}', 'RowBinary', '${structure}') ${settings}`,
        'TabSeparated',
      );
    },
    async arrow(table, columns) {
      const name = `write_${registered++}`;
      native.ArrowRegisterColumns(session.connection, name, columns);
      try {
        await native.QueryAsyncConnection(
          session.connection,
          `INSERT INTO ${table} SELECT ${WRITE_COLUMNS_SELECT} FROM arrowstream('${name}') ${settings}`,
          'TabSeparated',
        );
      } finally {
        native.ArrowUnregister(session.connection, name);
      }
    },
    close() {
      fs.rmSync(file, { force: true });
      session.close();
    },
  };
}
