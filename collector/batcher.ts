import type { SpanRecord, WriteBatch } from '../core/model/span.js';
import type { BatchWriter } from '../core/store/analytics.js';
import { BackpressureError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { SinkStats, SpanSink } from './sink.js';

export interface BatcherOptions {
  writer: BatchWriter;
  /** Flush when this many spans are buffered. */
  maxSpans: number;
  /** How long an idle batcher lingers for more writes before flushing (group commit window). */
  maxWaitMs: number;
  /** Bound on buffered + in-flight bytes; beyond it writes are refused with 429 + Retry-After. */
  maxPendingBytes: number;
  /**
   * Inserts allowed to run at once (default 2): one batch's trace derivation overlaps the next
   * batch's insert. Safe because derivation recomputes from stored rows (docs/architecture.md).
   */
  maxConcurrentFlushes?: number;
  logger: Logger;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

interface Buffer {
  batch: WriteBatch;
  bytes: number;
  waiters: Waiter[];
}

const emptyBuffer = (): Buffer => ({ batch: { spans: [], traces: [] }, bytes: 0, waiters: [] });

/** A cheap size estimate: the large fields dominate, JSON.stringify would cost more than the insert. */
export function estimateSpanBytes(s: SpanRecord): number {
  let bytes = 256 + s.name.length + s.input.length + s.output.length + s.events.length + s.status_message.length;
  for (const k in s.attributes) bytes += k.length + s.attributes[k].length;
  for (const k in s.resource_attributes) bytes += k.length + s.resource_attributes[k].length;
  return bytes;
}

/**
 * The embedded write path: groups spans of concurrent requests into large ClickHouse inserts.
 * Group commit: while the insert slots are busy, writes gather for the next insert; with a free
 * slot the batcher lingers `maxWaitMs` at most. Each write resolves when its insert completed (durable), or rejects with
 * the insert's error so the client retries. Memory is bounded by `maxPendingBytes`.
 */
export function createBatcher(opts: BatcherOptions): SpanSink {
  let buffer = emptyBuffer();
  let pendingBytes = 0;
  const inFlight = new Set<Promise<void>>();
  const slots = opts.maxConcurrentFlushes ?? 2;
  let timer: NodeJS.Timeout | null = null;
  let closing = false;

  function schedule(): void {
    if (inFlight.size >= slots || buffer.waiters.length === 0) return;
    const full = buffer.batch.spans.length >= opts.maxSpans;
    if (full || opts.maxWaitMs === 0) {
      flush();
    } else if (!timer) {
      timer = setTimeout(flush, opts.maxWaitMs);
    }
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (inFlight.size >= slots || buffer.waiters.length === 0) return;
    const current = buffer;
    buffer = emptyBuffer();
    const settle = (outcome: () => void) => {
      // Free the bound before waking writers, so a writer retrying at once finds room.
      pendingBytes -= current.bytes;
      inFlight.delete(flight);
      outcome();
      // Writes that arrived during the insert already waited; flush them without lingering.
      if (buffer.waiters.length) flush();
    };
    const started = performance.now();
    const flight: Promise<void> = opts.writer.writeBatch(current.batch).then(
      () =>
        settle(() => {
          opts.logger.debug({ spans: current.batch.spans.length, writes: current.waiters.length, ms: Math.round(performance.now() - started) }, 'batch written');
          current.waiters.forEach((w) => w.resolve());
        }),
      (err: unknown) =>
        settle(() => {
          opts.logger.error({ err, spans: current.batch.spans.length }, 'batch insert failed; writers will retry');
          current.waiters.forEach((w) => w.reject(err));
        }),
    );
    inFlight.add(flight);
  }

  const refuse = () => new BackpressureError(1, 429, 'Ingestion buffer is full, retry later');

  return {
    admit() {
      if (closing) throw new BackpressureError(5, 503, 'Server is shutting down, retry later');
      if (pendingBytes >= opts.maxPendingBytes) throw refuse();
    },

    write(batch) {
      if (closing) return Promise.reject(new BackpressureError(5, 503, 'Server is shutting down, retry later'));
      let bytes = 64 * batch.traces.length;
      for (const s of batch.spans) bytes += estimateSpanBytes(s);
      // One request larger than the whole bound is still taken when nothing else is pending,
      // otherwise it could never be written; the body limit caps its size.
      if (pendingBytes > 0 && pendingBytes + bytes > opts.maxPendingBytes) {
        return Promise.reject(refuse());
      }
      pendingBytes += bytes;
      return new Promise<void>((resolve, reject) => {
        for (const s of batch.spans) buffer.batch.spans.push(s);
        for (const t of batch.traces) buffer.batch.traces.push(t);
        buffer.bytes += bytes;
        buffer.waiters.push({ resolve, reject });
        schedule();
      });
    },

    async close() {
      closing = true;
      while (inFlight.size || buffer.waiters.length) {
        flush();
        if (inFlight.size) await Promise.race(inFlight);
      }
    },

    stats(): SinkStats {
      return { kind: 'batcher', pendingSpans: buffer.batch.spans.length, pendingBytes };
    },
  };
}
