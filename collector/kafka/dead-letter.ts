import type { IHeaders, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { connectIdempotentProducer } from './client.js';

/** Headers a dead letter carries next to the original key, value and headers. */
export const DEAD_LETTER_HEADERS = {
  reason: 'agent-eval-dlq-reason',
  sourceTopic: 'agent-eval-dlq-source-topic',
  sourcePartition: 'agent-eval-dlq-source-partition',
  sourceOffset: 'agent-eval-dlq-source-offset',
  groupId: 'agent-eval-dlq-group-id',
  failedAt: 'agent-eval-dlq-failed-at',
} as const;

/** A consumed message that can never be written, and why. */
export interface DeadLetter {
  message: KafkaMessage;
  reason: string;
}

export interface DeadLetterPublisher {
  /** Resolves once Kafka acknowledged every letter; the caller commits the source offsets only then. */
  publish(source: { topic: string; partition: number }, letters: DeadLetter[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Produces dead letters with the original key and value byte for byte, so a fixed ingester (or a
 * person) can replay them onto the spans topic unchanged; the reason and origin ride in headers.
 */
export async function createDeadLetterPublisher(opts: { kafka: Kafka; topic: string; groupId: string }): Promise<DeadLetterPublisher> {
  const producer: Producer = await connectIdempotentProducer(opts.kafka);
  return {
    async publish(source, letters) {
      if (letters.length === 0) return;
      const failedAt = new Date().toISOString();
      await producer.send({
        topic: opts.topic,
        acks: -1,
        messages: letters.map(({ message, reason }) => {
          const headers: IHeaders = {
            ...(message.headers ?? {}),
            [DEAD_LETTER_HEADERS.reason]: reason,
            [DEAD_LETTER_HEADERS.sourceTopic]: source.topic,
            [DEAD_LETTER_HEADERS.sourcePartition]: String(source.partition),
            [DEAD_LETTER_HEADERS.sourceOffset]: message.offset,
            [DEAD_LETTER_HEADERS.groupId]: opts.groupId,
            [DEAD_LETTER_HEADERS.failedAt]: failedAt,
          };
          return { key: message.key, value: message.value, headers };
        }),
      });
    },
    close: () => producer.disconnect(),
  };
}
