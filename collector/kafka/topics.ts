import kafkajs, { type Admin, type ITopicConfig, type Kafka } from 'kafkajs';
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
  /** The largest message the collector produces (KAFKA_MAX_MESSAGE_BYTES): the spans topic takes record batches this large. */
  maxMessageBytes?: number;
}

/** What a record batch adds to its message: headers, offsets, CRC (a few hundred bytes); rounded up. */
const RECORD_BATCH_OVERHEAD = 16 * 1024;

/** DescribeConfigs' source of a value set on the topic itself (DYNAMIC_TOPIC_CONFIG). */
const TOPIC_OVERRIDE = 1;

// kafkajs is CommonJS, and Node's ESM loader finds only some of its named exports.
const { ConfigResourceTypes } = kafkajs;

const DAY_MS = 86_400_000;

/**
 * Raises the spans topic's `max.message.bytes` to `bytes` when it takes less (a topic created by an
 * older release, or by hand, holds the broker's default of ~1 MiB): a larger message is refused by
 * the broker, and its write would fail until the limit is raised.
 */
async function allowMessages(admin: Admin, topic: string, bytes: string, logger: Logger): Promise<void> {
  const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
  const entries = described.resources[0]?.configEntries ?? [];
  const current = entries.find((e) => e.configName === 'max.message.bytes')?.configValue;
  if (current !== undefined && Number(current) >= Number(bytes)) return;
  // AlterConfigs replaces a topic's whole set of overrides: keep the others as they are.
  const overrides = entries
    .filter((e) => !e.isDefault && Number(e.configSource) === TOPIC_OVERRIDE && e.configName !== 'max.message.bytes' && !e.isSensitive)
    .map((e) => ({ name: e.configName, value: e.configValue }));
  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [...overrides, { name: 'max.message.bytes', value: bytes }] }],
  });
  logger.info({ topic, from: current, to: bytes }, 'raised the spans topic max.message.bytes to the largest message the collector produces');
}

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
  const maxMessageBytes = String((opts.maxMessageBytes ?? KAFKA_DEFAULTS.maxMessageBytes) + RECORD_BATCH_OVERHEAD);
  const wanted: ITopicConfig[] = [
    { topic: spansTopic, numPartitions: partitions, replicationFactor, configEntries: [{ name: 'max.message.bytes', value: maxMessageBytes }] },
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
    await allowMessages(admin, spansTopic, maxMessageBytes, opts.logger);
    const metadata = await admin.fetchTopicMetadata({ topics: [spansTopic] });
    const actual = metadata.topics[0]?.partitions.length ?? 0;
    if (actual !== partitions) {
      opts.logger.warn({ topic: spansTopic, partitions: actual, requested: partitions }, 'spans topic has a different partition count; left unchanged');
    }
  } finally {
    await admin.disconnect();
  }
}
