import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import {
  createBatcher,
  createKafkaClient,
  createKafkaSink,
  ensureTopics,
  startIngester,
  type Ingester,
  type SinkStats,
  type SpanSink,
} from '../collector/sinks.js';

export interface WritePath {
  /** Present when this process accepts spans (api, collector or worker role). */
  sink?: SpanSink;
  /** Present when this process runs the Kafka ingester role. */
  ingester?: Ingester;
  /** Buffered and in-flight spans of this process's sink: local, answers at once. */
  stats(): SinkStats | undefined;
  /** With the ingester role: the group's consumer lag, a Kafka round trip that may hang with Kafka. */
  consumerLag?: () => Promise<number>;
  /** With Kafka, where this process produces: whether the sink's brokers answer, a round trip that may hang with Kafka. */
  kafkaReachable?: () => Promise<boolean>;
  /** Drains in order: the sink flushes, then the ingester commits and leaves its group. */
  close(): Promise<void>;
}

/**
 * Embedded: the in-process batcher writes to ClickHouse. With KAFKA_BROKERS: receivers produce
 * to Kafka, and the ingester role consumes into ClickHouse (the sink interface hides which).
 */
export async function openWritePath(config: Config, analytics: AnalyticsStore, logger: Logger): Promise<WritePath> {
  // The worker writes each case's trace through the same write path.
  const accepts = config.roles.includes('api') || config.roles.includes('collector') || config.roles.includes('worker');
  if (!config.kafka) {
    const sink = createBatcher({ writer: analytics, logger, ...config.batch });
    return { sink, stats: () => sink.stats(), close: () => sink.close() };
  }
  const kafka = createKafkaClient(config.kafka.brokers, logger);
  await ensureTopics({
    kafka,
    logger,
    spansTopic: config.kafka.topic,
    deadLetterTopic: config.kafka.deadLetterTopic,
    partitions: config.kafka.partitions,
    maxMessageBytes: config.kafka.maxMessageBytes,
  });
  const sink = accepts ? await createKafkaSink({ kafka, topic: config.kafka.topic, maxMessageBytes: config.kafka.maxMessageBytes, logger }) : undefined;
  let ingester: Ingester | undefined;
  try {
    if (config.roles.includes('ingester')) {
      ingester = await startIngester({
        kafka,
        topic: config.kafka.topic,
        deadLetterTopic: config.kafka.deadLetterTopic,
        groupId: config.kafka.groupId,
        writer: analytics,
        logger,
      });
    }
  } catch (err) {
    await sink?.close();
    throw err;
  }
  const running = ingester;
  return {
    sink,
    ingester,
    stats: () => sink?.stats() ?? { kind: 'kafka', pendingSpans: 0, pendingBytes: 0 },
    consumerLag: running && (() => running.lag()),
    kafkaReachable: sink && (() => sink.reachable()),
    async close() {
      await sink?.close();
      await ingester?.stop();
    },
  };
}
