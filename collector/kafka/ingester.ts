import type { Admin, Batch, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { RowBatch } from '../../core/model/span.js';
import type { BatchWriter } from '../../core/store/analytics.js';
import { errorMessage, failureKind } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { decodeMessage, EnvelopeError } from './envelope.js';
import { mergeRowBatches } from '../row-batch.js';
import { createDeadLetterPublisher, type DeadLetter } from './dead-letter.js';

export interface IngesterOptions {
  kafka: Kafka;
  topic: string;
  deadLetterTopic: string;
  groupId: string;
  writer: BatchWriter;
  logger: Logger;
  /** Most spans (rows) per insert; a larger fetch is written (and committed) in parts. Default 20 000. */
  maxBatchSpans?: number;
  /** How long the broker may hold a fetch to fill it; also bounds how long `stop()` waits for one. Default 500 ms. */
  fetchMaxWaitMs?: number;
  /** Bytes a fetch waits for (up to fetchMaxWaitMs), so inserts are large. Default 256 KiB. */
  fetchMinBytes?: number;
  /** Partitions written concurrently by this process. Default 2: one insert derives traces while the next parses. */
  partitionsConsumedConcurrently?: number;
  /** Backoff after an infrastructure failure: doubles from `min` to `max` ms. Default 250..10 000. */
  retryBackoffMs?: { min: number; max: number };
  /** Consumer session timeout; the broker allows 6 000..1 800 000 ms by default. Default 30 000. */
  sessionTimeoutMs?: number;
}

/** A running ingester of the consumer group. */
export interface Ingester {
  /** Drains: lets the batch in progress finish and commit, then leaves the group and disconnects. */
  stop(): Promise<void>;
  /** The group's total consumer lag on the topic: messages not yet committed. */
  lag(): Promise<number>;
}

/** A consumed message, decoded into rows or with the reason it never can be. */
type Decoded = { message: KafkaMessage; batch: RowBatch; rows: number } | { message: KafkaMessage; reason: string };
type Writable = Extract<Decoded, { batch: RowBatch }>;

/** Whether a retried step ended: done, rejected for its data, or given up because the partition is no longer ours to commit. */
type Outcome = { kind: 'ok' } | { kind: 'data-error'; error: unknown } | { kind: 'aborted' };

type Control = Pick<EachBatchPayload, 'heartbeat' | 'isRunning' | 'isStale'>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The ingester role: a consumer group that moves row messages from Kafka into the analytical
 * store. Offsets are committed only after `writer.writeRows` succeeded (at-least-once; the store
 * treats a re-delivered span as the same row). A message that can never be written (unknown
 * format, invalid envelope, or refused by the store for its data when written alone) goes to the
 * dead-letter topic with the reason, then its offset is committed: nothing is dropped silently.
 * Every other failure is transient (the default: an outage, a timeout, an overloaded store) and
 * is retried with backoff while the partition waits, uncommitted; it never dead-letters good data.
 */
export async function startIngester(opts: IngesterOptions): Promise<Ingester> {
  const log = opts.logger.child({ component: 'kafka-ingester', topic: opts.topic, groupId: opts.groupId });
  const maxBatchSpans = opts.maxBatchSpans ?? 20_000;
  const backoff = opts.retryBackoffMs ?? { min: 250, max: 10_000 };
  const sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
  const heartbeatInterval = Math.max(500, Math.floor(sessionTimeout / 10));

  const deadLetters = await createDeadLetterPublisher({ kafka: opts.kafka, topic: opts.deadLetterTopic, groupId: opts.groupId });
  const admin: Admin = opts.kafka.admin();
  await admin.connect();
  const consumer: Consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout,
    heartbeatInterval,
    maxWaitTimeInMs: opts.fetchMaxWaitMs ?? 500,
    minBytes: opts.fetchMinBytes ?? 256 * 1024,
    // Fetch sizes are compressed bytes, and a fetch is decompressed whole before its first insert:
    // spans compress 5-40x, so 16 MiB is ~80-650 MB of rows in memory while a backlog drains
    // (64 MiB peaked at 3.5 GB RSS in `npm run bench -- ingester-drain`; docs/benchmarks.md).
    maxBytesPerPartition: 4 * 1024 * 1024,
    maxBytes: 16 * 1024 * 1024,
    allowAutoTopicCreation: false,
  });
  consumer.on(consumer.events.CRASH, (e) => log.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed'));

  /** Runs `step` until it succeeds, retrying transient failures (or every failure, for `retryAll`). */
  async function retrying(ctl: Control, what: string, step: () => Promise<void>, retryAll = false): Promise<Outcome> {
    let delay = backoff.min;
    for (;;) {
      // A step is only started while we still own the partition; one that started finishes.
      if (!ctl.isRunning() || ctl.isStale()) return { kind: 'aborted' };
      // kafkajs heartbeats only when asked: keep asking while a long insert runs, so it does not
      // cost the group membership (and a redelivery of everything in it).
      const ticker = setInterval(() => void ctl.heartbeat().catch(() => undefined), heartbeatInterval);
      try {
        await step();
        return { kind: 'ok' };
      } catch (error) {
        if (!retryAll && failureKind(error) === 'permanent') return { kind: 'data-error', error };
        log.warn({ err: error, retryInMs: delay }, `${what} failed; retrying, offsets not committed`);
      } finally {
        clearInterval(ticker);
      }
      if (!(await wait(ctl, delay))) return { kind: 'aborted' };
      delay = Math.min(delay * 2, backoff.max);
    }
  }

  /** Sleeps while heartbeating, so a long outage of the store does not cost the group membership. */
  async function wait(ctl: Control, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (!ctl.isRunning() || ctl.isStale()) return false;
      try {
        await ctl.heartbeat();
      } catch {
        return false; // a rebalance: the partition may move; its new owner reads from the last commit
      }
      await sleep(Math.min(200, until - Date.now()));
    }
    return true;
  }

  /**
   * Inserts the messages' rows; when the store refuses them for their data, bisects until the
   * messages at fault are alone and adds them to `letters`. False when aborted.
   */
  async function insertIsolating(ctl: Control, messages: Writable[], letters: DeadLetter[]): Promise<boolean> {
    const outcome = await retrying(ctl, 'insert', () => opts.writer.writeRows(mergeRowBatches(messages.map((m) => m.batch))));
    if (outcome.kind === 'aborted') return false;
    if (outcome.kind === 'ok') return true;
    if (messages.length === 1) {
      letters.push({ message: messages[0].message, reason: `rejected by the store: ${errorMessage(outcome.error)}` });
      return true;
    }
    log.warn({ err: outcome.error, messages: messages.length }, 'insert refused for its data; splitting to isolate the messages at fault');
    const half = Math.ceil(messages.length / 2);
    return (await insertIsolating(ctl, messages.slice(0, half), letters)) && insertIsolating(ctl, messages.slice(half), letters);
  }

  /** Writes one part of a fetched batch and dead-letters what can never be written; false when aborted. */
  async function processPart(ctl: Control, batch: Batch, part: Decoded[]): Promise<boolean> {
    const letters: DeadLetter[] = [];
    const good: Writable[] = [];
    for (const d of part) {
      if ('batch' in d) good.push(d);
      else letters.push({ message: d.message, reason: d.reason });
    }
    if (good.length > 0 && !(await insertIsolating(ctl, good, letters))) return false;
    if (letters.length > 0) {
      letters.sort((a, b) => Number(BigInt(a.message.offset) - BigInt(b.message.offset)));
      const source = { topic: batch.topic, partition: batch.partition };
      // A dead letter that cannot be produced must not be committed past: retry whatever the error.
      const outcome = await retrying(ctl, 'dead-letter publish', () => deadLetters.publish(source, letters), true);
      if (outcome.kind !== 'ok') return false;
      log.warn(
        { partition: batch.partition, offsets: letters.map((l) => l.message.offset), reasons: letters.map((l) => l.reason) },
        'messages sent to the dead-letter topic',
      );
    }
    return true;
  }

  async function commit(payload: EachBatchPayload, nextOffset: string): Promise<void> {
    const { topic, partition } = payload.batch;
    try {
      // Through the batch payload, not consumer.commitOffsets: the latter silently skips the
      // commit once stop() was called, and stop() must commit the batch it lets finish.
      await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: nextOffset }] }] });
    } catch (err) {
      // The rows are written; a later commit covers these offsets, and a redelivery before that is harmless.
      log.warn({ err, partition, offset: nextOffset }, 'offset commit failed');
    }
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    let part: Decoded[] = [];
    let spans = 0;
    const flush = async (last: boolean): Promise<boolean> => {
      if (!(await processPart(payload, batch, part))) return false;
      const lastOffset = part[part.length - 1].message.offset;
      // The batch's last offset may lie past its last message (transaction markers are filtered out).
      const next = (BigInt(last ? batch.lastOffset() : lastOffset) + 1n).toString();
      payload.resolveOffset(lastOffset);
      await commit(payload, next);
      part = [];
      spans = 0;
      return true;
    };
    for (const message of batch.messages) {
      const decoded = decode(message);
      part.push(decoded);
      if ('batch' in decoded) spans += decoded.rows;
      if (spans >= maxBatchSpans && !(await flush(false))) return;
    }
    if (part.length > 0) await flush(true);
  }

  await consumer.connect();
  await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 2,
    eachBatch,
  });
  log.info('ingester started');

  let stopped: Promise<void> | null = null;
  return {
    stop() {
      // kafkajs' disconnect waits for the eachBatch in progress, which commits before it returns.
      stopped ??= (async () => {
        await consumer.disconnect();
        await deadLetters.close();
        await admin.disconnect();
        log.info('ingester stopped');
      })();
      return stopped;
    },
    async lag() {
      const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(opts.topic), admin.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] })]);
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      let lag = 0n;
      for (const p of ends) {
        // No commit yet (-1), or one behind retention: the group starts at the oldest message held.
        const low = BigInt(p.low);
        const at = done.get(p.partition) ?? -1n;
        lag += BigInt(p.high) - (at < low ? low : at);
      }
      return Number(lag);
    },
  };
}

function decode(message: KafkaMessage): Decoded {
  try {
    return { message, ...decodeMessage(message) };
  } catch (err) {
    return { message, reason: err instanceof EnvelopeError ? err.reason : `undecodable: ${errorMessage(err)}` };
  }
}
