import { CompressionTypes, type Kafka, type Producer } from 'kafkajs';
import { connectIdempotentProducer } from './client.js';
import type { WriteBatch } from '../../core/model/span.js';
import { AppError, BackpressureError, PayloadTooLargeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { SinkStats, SpanSink } from '../sink.js';
import { encodeTraceMessages, type TraceMessage } from './envelope.js';

export interface KafkaSinkOptions {
  /** A kafkajs client; its `retry` settings bound how long a send keeps trying before it fails. */
  kafka: Kafka;
  topic: string;
  logger: Logger;
  /** Bound on bytes accepted but not yet acknowledged; beyond it writes get 429 + Retry-After. Default 64 MiB. */
  maxInFlightBytes?: number;
  /**
   * Largest message value (and largest produce request) in bytes. Default 900 000, under the
   * broker's default `message.max.bytes` (1 MiB), which applies to a whole record batch.
   */
  maxMessageBytes?: number;
  /** Default gzip: span JSON compresses ~5-10x, and the broker's size limit applies after compression. */
  compression?: 'gzip' | 'none';
  /** Retry-After sent to exporters when Kafka cannot take writes. Default 5 s. */
  retryAfterSeconds?: number;
}

interface PendingWrite {
  remaining: number;
  bytes: number;
  settled: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

interface Queued {
  message: TraceMessage;
  write: PendingWrite;
}

/**
 * The distributed write path: each write becomes one message per trace on `topic`, and resolves
 * once Kafka acknowledged every one of them (acks = all in-sync replicas), so a 200 to the
 * exporter means the spans are durable in Kafka. The ingester role moves them to ClickHouse.
 *
 * Messages of concurrent writes are gathered into produce requests of at most `maxMessageBytes`
 * (group commit, as in the batcher): kafkajs' idempotent producer allows one request in flight
 * per broker anyway, and a bounded request keeps each partition's record batch under the
 * broker's limit.
 *
 * Failures: Kafka unreachable or timing out rejects the write with BackpressureError(503,
 * Retry-After), the status OTel exporters retry; a span too large for any message gets 413.
 */
export async function createKafkaSink(opts: KafkaSinkOptions): Promise<SpanSink> {
  const maxInFlightBytes = opts.maxInFlightBytes ?? 64 * 1024 * 1024;
  const maxMessageBytes = opts.maxMessageBytes ?? 900_000;
  const retryAfter = opts.retryAfterSeconds ?? 5;
  const compression = opts.compression === 'none' ? CompressionTypes.None : CompressionTypes.GZIP;
  const log = opts.logger.child({ component: 'kafka-sink', topic: opts.topic });

  const producer: Producer = await connectIdempotentProducer(opts.kafka);

  const queue: Queued[] = [];
  let pendingBytes = 0;
  let pendingSpans = 0;
  let pumping: Promise<void> | null = null;
  let closing = false;

  function settle(write: PendingWrite, err?: unknown): void {
    if (write.settled) return;
    write.settled = true;
    pendingBytes -= write.bytes;
    if (err === undefined) write.resolve();
    else write.reject(err);
  }

  /** Takes queued messages up to one request's worth; messages of already failed writes are dropped. */
  function takeRequest(): Queued[] {
    const taken: Queued[] = [];
    let bytes = 0;
    while (queue.length > 0) {
      const next = queue[0];
      if (next.write.settled) {
        queue.shift();
        pendingSpans -= next.message.spans;
        continue;
      }
      if (taken.length > 0 && bytes + next.message.bytes > maxMessageBytes) break;
      queue.shift();
      taken.push(next);
      bytes += next.message.bytes;
    }
    return taken;
  }

  async function drain(): Promise<void> {
    for (let request = takeRequest(); request.length > 0; request = takeRequest()) {
      try {
        await producer.send({
          topic: opts.topic,
          acks: -1,
          compression,
          messages: request.map((q) => ({ key: q.message.key, value: q.message.value })),
        });
        for (const q of request) {
          if (--q.write.remaining === 0) settle(q.write);
        }
      } catch (err) {
        const mapped = toSinkError(err, maxMessageBytes, retryAfter);
        log.warn({ err, messages: request.length }, 'produce failed; writers will retry');
        for (const q of request) settle(q.write, mapped);
      } finally {
        for (const q of request) pendingSpans -= q.message.spans;
      }
    }
  }

  function pump(): void {
    if (pumping) return;
    pumping = drain().finally(() => {
      pumping = null;
      if (queue.length > 0) pump();
    });
  }

  const full = () => new BackpressureError(1, 429, 'Ingestion buffer is full, retry later');

  return {
    admit() {
      if (closing) throw new BackpressureError(retryAfter, 503, 'Server is shutting down, retry later');
      if (pendingBytes >= maxInFlightBytes) throw full();
    },

    write(batch: WriteBatch): Promise<void> {
      if (closing) return Promise.reject(new BackpressureError(retryAfter, 503, 'Server is shutting down, retry later'));
      let messages: TraceMessage[];
      try {
        messages = encodeTraceMessages(batch, maxMessageBytes);
      } catch (err) {
        return Promise.reject(err);
      }
      if (messages.length === 0) return Promise.resolve();
      const bytes = messages.reduce((n, m) => n + m.bytes, 0);
      // As in the batcher: one write larger than the bound is still taken when nothing else is
      // pending, otherwise it could never be written; the request body limit caps its size.
      if (pendingBytes > 0 && pendingBytes + bytes > maxInFlightBytes) {
        return Promise.reject(full());
      }
      pendingBytes += bytes;
      return new Promise<void>((resolve, reject) => {
        const write: PendingWrite = { remaining: messages.length, bytes, settled: false, resolve, reject };
        for (const message of messages) {
          queue.push({ message, write });
          pendingSpans += message.spans;
        }
        pump();
      });
    },

    async close(): Promise<void> {
      closing = true;
      while (pumping) await pumping;
      await producer.disconnect();
    },

    stats(): SinkStats {
      return { kind: 'kafka', pendingSpans, pendingBytes };
    },
  };
}

const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/** kafkajs wraps the broker's error in `cause` (retries exhausted) or `errors` (several brokers). */
function isTooLarge(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { type?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.type === 'string' && TOO_LARGE.has(e.type)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isTooLarge(inner, depth + 1))) return true;
  return isTooLarge(e.cause, depth + 1);
}

/**
 * Every other produce failure (broker down, leader moving, request timeout, retries exhausted)
 * is about Kafka, not the spans: the spans were already validated, so the exporter should send
 * them again later. 503 + Retry-After says exactly that; ServiceUnavailableError would name a
 * store the client never talked to and carries no Retry-After.
 */
function toSinkError(err: unknown, maxMessageBytes: number, retryAfter: number): AppError {
  if (isTooLarge(err)) return new PayloadTooLargeError(maxMessageBytes);
  return new BackpressureError(retryAfter, 503, 'Span buffer (Kafka) is unavailable, retry later');
}
