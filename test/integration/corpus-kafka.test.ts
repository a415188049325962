import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportVia, recordTrace, type ExporterKind, type RecordedTrace } from '../e2e/helpers/otel.js';
import {
  expectTraceStoredAsSent,
  loadCorpus,
  readWholeTrace,
  sentFromJson,
  sentFromRecorded,
  toSpansBodies,
  toSpanSpecs,
  wellFormed,
  projectReader,
  type ApiGet,
  type SentTrace,
} from '../helpers/corpus.js';
import { DEAD_LETTER_HEADERS } from '../../collector/kafka/dead-letter.js';
import { kafkaClient, readTopic, startKafka, topicMessageCount, type KafkaBroker } from '../helpers/kafka.js';
import { pollUntil } from '../helpers/processes.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { postCreated } from '../helpers/test-service-hooks.js';

/**
 * The corpus of test/fixtures/corpus through the Kafka write path, nothing mocked: every way in
 * (JSON ingest, POST /api/spans, OTLP/HTTP protobuf and JSON, OTLP/gRPC with the real exporters)
 * produces the rows to a real broker (scripts/kafka.sh), the ingester consumes them into chDB,
 * and the API reads them back as they were sent, field by field. Nothing may reach the dead
 * letter topic.
 */

const TOPIC = 'corpus.spans';
const DLQ = 'corpus.spans.dlq';

let broker: KafkaBroker;
let kafka: Kafka;
let svc: TestService;
const corpus = loadCorpus();
const recorded = new Map<string, RecordedTrace>();

beforeAll(async () => {
  broker = await startKafka();
  kafka = kafkaClient(broker, 'corpus-kafka-test', 5);
  // Without credentials: the write path is under test, not the keys.
  svc = await startTestService({
    AUTH_MODE: 'none',
    KAFKA_BROKERS: broker.brokers.join(','),
    KAFKA_TOPIC: TOPIC,
    KAFKA_DLQ_TOPIC: DLQ,
    KAFKA_GROUP_ID: 'corpus-ingester',
  });
  for (const t of corpus.otel) recorded.set(t.name, await recordTrace(t.resource, toSpanSpecs(t)));
});
afterAll(async () => {
  await svc?.stop();
  await broker?.stop();
});

/**
 * Waits until the ingester stored the whole trace (every span, the summary counting them all, the
 * header's name), then checks it. Fails at once, with the reason, when a message of this write
 * went to the dead letter topic instead.
 */
async function expectConsumedAsSent(get: ApiGet, sent: SentTrace, deadLettersBefore: number): Promise<void> {
  const n = sent.spans.length;
  let last = 'not found';
  const outcome = await pollUntil(
    `${sent.name}: trace ${sent.trace_id} with ${n} spans through Kafka`,
    async (): Promise<{ deadLetters: string[] } | 'stored' | undefined> => {
      const letters = await topicMessageCount(kafka, DLQ);
      if (letters > deadLettersBefore) {
        const messages = await readTopic(kafka, DLQ, letters);
        return { deadLetters: messages.map((m) => m.headers[DEAD_LETTER_HEADERS.reason]).slice(deadLettersBefore) };
      }
      const read = await readWholeTrace(get, sent.trace_id, 1000);
      if (read) last = `${read.spans.length} spans read, span_count ${read.detail.span_count}, name ${JSON.stringify(read.detail.name.slice(0, 80))}`;
      return read && read.detail.span_count === n && read.spans.length === n && read.detail.name === wellFormed(sent.summary.name) ? 'stored' : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, describe: () => last },
  );
  if (outcome !== 'stored') expect.fail(`${sent.name}: dead-lettered (${last}): ${outcome.deadLetters.join(' | ').slice(0, 2000)}`);
  await expectTraceStoredAsSent(get, sent);
}

describe('receivers -> Kafka -> ingester -> chDB', () => {
  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/traces/ingest: %s', async (_name, t) => {
    const project = 'corpus-kafka-json-ingest';
    const letters = await topicMessageCount(kafka, DLQ);
    await postCreated(svc, '/api/traces/ingest', project, t.body);
    await expectConsumedAsSent(projectReader(svc, project), sentFromJson(t, 'ingest'), letters);
  });

  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/spans: %s', async (_name, t) => {
    const project = 'corpus-kafka-spans';
    const letters = await topicMessageCount(kafka, DLQ);
    for (const body of toSpansBodies(t)) await postCreated(svc, '/api/spans', project, body);
    await expectConsumedAsSent(projectReader(svc, project), sentFromJson(t, 'spans'), letters);
  });

  const otlp: Array<[string, ExporterKind, () => string]> = [
    ['OTLP/HTTP protobuf', 'http/protobuf', () => svc.otlpHttpUrl!],
    ['OTLP/HTTP JSON', 'http/json', () => svc.otlpHttpUrl!],
    ['OTLP/gRPC', 'grpc', () => svc.otlpGrpcAddress!],
  ];
  const cases = otlp.flatMap(([transport, kind, target]) => corpus.otel.map((t) => [transport, t.name, kind, target, t] as const));

  it.each(cases)('%s: %s', async (transport, _name, kind, target, t) => {
    const project = `corpus-kafka-${transport.toLowerCase().replace(/[^a-z]+/g, '-')}`;
    const rec = recorded.get(t.name)!;
    const letters = await topicMessageCount(kafka, DLQ);
    await exportVia(kind, target(), project, rec.spans);
    await expectConsumedAsSent(projectReader(svc, project), sentFromRecorded(t, rec), letters);
  });

  it('sent nothing to the dead letter topic', async () => {
    expect(await topicMessageCount(kafka, DLQ)).toBe(0);
  });
});
