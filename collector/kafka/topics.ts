import type { ITopicConfig, Kafka } from 'kafkajs';
import { KAFKA_DEFAULTS } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';

export interface EnsureTopicsOptions {
  kafka: Kafka;
  logger: Logger;
  spansTopic?: string;
  deadLetterTopic?: string;
  /** Partitions of the spans topic: the ingesters' parallelism ceiling. */
  partitions?: number;
  /** Default: the broker's `default.replication.factor`. */
  replicationFactor?: number;
}

const DAY_MS = 86_400_000;

/**
 * Creates the spans and dead-letter topics when missing; idempotent, safe for several roles
 * starting at once. Existing topics are left as they are (a partition count that differs from
 * the requested one is only logged: changing it would move keys, and traces, between partitions).
 */
export async function ensureTopics(opts: EnsureTopicsOptions): Promise<void> {
  const spansTopic = opts.spansTopic ?? KAFKA_DEFAULTS.topic;
  const deadLetterTopic = opts.deadLetterTopic ?? KAFKA_DEFAULTS.deadLetterTopic;
  const partitions = opts.partitions ?? KAFKA_DEFAULTS.partitions;
  const replicationFactor = opts.replicationFactor ?? -1;
  const wanted: ITopicConfig[] = [
    { topic: spansTopic, numPartitions: partitions, replicationFactor },
    {
      topic: deadLetterTopic,
      // Dead letters are rare and read by people: one partition keeps them in arrival order,
      // and they are kept long enough for someone to look (30 days instead of the usual 7).
      numPartitions: 1,
      replicationFactor,
      configEntries: [{ name: 'retention.ms', value: String(30 * DAY_MS) }],
    },
  ];

  const admin = opts.kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t.topic));
    // kafkajs resolves false when every topic already exists, so another role creating the
    // same topic between our list and create is fine.
    if (missing.length > 0 && (await admin.createTopics({ topics: missing, waitForLeaders: true }))) {
      opts.logger.info({ topics: missing.map((t) => t.topic) }, 'created Kafka topics');
    }
    const metadata = await admin.fetchTopicMetadata({ topics: [spansTopic] });
    const actual = metadata.topics[0]?.partitions.length ?? 0;
    if (actual !== partitions) {
      opts.logger.warn({ topic: spansTopic, partitions: actual, requested: partitions }, 'spans topic has a different partition count; left unchanged');
    }
  } finally {
    await admin.disconnect();
  }
}

