/**
 * The collector's second public surface, beside index.ts: the write path's sinks and the Kafka
 * ingester, which runtime/write-path.ts picks and starts. Kept apart from index.ts so that a module
 * needing only the collector does not load kafkajs.
 */
export { createBatcher } from './batcher.js';
export { createKafkaClient } from './kafka/client.js';
export { createKafkaSink } from './kafka/kafka-sink.js';
export { startIngester, type Ingester } from './kafka/ingester.js';
export { ensureTopics } from './kafka/topics.js';
export type { SinkStats, SpanSink } from './sink.js';
