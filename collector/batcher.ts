import type { RowBatch } from '../core/model/span.js';
import type { BatchWriter } from '../core/store/analytics.js';
import { failureKind, toError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { createByteBudget, rowBytes } from './admission.js';
import { mergeRowBatches } from './row-batch.js';
import type { SinkStats, SpanSink } from './sink.js';

export interface BatcherOptions {
  writer: BatchWriter;
  /** Flush when this many spans are buffered. */
  maxSpans: number;
  /**
   * How long the oldest buffered write may wait for company before its batch is inserted (group
   * commit window). Every insert creates parts ClickHouse must later merge, at a fixed cost of
   * several milliseconds of CPU each, so fewer, larger inserts are much cheaper per span. After an
   * insert, the next one also waits up to this long for the writers it acknowledged to write again.
   */
  maxWaitMs: number;
  /** Bound on buffered + in-flight bytes; beyond it writes are refused with 429 + Retry-After. */
  maxPendingBytes: number;
  /**
   * Inserts allowed to run at once (default 1: while one runs, the next batch gathers, so batches
   * grow with load). More is safe, since inserts are idempotent and trace summaries are
   * order-independent states, but splits the load into smaller inserts.
   */
  maxConcurrentFlushes?: number;
  logger: Logger;
}

/**
 * An insert smaller than this waits for its writers' next writes (see `followers`): below it, an
 * insert's fixed cost (~30 ms of ClickHouse CPU however few its rows) is most of its cost, and two
 * half-size inserts cost nearly twice one. A larger insert's cost is mostly per span, and waiting
 * would only idle the slot (measured: JSON ingest's 10-span requests gain, OTLP's 500-span exports
 * lose; docs/benchmarks.md, "Waiting for the writers an insert acknowledged").
 */
const SMALL_INSERT_SPANS = 1_000;

/** One write waiting in a batch: its own rows, so a failed batch can be split by writer. */
interface Waiter {
  rows: RowBatch;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The embedded write path: groups rows of concurrent requests into large ClickHouse inserts.
 * Group commit: a batch is inserted once it holds `maxSpans` or its oldest write has waited
 * `maxWaitMs`, and an insert slot is free; while the slots are busy, writes gather for the next
 * insert. Each write resolves when its insert completed
 * (durable and queryable), or rejects so the client retries. Memory is bounded by a byte budget.
 *
 * One request's data can never fail another's: when the store refuses a shared insert for a data
 * reason, the writers are split in halves and retried until the offending ones are alone, and
 * only they get the error. A transient failure rejects every writer with a retryable 503.
 */
export function createBatcher(opts: BatcherOptions): SpanSink {
  const budget = createByteBudget(opts.maxPendingBytes);
  let buffer: Waiter[] = [];
  let bufferedSpans = 0;
  /** When the oldest buffered write arrived. */
  let bufferSince = 0;
  const inFlight = new Set<Promise<void>>();
  const slots = opts.maxConcurrentFlushes ?? 1;
  let timer: NodeJS.Timeout | null = null;
  let closing = false;
  /**
   * After a small insert, the writers it acknowledged often write again at once (an SDK's next
   * export, a client's next request): the next insert waits up to `maxWaitMs` for as many spans as
   * it and the buffer held, so those writes join it rather than wait a whole insert for the one after.
   */
  let followers = { spans: 0, until: 0 };

  /** Inserts the buffer when it is full, or old enough with its followers in, and a slot is free; else waits. */
  function schedule(): void {
    if (inFlight.size >= slots || buffer.length === 0) return;
    const now = performance.now();
    const ready = now - bufferSince >= opts.maxWaitMs && (bufferedSpans >= followers.spans || now >= followers.until);
    if (closing || bufferedSpans >= opts.maxSpans || ready) flush();
    else if (!timer) timer = setTimeout(flush, Math.max(bufferSince + opts.maxWaitMs, followers.until) - now);
  }

  /** Inserts the writers' rows; on a data failure, bisects so only the writers at fault fail. */
  async function insert(waiters: Waiter[]): Promise<void> {
    const started = performance.now();
    try {
      const rows = mergeRowBatches(waiters.map((w) => w.rows));
      await opts.writer.writeRows(rows);
      opts.logger.debug({ spans: rows.spans.length, writes: waiters.length, ms: Math.round(performance.now() - started) }, 'batch written');
      for (const w of waiters) w.resolve();
    } catch (err) {
      if (failureKind(err) === 'permanent' && waiters.length > 1) {
        opts.logger.warn({ err, writes: waiters.length }, 'store refused a shared batch; splitting it to isolate the writes at fault');
        const half = Math.ceil(waiters.length / 2);
        await insert(waiters.slice(0, half));
        await insert(waiters.slice(half));
        return;
      }
      opts.logger.warn({ err, writes: waiters.length }, 'batch insert failed; its writers get the error');
      for (const w of waiters) w.reject(err);
    }
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (inFlight.size >= slots || buffer.length === 0) return;
    const waiters = buffer;
    buffer = [];
    const spans = bufferedSpans;
    bufferedSpans = 0;
    const flight: Promise<void> = insert(waiters).finally(() => {
      inFlight.delete(flight);
      followers = spans < SMALL_INSERT_SPANS ? { spans: bufferedSpans + spans, until: performance.now() + opts.maxWaitMs } : { spans: 0, until: 0 };
      schedule();
    });
    inFlight.add(flight);
  }

  return {
    admit: () => budget.admit(),

    write(rows) {
      let release: () => void;
      try {
        release = budget.take(rowBytes(rows.spans) + rowBytes(rows.stats));
      } catch (err) {
        return Promise.reject(toError(err));
      }
      return new Promise<void>((resolve, reject) => {
        // Free the budget before waking the writer, so a writer retrying at once finds room.
        if (buffer.length === 0) bufferSince = performance.now();
        buffer.push({ rows, resolve: () => (release(), resolve()), reject: (err) => (release(), reject(toError(err))) });
        bufferedSpans += rows.spans.length;
        schedule();
      });
    },

    async close() {
      closing = true;
      budget.close();
      while (inFlight.size || buffer.length) {
        flush();
        if (inFlight.size) await Promise.race(inFlight);
      }
    },

    stats(): SinkStats {
      return { kind: 'batcher', pendingSpans: bufferedSpans, pendingBytes: budget.used };
    },
  };
}
