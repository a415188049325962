import { CompressionTypes, type Admin, type Kafka, type Producer } from 'kafkajs';
import { connectIdempotentProducer } from './client.js';
import type { RowBatch } from '../../core/model/span.js';
import { AppError, BackpressureError, PayloadTooLargeError, toError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { createByteBudget, rowBytes } from '../admission.js';
import type { SinkStats, SpanSink } from '../sink.js';
import { packRowMessages, rowHeaders, type RowMessage } from './envelope.js';

export interface KafkaSinkOptions {
  /** A kafkajs client; its `retry` settings bound how long a send keeps trying before it fails. */
  kafka: Kafka;
  topic: string;
  logger: Logger;
  /** Bound on bytes accepted but not yet acknowledged; beyond it writes get 429 + Retry-After. Default 64 MiB. */
  maxInFlightBytes?: number;
  /**
   * Largest message value (and largest produce request) in bytes, at least the largest span row
   * (MAX_SPAN_BYTES) so every accepted span fits (config checks it). Must stay under the broker's
   * `message.max.bytes` (default 1 MiB), which applies to a whole record batch.
   */
  maxMessageBytes: number;
  /** Default gzip: span JSON compresses ~5-10x, and the broker's size limit applies after compression. */
  compression?: 'gzip' | 'none';
  /** Retry-After sent to exporters when Kafka cannot take writes. Default 5 s. */
  retryAfterSeconds?: number;
}

/** The Kafka write path: a SpanSink that can also say whether its brokers answer. */
export interface KafkaSink extends SpanSink {
  /**
   * Whether Kafka can take this sink's writes now: a metadata request for the topic is answered
   * and every partition has a leader. A round trip that may hang with the broker: callers bound
   * it (/api/health). Concurrent calls share one request.
   */
  reachable(): Promise<boolean>;
}

interface PendingWrite {
  remaining: number;
  settled: boolean;
  release(): void;
  resolve(): void;
  reject(err: unknown): void;
}

interface Queued {
  message: RowMessage;
  write: PendingWrite;
}

/**
 * The distributed write path: each write's encoded rows become messages on `topic`, and it resolves
 * once Kafka acknowledged every one of them (acks = all in-sync replicas), so a 200 to the
 * exporter means the spans are durable in Kafka. The ingester role moves them to ClickHouse.
 *
 * Messages of concurrent writes are gathered into produce requests of at most `maxMessageBytes`
 * (group commit, as in the batcher): kafkajs' idempotent producer allows one request in flight
 * per broker anyway, and a bounded request keeps each partition's record batch under the
 * broker's limit.
 *
 * Failures: Kafka unreachable or timing out rejects the write with BackpressureError(503,
 * Retry-After), the status OTel exporters retry. Spans too large for a message never get here:
 * ingest refuses them alone (MAX_SPAN_BYTES), exactly as in the embedded path.
 */
export async function createKafkaSink(opts: KafkaSinkOptions): Promise<KafkaSink> {
  const budget = createByteBudget(opts.maxInFlightBytes ?? 64 * 1024 * 1024);
  const maxMessageBytes = opts.maxMessageBytes;
  const retryAfter = opts.retryAfterSeconds ?? 5;
  const compression = opts.compression === 'none' ? CompressionTypes.None : CompressionTypes.GZIP;
  const log = opts.logger.child({ component: 'kafka-sink', topic: opts.topic });

  const producer: Producer = await connectIdempotentProducer(opts.kafka);

  const queue: Queued[] = [];
  let pendingSpans = 0;
  let pumping: Promise<void> | null = null;

  function settle(write: PendingWrite, err?: unknown): void {
    if (write.settled) return;
    write.settled = true;
    write.release();
    if (err === undefined) write.resolve();
    else write.reject(err);
  }

  const countSpans = (m: RowMessage) => m.spanRows;

  /** Takes queued messages up to one request's worth; messages of already failed writes are dropped. */
  function takeRequest(): Queued[] {
    const taken: Queued[] = [];
    let bytes = 0;
    while (queue.length > 0) {
      const next = queue[0];
      if (next.write.settled) {
        queue.shift();
        pendingSpans -= countSpans(next.message);
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
          messages: request.map((q) => ({ value: q.message.value, headers: rowHeaders(q.message) })),
        });
        for (const q of request) {
          if (--q.write.remaining === 0) settle(q.write);
        }
      } catch (err) {
        const mapped = toSinkError(err, maxMessageBytes, retryAfter);
        log.warn({ err, messages: request.length }, 'produce failed; writers will retry');
        for (const q of request) settle(q.write, mapped);
      } finally {
        for (const q of request) pendingSpans -= countSpans(q.message);
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

  // The producer has no ping: an admin client of the same brokers asks, without retries (a
  // health check wants the answer of now, and a probe every few seconds retries anyway).
  let admin: Admin | undefined;
  let probing: Promise<boolean> | undefined;
  async function probe(): Promise<boolean> {
    admin ??= opts.kafka.admin({ retry: { retries: 0 } });
    await admin.connect();
    const { topics } = await admin.fetchTopicMetadata({ topics: [opts.topic] });
    const partitions = topics[0]?.partitions ?? [];
    return partitions.length > 0 && partitions.every((p) => p.leader >= 0);
  }

  return {
    admit: () => budget.admit(),
    maxWriteBytes: maxMessageBytes,

    reachable() {
      probing ??= probe()
        .catch(() => false)
        .finally(() => (probing = undefined));
      return probing;
    },

    write(rows: RowBatch): Promise<void> {
      let release: () => void;
      try {
        release = budget.take(rowBytes(rows.spans) + rowBytes(rows.stats));
      } catch (err) {
        return Promise.reject(toError(err));
      }
      const messages = packRowMessages(rows, maxMessageBytes);
      if (messages.length === 0) {
        release();
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const write: PendingWrite = { remaining: messages.length, settled: false, release, resolve, reject };
        for (const message of messages) {
          queue.push({ message, write });
          pendingSpans += countSpans(message);
        }
        pump();
      });
    },

    async close(): Promise<void> {
      budget.close();
      while (pumping) await pumping;
      await producer.disconnect();
      await admin?.disconnect();
    },

    stats(): SinkStats {
      return { kind: 'kafka', pendingSpans, pendingBytes: budget.used };
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
