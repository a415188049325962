import { Kafka, logLevel as KafkaLogLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '../../core/logger.js';

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
