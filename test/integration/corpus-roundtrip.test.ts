import { afterAll, beforeAll, describe, it } from 'vitest';
import { exportVia, recordTrace, type ExporterKind, type RecordedTrace } from '../e2e/helpers/otel.js';
import { expectTraceStoredAsSent, loadCorpus, sentFromJson, sentFromRecorded, toSpansBodies, toSpanSpecs, projectReader } from '../helpers/corpus.js';
import { postCreated } from '../helpers/test-service-hooks.js';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * Every way in of one real service (chDB, embedded PostgreSQL) stores the corpus of
 * test/fixtures/corpus and reads it back as it was sent, field by field: JSON ingest, POST
 * /api/spans, OTLP/HTTP protobuf and JSON (on the OTLP port and on the API port) and OTLP/gRPC,
 * through the real OpenTelemetry SDK and exporters. Texts with blank lines, CR, NUL, backslashes,
 * quotes, every script and a ~600 KB answer; the trace read page by page, every span whole.
 * Each way in writes to a project of its own, so each reads back only what it stored.
 */

let svc: TestService;
const corpus = loadCorpus();
const recorded = new Map<string, RecordedTrace>();

beforeAll(async () => {
  // Without credentials: what is under test is the write path, not the keys (auth.test.ts).
  svc = await startTestService({ AUTH_MODE: 'none' });
  // Recorded once by the real SDK; each transport exports the same spans under its own project.
  for (const t of corpus.otel) recorded.set(t.name, await recordTrace(t.resource, toSpanSpecs(t)));
});
afterAll(async () => {
  await svc?.stop();
});

describe('the SPEC JSON routes', () => {
  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/traces/ingest: %s', async (_name, t) => {
    const project = 'corpus-json-ingest';
    await postCreated(svc, '/api/traces/ingest', project, t.body);
    await expectTraceStoredAsSent(projectReader(svc, project), sentFromJson(t, 'ingest'));
  });

  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/spans (several spans, then one alone): %s', async (_name, t) => {
    const project = 'corpus-spans';
    for (const body of toSpansBodies(t)) await postCreated(svc, '/api/spans', project, body);
    await expectTraceStoredAsSent(projectReader(svc, project), sentFromJson(t, 'spans'));
  });
});

/** Each OTLP way in: the exporter, and where it sends. */
const OTLP: Array<{ name: string; kind: ExporterKind; target: () => string }> = [
  { name: 'OTLP/HTTP protobuf', kind: 'http/protobuf', target: () => svc.otlpHttpUrl! },
  { name: 'OTLP/HTTP JSON', kind: 'http/json', target: () => svc.otlpHttpUrl! },
  { name: 'OTLP/gRPC', kind: 'grpc', target: () => svc.otlpGrpcAddress! },
  { name: 'OTLP/HTTP protobuf on the API port', kind: 'http/protobuf', target: () => svc.apiUrl! },
  { name: 'OTLP/HTTP JSON on the API port', kind: 'http/json', target: () => svc.apiUrl! },
];

describe.each(OTLP)('$name, the real OpenTelemetry exporter', ({ name, kind, target }) => {
  const project = `corpus-${name.toLowerCase().replace(/[^a-z]+/g, '-')}`;

  it.each(corpus.otel.map((t) => [t.name, t] as const))('%s', async (_name, t) => {
    const rec = recorded.get(t.name)!;
    await exportVia(kind, target(), project, rec.spans);
    await expectTraceStoredAsSent(projectReader(svc, project), sentFromRecorded(t, rec));
  });
});
