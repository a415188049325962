import { Kafka, logLevel as KafkaLogLevel, type LogEntry, type Producer } from 'kafkajs';
import type { Logger } from '../../core/logger.js';
import { RetryStablePartitioner } from './partitioner.js';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [KafkaLogLevel.ERROR]: 'error',
  [KafkaLogLevel.WARN]: 'warn',
  [KafkaLogLevel.INFO]: 'info',
  [KafkaLogLevel.DEBUG]: 'debug',
};

/** A kafkajs client that logs through pino instead of the console. */
export function createKafkaClient(brokers: string[], logger: Logger, clientId = 'agent-eval'): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    logLevel: KafkaLogLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry;
        log[LEVELS[level] ?? 'info'](rest, message);
      },
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5_000 },
  });
}

/**
 * The producer every agent-eval topic is written with. Idempotence makes kafkajs' internal
 * retries safe (no duplicates, no reordering within a partition); kafkajs requires
 * maxInFlightRequests 1 and acks -1 for it, and a message must keep its partition across
 * retries ({@link RetryStablePartitioner}). The partitioner is the Java client's (murmur2 of
 * the key, kafkajs' default since 2.0): keys map to the same partition from any client.
 * Topics are created by ensureTopics, never implicitly.
 */
export async function connectIdempotentProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: RetryStablePartitioner,
  });
  await producer.connect();
  return producer;
}
