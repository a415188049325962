import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportVia, recordTrace, type ExporterKind, type RecordedTrace } from '../e2e/helpers/otel.js';
import {
  expectTraceStoredAsSent,
  loadCorpus,
  sentFromJson,
  sentFromRecorded,
  toSpansBodies,
  toSpanSpecs,
  type ApiGet,
  type SentTrace,
} from '../helpers/corpus.js';
import { removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir, startTestService, type TestService } from '../helpers/server.js';

/**
 * The corpus of test/fixtures/corpus written by a process that has no chDB of its own: B
 * (`serve --roles api,collector`, an OS process) has CLICKHOUSE_URL pointing at the ClickHouse
 * gateway of A (this process: the service owning the embedded chDB), so B's write path inserts
 * over ClickHouse's HTTP interface (docs/deployment.md, "Sharing embedded chDB between
 * processes"). Every way in of B (JSON ingest, POST /api/spans, OTLP/HTTP protobuf and JSON,
 * OTLP/gRPC) stores the corpus; A's API (in-process reads) and B's (reads over the gateway) both
 * read it back as it was sent, field by field.
 */

const PASSWORD = randomBytes(12).toString('hex');

let A: TestService;
let B: ServiceProcess | undefined;
const bDir = makeDataDir('agent-eval-corpus-gw-b-');
const corpus = loadCorpus();
const recorded = new Map<string, RecordedTrace>();

beforeAll(async () => {
  // Without credentials: each process has its own PostgreSQL, so its own keys; projects are named by header.
  A = await startTestService({ AUTH_MODE: 'none', CLICKHOUSE_GATEWAY_PORT: '0', CLICKHOUSE_GATEWAY_PASSWORD: PASSWORD });
  const url = new URL(A.clickhouseGatewayUrl!);
  url.username = 'default';
  url.password = PASSWORD;
  // B uses A's workflow engine rather than starting a second one: the engine is not under test.
  B = await spawnServiceProcess(bDir, { AGENT_EVAL_ROLES: 'api,collector', CLICKHOUSE_URL: url.toString(), TEMPORAL_ADDRESS: A.temporalAddress! });
  for (const t of corpus.otel) recorded.set(t.name, await recordTrace(t.resource, toSpanSpecs(t)));
});
afterAll(async () => {
  await stopProcess(B);
  await A?.stop();
  removeDir(bDir);
});

/** Reads through A's API (chDB in-process) and through B's (over the gateway). */
const readers = (project: string): Array<[string, ApiGet]> => [
  ['read through A', (pathname) => A.api(pathname, { project })],
  ['read through B', (pathname) => apiFetch(B!.apiUrl!, project, pathname)],
];

async function expectReadBackAsSent(project: string, sent: SentTrace): Promise<void> {
  for (const [how, get] of readers(project)) await expectTraceStoredAsSent(get, { ...sent, name: `${sent.name}, ${how}` });
}

async function postToB(pathname: string, project: string, body: unknown): Promise<void> {
  const res = await apiFetch(B!.apiUrl!, project, pathname, { method: 'POST', json: body });
  const text = await res.text();
  expect(res.status, `POST ${pathname} to B: ${text.slice(0, 1000)}`).toBe(201);
}

describe('a process writing over CLICKHOUSE_URL through the ClickHouse gateway', () => {
  it('B runs no chDB: it stores through A', () => {
    expect(A.clickhouseGatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(B!.clickhouseGatewayUrl).toBeUndefined();
    expect(B!.apiUrl && B!.otlpHttpUrl && B!.otlpGrpcAddress).toBeTruthy();
  });

  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/traces/ingest to B: %s', async (_name, t) => {
    const project = 'corpus-gw-json-ingest';
    await postToB('/api/traces/ingest', project, t.body);
    await expectReadBackAsSent(project, sentFromJson(t, 'ingest'));
  });

  it.each(corpus.json.map((t) => [t.name, t] as const))('POST /api/spans to B: %s', async (_name, t) => {
    const project = 'corpus-gw-spans';
    for (const body of toSpansBodies(t)) await postToB('/api/spans', project, body);
    await expectReadBackAsSent(project, sentFromJson(t, 'spans'));
  });

  const otlp: Array<[string, ExporterKind, () => string]> = [
    ['OTLP/HTTP protobuf', 'http/protobuf', () => B!.otlpHttpUrl!],
    ['OTLP/HTTP JSON', 'http/json', () => B!.otlpHttpUrl!],
    ['OTLP/gRPC', 'grpc', () => B!.otlpGrpcAddress!],
  ];
  const cases = otlp.flatMap(([transport, kind, target]) => corpus.otel.map((t) => [transport, t.name, kind, target, t] as const));

  it.each(cases)('%s to B: %s', async (transport, _name, kind, target, t) => {
    const project = `corpus-gw-${transport.toLowerCase().replace(/[^a-z]+/g, '-')}`;
    const rec = recorded.get(t.name)!;
    await exportVia(kind, target(), project, rec.spans);
    await expectReadBackAsSent(project, sentFromRecorded(t, rec));
  });
});
