import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { assertNoEmptyLine } from './inline-insert.js';
import type { RowFormat } from './rows.js';

/**
 * The in-process write path's own chDB connections ("lanes"). chDB runs one statement at a time
 * per connection (a mutex in chdb-core's client), while connections to the same data dir share
 * one engine and run in parallel (chdb-node 3.x). On the one connection of the queries, a batch's
 * two inserts (`spans`, `trace_stats_input`) ran one after the other and waited behind any read;
 * on lanes of their own they never wait for a read.
 *
 * Whether a batch's inserts run side by side depends on their size. A small insert's cost is
 * mostly fixed (parts, files, the view), so two at once nearly halve the time a client waits;
 * batches are small when few spans are in flight (one insert slot: a batch is what gathered while
 * the last one was written), and then that wait is what limits throughput. A large insert's cost
 * is per row, and two at once only compete for the CPU and shrink the next batches. So an insert
 * starts beside others only while the rows in flight, its own included, stay within
 * `parallelMaxBytes`; otherwise it joins the busiest lane, behind the inserts there. Measured
 * (docs/benchmarks.md, "Insert lanes"): JSON ingest's batches of a few hundred spans gain ~10%
 * spans/s; OTLP's batches of 500 spans and more (1.5 MB of rows) run one insert at a time, as
 * before; with a 2 MiB bound they ran side by side and lost ~15%.
 *
 * Raw inserts return no result, so the query connection's cleanup after a failure
 * (embedded-connection.ts) is not needed here.
 */
export interface InsertLanes {
  insert(table: string, format: RowFormat, rows: Buffer, settings: Record<string, string | number>): Promise<void>;
  /** Waits for the inserts in flight, then closes every lane. */
  close(): Promise<void>;
}

export interface InsertLaneOptions {
  lanes: number;
  /** Most bytes of rows in flight at once when more than one insert runs. */
  parallelMaxBytes: number;
}

interface Lane {
  connection: ChdbConnection;
  /** Inserts issued on this lane and not finished: chDB runs them one at a time, in order. */
  running: number;
}

export function openInsertLanes(dataPath: string, opts: InsertLaneOptions): InsertLanes {
  const lanes: Lane[] = [];
  try {
    for (let i = 0; i < opts.lanes; i++) lanes.push({ connection: createChdbConnection({ path: dataPath }), running: 0 });
  } catch (err) {
    for (const lane of lanes) void lane.connection.close();
    throw err;
  }
  let bytesInFlight = 0;
  const pending = new Set<Promise<void>>();

  /**
   * Within the bound: the least busy lane, so the insert runs beside the others. Past it: the
   * busiest lane, where chDB queues it behind the inserts already there, with no round trip
   * through JS between them (the event loop may be busy decoding the next request).
   */
  function pickLane(bytes: number): Lane {
    const parallel = bytesInFlight + bytes <= opts.parallelMaxBytes;
    return lanes.reduce((best, l) => ((parallel ? l.running < best.running : l.running > best.running) ? l : best));
  }

  async function insert(table: string, format: RowFormat, rows: Buffer, settings: Record<string, string | number>): Promise<void> {
    // chDB would store the rows before an empty line and refuse the rest (inline-insert.ts).
    assertNoEmptyLine(rows);
    const lane = pickLane(rows.length);
    lane.running++;
    bytesInFlight += rows.length;
    try {
      await lane.connection.chdb.rawInsert({
        table,
        values: rows,
        format: format.format,
        ...(format.columns ? { columns: [...format.columns] } : {}),
        settings: { ...format.settings, ...settings },
      });
    } finally {
      lane.running--;
      bytesInFlight -= rows.length;
    }
  }

  return {
    insert(table, format, rows, settings) {
      const run = insert(table, format, rows, settings);
      pending.add(run);
      void run.catch(() => {}).finally(() => pending.delete(run));
      return run;
    },
    async close() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
      await Promise.all(lanes.map((l) => l.connection.close()));
    },
  };
}
