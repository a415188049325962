import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import * as grpcJs from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeResponse, decodeStatus, encodeRequest, grpcExport, postTraces } from '../fixtures/otlp/harness.js';
import { exportSpans, makeExporter, type ExporterKind } from '../fixtures/otlp/sdk.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { exportVia, getSpan, getTrace, recordTrace, SpanKind, traceCount, type SpanSpec } from './helpers/otel.js';

/**
 * The OTLP receivers of the whole running service (not a stub ingest) under bad, huge and odd
 * input: every bad request is refused with the OTLP status, stores nothing, and leaves the
 * service ingesting and serving good requests.
 */

/** A small OTLP_MAX_MESSAGE_BYTES so that the limits are cheap to reach. */
const LIMIT = 2 * 1024 * 1024;

let svc: TestService;
let grpcAddress: string;
let otlpHttp: string;
let apiHttp: string;

beforeAll(async () => {
  // Spans may be as large as an export (MAX_SPAN_BYTES above it), so a value just under the export
  // limit is a legal span; the per-span limit itself is tested in test/e2e/oversize-span.test.ts.
  // Without credentials: these tests look at hostile payloads (auth.test.ts exports with keys).
  svc = await startTestService({ AUTH_MODE: 'none', OTLP_MAX_MESSAGE_BYTES: String(LIMIT), MAX_SPAN_BYTES: String(2 * LIMIT) });
  grpcAddress = svc.otlpGrpcAddress!;
  otlpHttp = svc.otlpHttpUrl!;
  apiHttp = svc.apiUrl!;
});
afterAll(async () => {
  await svc?.stop();
});

const hexId = (bytes: number) => randomBytes(bytes).toString('hex');
/** Recent: rows older than the retention are dropped by ClickHouse on insert. */
const nanos = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString();

interface BuiltRequest {
  body: Buffer;
  traceId: string;
}

/**
 * A protobuf ExportTraceServiceRequest of one fresh trace: a root and `children` GenAI chat
 * spans, with optional extra string attributes on the root.
 */
function protoRequest(opts: { children?: number; rootAttributes?: Record<string, string> } = {}): BuiltRequest {
  const traceId = hexId(16);
  const rootId = hexId(8);
  const start = Date.now() - 30_000;
  const kv = (key: string, value: Record<string, unknown>) => ({ key, value });
  const spans = [
    {
      traceId: Buffer.from(traceId, 'hex'),
      spanId: Buffer.from(rootId, 'hex'),
      name: 'robust-root',
      kind: 1,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(start + 1000),
      attributes: Object.entries(opts.rootAttributes ?? {}).map(([k, v]) => kv(k, { stringValue: v })),
    },
    ...Array.from({ length: opts.children ?? 1 }, (_, i) => ({
      traceId: Buffer.from(traceId, 'hex'),
      spanId: Buffer.from(hexId(8), 'hex'),
      parentSpanId: Buffer.from(rootId, 'hex'),
      name: 'chat gpt-4o',
      kind: 3,
      startTimeUnixNano: nanos(start + 10 + i),
      endTimeUnixNano: nanos(start + 500 + i),
      attributes: [
        kv('gen_ai.operation.name', { stringValue: 'chat' }),
        kv('gen_ai.request.model', { stringValue: 'gpt-4o' }),
        kv('gen_ai.usage.input_tokens', { intValue: 10 }),
        kv('gen_ai.usage.output_tokens', { intValue: 2 }),
      ],
    })),
  ];
  const body = encodeRequest({
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', { stringValue: 'robustness-agent' })] },
        scopeSpans: [{ scope: { name: 'robustness', version: '1.0.0' }, spans }],
      },
    ],
  });
  return { body, traceId };
}

/** 'equal', or where and how two long strings differ. */
function describeDifference(actual: string | undefined, expected: string): string {
  if (actual === expected) return 'equal';
  if (actual === undefined) return 'missing';
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  return `length ${actual.length} (expected ${expected.length}), first difference at ${i}: ${JSON.stringify(actual.slice(Math.max(0, i - 20), i + 40))}`;
}

/** The project has no trace at all, and none of these trace ids exists in it. */
async function expectNothingStored(project: string, ...traceIds: string[]): Promise<void> {
  expect(await traceCount(svc, project), `traces in ${project}`).toBe(0);
  for (const id of traceIds) expect((await svc.api(`/api/traces/${id}`, { project })).status, `trace ${id}`).toBe(404);
}

/** Good requests over OTLP/HTTP (both ports) and OTLP/gRPC are still taken and served. */
async function expectStillServing(): Promise<void> {
  const project = 'robust-good';
  const viaHttp = protoRequest();
  expect((await postTraces(otlpHttp, viaHttp.body, { project })).status).toBe(200);
  const viaApi = protoRequest();
  expect((await postTraces(apiHttp, viaApi.body, { project })).status).toBe(200);
  const viaGrpc = protoRequest();
  expect((await grpcExport(grpcAddress, viaGrpc.body, { 'x-project-id': project })).error).toBeUndefined();
  for (const { traceId } of [viaHttp, viaApi, viaGrpc]) {
    expect(await getTrace(svc, traceId, project)).toMatchObject({ span_count: 2, llm_call_count: 1, total_input_tokens: 10 });
  }
}

describe('bad requests are refused, store nothing, and the service carries on', () => {
  afterEach(expectStillServing);

  it('malformed protobuf: HTTP 400 google.rpc.Status on both ports, gRPC INVALID_ARGUMENT', async () => {
    const project = 'robust-bad-proto';
    const good = protoRequest({ children: 3 });
    // A real request cut inside its last span, and bytes that are no protobuf at all.
    const truncated = good.body.subarray(0, good.body.length - 7);
    for (const body of [truncated, Buffer.from('definitely not protobuf')]) {
      for (const base of [otlpHttp, apiHttp]) {
        const res = await postTraces(base, body, { project });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/x-protobuf');
        expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({
          code: 3,
          message: expect.stringContaining('invalid protobuf') as string,
        });
      }
      const { error } = await grpcExport(grpcAddress, body, { 'x-project-id': project });
      expect(error?.code).toBe(grpcJs.status.INVALID_ARGUMENT);
    }
    await expectNothingStored(project, good.traceId);
  });

  it('malformed or mistyped OTLP/JSON: 400, and the valid spans of the same request are not stored either', async () => {
    const project = 'robust-bad-json';
    const traceId = hexId(16);
    const start = Date.now() - 20_000;
    const okSpan = { traceId, spanId: hexId(8), name: 'fine', startTimeUnixNano: nanos(start), endTimeUnixNano: nanos(start + 5) };
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [okSpan, { ...okSpan, spanId: hexId(8), attributes: [{ key: 'n', value: { intValue: 'twelve' } }] }] }] }],
    };
    const text = JSON.stringify(request);

    const cut = await postTraces(otlpHttp, text.slice(0, text.length - 10), { contentType: 'application/json', project });
    expect(cut.status).toBe(400);
    expect(await cut.json()).toMatchObject({ code: 3, message: expect.stringContaining('invalid JSON') as string });

    const mistyped = await postTraces(apiHttp, text, { contentType: 'application/json', project });
    expect(mistyped.status).toBe(400);
    expect(await mistyped.json()).toMatchObject({ code: 3, message: expect.stringContaining('resourceSpans[0].scopeSpans[0].spans[1]') as string });
    await expectNothingStored(project, traceId);
  });

  it('truncated gzip: 400 invalid gzip body', async () => {
    const project = 'robust-bad-gzip';
    const good = protoRequest({ children: 50 });
    const gz = zlib.gzipSync(good.body);
    for (const body of [gz.subarray(0, gz.length - 20), gz.subarray(0, Math.floor(gz.length / 2))]) {
      const res = await postTraces(otlpHttp, body, { encoding: 'gzip', project });
      expect(res.status).toBe(400);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer())).message).toMatch(/invalid gzip/);
    }
    // Not gzip at all, declared as gzip.
    const plain = await postTraces(apiHttp, good.body, { encoding: 'gzip', project });
    expect(plain.status).toBe(400);
    await expectNothingStored(project, good.traceId);
  });

  it('wrong content type or content coding: 415, even for a valid body', async () => {
    const project = 'robust-bad-type';
    const good = protoRequest();
    for (const contentType of ['text/plain', 'application/octet-stream', 'application/grpc', 'multipart/form-data; boundary=x']) {
      const res = await postTraces(otlpHttp, good.body, { contentType, project });
      expect(res.status, contentType).toBe(415);
      expect(await res.json()).toMatchObject({ message: expect.stringContaining('Content-Type') as string });
    }
    const noType = await fetch(`${apiHttp}/v1/traces`, { method: 'POST', headers: { 'x-project-id': project }, body: Uint8Array.from(good.body) });
    expect(noType.status).toBe(415);
    expect((await postTraces(otlpHttp, good.body, { encoding: 'br', project })).status).toBe(415);
    await expectNothingStored(project, good.traceId);
  });

  it(`a body over OTLP_MAX_MESSAGE_BYTES (${LIMIT} B): HTTP 413 declared, streamed or gzipped; gRPC RESOURCE_EXHAUSTED`, async () => {
    const project = 'robust-oversize';
    const big = protoRequest({ rootAttributes: { 'gen_ai.prompt': 'y'.repeat(LIMIT + 1024) } });
    expect(big.body.length).toBeGreaterThan(LIMIT);

    for (const base of [otlpHttp, apiHttp]) {
      const res = await postTraces(base, big.body, { project });
      expect(res.status).toBe(413);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ code: 8 });
    }
    // Small on the wire, over the limit once inflated.
    const gz = zlib.gzipSync(big.body);
    expect(gz.length).toBeLessThan(LIMIT);
    expect((await postTraces(otlpHttp, gz, { encoding: 'gzip', project })).status).toBe(413);
    // No Content-Length: the limit holds on the streamed bytes.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= big.body.length) return controller.close();
        controller.enqueue(Uint8Array.from(big.body.subarray(sent, sent + 256 * 1024)));
        sent += 256 * 1024;
      },
    });
    const streamed = await fetch(`${otlpHttp}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'x-project-id': project },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);

    const { error } = await grpcExport(grpcAddress, big.body, { 'x-project-id': project });
    expect(error?.code).toBe(grpcJs.status.RESOURCE_EXHAUSTED);
    const zipped = await grpcExport(grpcAddress, big.body, { 'x-project-id': project }, {}, { 'grpc.default_compression_algorithm': 2 });
    expect(zipped.error?.code).toBe(grpcJs.status.RESOURCE_EXHAUSTED);
    await expectNothingStored(project, big.traceId);
  });

  it('a 10 MB attribute from the real SDK exporters is refused (the export fails, not retried forever) and nothing is kept', async () => {
    const project = 'robust-10mb';
    const rec = await recordTrace({ 'service.name': 'huge-prompt-agent' }, [
      { key: 'root', name: 'invoke_agent huge', scope: { name: 'huge' }, start: 0, end: 100 },
      {
        key: 'chat',
        parent: 'root',
        name: 'chat gpt-4o',
        kind: SpanKind.CLIENT,
        scope: { name: 'huge' },
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.prompt': 'x'.repeat(10 * 1024 * 1024) },
        start: 1,
        end: 99,
      },
    ]);
    const attempts: Array<[ExporterKind, string, boolean]> = [
      ['http/protobuf', otlpHttp, false],
      ['http/protobuf', apiHttp, true],
      ['http/json', otlpHttp, true],
      ['grpc', `http://${grpcAddress}`, false],
      ['grpc', `http://${grpcAddress}`, true],
    ];
    for (const [kind, target, gzip] of attempts) {
      const exporter = makeExporter(kind, target, project, gzip);
      try {
        const result = await exportSpans(exporter, rec.spans);
        expect(result.code, `${kind} gzip=${gzip}`).toBe(1);
      } finally {
        await exporter.shutdown();
      }
    }
    await expectNothingStored(project, rec.traceId);
  });

  it('spans the ingest path rejects (all-zero ids, no start time) are reported in partial_success; the rest is stored', async () => {
    const project = 'robust-partial';
    const traceId = hexId(16);
    const start = Date.now() - 10_000;
    const good = { traceId, spanId: hexId(8), name: 'kept', startTimeUnixNano: nanos(start), endTimeUnixNano: nanos(start + 40) };
    const request = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [{ ...good, spanId: '0000000000000000', name: 'zero-id' }, good, { ...good, spanId: hexId(8), name: 'no-start', startTimeUnixNano: '0' }],
            },
          ],
        },
      ],
    };
    const res = await postTraces(otlpHttp, JSON.stringify(request), { contentType: 'application/json', project });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      partialSuccess: { rejectedSpans: '2', errorMessage: expect.stringMatching(/spans\[0\].*all zeroes.*spans\[2\].*start time/) as string },
    });
    const trace = await getTrace(svc, traceId, project);
    expect(trace).toMatchObject({ name: 'kept', span_count: 1, duration_ms: 40 });
    expect(trace.spans.map((s) => s.name)).toEqual(['kept']);

    // The same over gRPC, protobuf-encoded.
    const pb = protoRequest();
    const zeroed = encodeRequest({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.alloc(16),
                  spanId: Buffer.from(hexId(8), 'hex'),
                  name: 'zero-trace',
                  startTimeUnixNano: nanos(start),
                  endTimeUnixNano: nanos(start + 1),
                },
              ],
            },
          ],
        },
      ],
    });
    const both = Buffer.concat([pb.body, zeroed]);
    const { response, error } = await grpcExport(grpcAddress, both, { 'x-project-id': project });
    expect(error).toBeUndefined();
    expect(decodeResponse(response!)).toMatchObject({
      partialSuccess: { rejectedSpans: 1, errorMessage: expect.stringContaining('trace_id is all zeroes') as string },
    });
    expect(await getTrace(svc, pb.traceId, project)).toMatchObject({ span_count: 2 });
    expect((await svc.api(`/api/traces/${'0'.repeat(32)}`, { project })).status).toBe(404);
  });
});

describe('large but legal', () => {
  it.each([
    ['http/protobuf', 'gen_ai.prompt'],
    ['http/protobuf', 'app.retrieved_document'],
    ['grpc', 'gen_ai.prompt'],
    ['grpc', 'app.retrieved_document'],
  ] as const)('a value just under the limit, %s, in %s: accepted and read back intact', async (kind, key) => {
    const project = `robust-near-limit-${kind === 'grpc' ? 'grpc' : 'http'}-${key === 'gen_ai.prompt' ? 'prompt' : 'doc'}`;
    // Varied text with markers at both ends, so truncation or mangling anywhere shows.
    const size = LIMIT - 8 * 1024;
    const chunk = 'The quick brown fox jumps over the lazy dog 0123456789. ';
    const big = `<<begin>>${chunk.repeat(Math.ceil(size / chunk.length)).slice(0, size - 18)}<<end>>`;
    expect(big.length).toBe(size - 2);
    const rec = await recordTrace({ 'service.name': 'big-prompt-agent' }, [
      { key: 'root', name: 'invoke_agent big', scope: { name: 'big' }, attributes: { 'gen_ai.operation.name': 'invoke_agent' }, start: 0, end: 100 },
      {
        key: 'chat',
        parent: 'root',
        name: 'chat gpt-4o',
        kind: SpanKind.CLIENT,
        scope: { name: 'big' },
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 500_000, [key]: big },
        start: 10,
        end: 90,
      },
    ]);
    await exportVia(kind, kind === 'grpc' ? grpcAddress : otlpHttp, project, rec.spans);
    const trace = await getTrace(svc, rec.traceId, project);
    expect(trace).toMatchObject({ span_count: 2, llm_call_count: 1, total_input_tokens: 500_000 });
    // The trace view folds long text (docs/api.md); the span endpoint returns it whole.
    const chat = await getSpan(svc, rec.ids.chat, project);
    // Compared by length and first differing position: a 2 MB diff is no use to anyone.
    if (key === 'gen_ai.prompt') {
      // The prompt becomes the span's input, stored there once (docs/conventions.md "Large values are stored once").
      expect(describeDifference(chat.input, big), 'input').toBe('equal');
      expect(chat.attributes['agent_eval.input_source']).toBe('gen_ai.prompt');
      expect(chat.attributes['gen_ai.prompt']).toBeUndefined();
    } else {
      // An attribute no convention reads stays an attribute, intact.
      expect(describeDifference(chat.attributes[key], big), `attribute ${key}`).toBe('equal');
      expect(chat.input).toBe('');
    }
  });

  it.each([
    ['http/protobuf', 'dedicated OTLP/HTTP port'],
    ['grpc', 'OTLP/gRPC port'],
  ] as const)('a 10,000-span batch in one export, %s to the %s: one trace of 10,000 spans', async (kind, _where) => {
    const project = `robust-10k-${kind === 'grpc' ? 'grpc' : 'http'}`;
    const specs: SpanSpec[] = [
      {
        key: 'root',
        name: 'invoke_agent bulk',
        scope: { name: 'bulk', version: '1' },
        attributes: { 'gen_ai.operation.name': 'invoke_agent' },
        start: 0,
        end: 20_000,
      },
    ];
    for (let i = 1; i < 10_000; i++) {
      const attributes =
        i % 100 === 1
          ? { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1, i }
          : i % 100 === 2
            ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', i }
            : { i };
      specs.push({ key: `s${i}`, parent: 'root', name: `step-${i}`, scope: { name: 'bulk', version: '1' }, attributes, start: 1 + i, end: 2 + i });
    }
    const rec = await recordTrace({ 'service.name': 'bulk-agent' }, specs);
    expect(rec.spans).toHaveLength(10_000);
    await exportVia(kind, kind === 'grpc' ? grpcAddress : otlpHttp, project, rec.spans);

    const trace = await getTrace(svc, rec.traceId, project, '?spans_limit=10000');
    expect(trace).toMatchObject({
      name: 'invoke_agent bulk',
      span_count: 10_000,
      llm_call_count: 100,
      tool_call_count: 100,
      total_input_tokens: 1000,
      total_output_tokens: 100,
      duration_ms: 20_000,
    });
    expect(trace.spans).toHaveLength(10_000);
    expect(new Set(trace.spans.map((s) => s.span_id)).size).toBe(10_000);
    expect(trace.spans.filter((s) => s.parent_span_id === rec.ids.root)).toHaveLength(9_999);
    const last = trace.spans.find((s) => s.span_id === rec.ids.s9999)!;
    expect(last).toMatchObject({ name: 'step-9999', attributes: { i: '9999' } });
    expect(await traceCount(svc, project)).toBe(1);
  });
});

describe('OTLP/JSON as other encoders write it', () => {
  it('snake_case field names, string integers, enum names and numbers: decoded and stored alike', async () => {
    const project = 'robust-json-forms';
    const traceId = hexId(16);
    const rootId = hexId(8);
    const chatId = hexId(8);
    const start = Date.now() - 15_000;
    const body = {
      resource_spans: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { string_value: 'json-agent' } },
              { key: 'host.cpus', value: { int_value: '8' } },
            ],
          },
          scope_spans: [
            {
              scope: { name: 'hand-written-exporter', version: '0.0.1' },
              spans: [
                {
                  trace_id: traceId,
                  span_id: rootId,
                  name: 'invoke_agent json_agent',
                  kind: 'SPAN_KIND_SERVER',
                  start_time_unix_nano: nanos(start),
                  end_time_unix_nano: nanos(start + 2500),
                  attributes: [{ key: 'gen_ai.operation.name', value: { string_value: 'invoke_agent' } }],
                  status: { code: 'STATUS_CODE_OK' },
                },
                {
                  trace_id: traceId,
                  span_id: chatId,
                  parent_span_id: rootId,
                  name: 'chat gpt-4o',
                  kind: 3,
                  start_time_unix_nano: nanos(start + 100),
                  end_time_unix_nano: nanos(start + 1350),
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { string_value: 'chat' } },
                    { key: 'gen_ai.request.model', value: { string_value: 'gpt-4o' } },
                    { key: 'gen_ai.usage.input_tokens', value: { int_value: '42' } },
                    { key: 'gen_ai.usage.output_tokens', value: { int_value: 7 } },
                    { key: 'gen_ai.request.temperature', value: { double_value: '0.5' } },
                    { key: 'gen_ai.request.stream', value: { bool_value: 'true' } },
                    { key: 'app.big_int', value: { int_value: '9007199254740993' } },
                    { key: 'gen_ai.response.finish_reasons', value: { array_value: { values: [{ string_value: 'stop' }] } } },
                    { key: 'app.meta', value: { kvlist_value: { values: [{ key: 'tier', value: { string_value: 'gold' } }] } } },
                  ],
                  events: [
                    {
                      time_unix_nano: nanos(start + 101),
                      name: 'gen_ai.content.prompt',
                      attributes: [{ key: 'gen_ai.prompt', value: { string_value: 'What is 2+2?' } }],
                    },
                    {
                      time_unix_nano: nanos(start + 1349),
                      name: 'gen_ai.content.completion',
                      attributes: [{ key: 'gen_ai.completion', value: { string_value: '4' } }],
                    },
                  ],
                  status: { code: 2, message: 'content filter' },
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await postTraces(apiHttp, JSON.stringify(body), { contentType: 'application/json', project });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});

    const trace = await getTrace(svc, traceId, project);
    expect(trace).toMatchObject({
      name: 'invoke_agent json_agent',
      status: 'error',
      duration_ms: 2500,
      span_count: 2,
      llm_call_count: 1,
      total_input_tokens: 42,
      total_output_tokens: 7,
    });
    expect(trace.start_time).toBe(new Date(start).toISOString());
    const root = trace.spans.find((s) => s.span_id === rootId)!;
    expect(root).toMatchObject({ kind: 'server', status: 'ok', parent_span_id: null, type: 'span', convention: 'genai' });
    const chat = trace.spans.find((s) => s.span_id === chatId)!;
    expect(chat).toMatchObject({
      parent_span_id: rootId,
      kind: 'client',
      status: 'error',
      status_message: 'content filter',
      type: 'generation',
      convention: 'genai',
      model: 'gpt-4o',
      input_tokens: 42,
      output_tokens: 7,
      duration_ms: 1250,
      input: 'What is 2+2?',
      output: '4',
      scope: { name: 'hand-written-exporter', version: '0.0.1' },
      resource_attributes: { 'service.name': 'json-agent', 'host.cpus': '8' },
    });
    expect(chat.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': '42',
      'gen_ai.usage.output_tokens': '7',
      'gen_ai.request.temperature': '0.5',
      'gen_ai.request.stream': 'true',
      'app.big_int': '9007199254740993',
      'gen_ai.response.finish_reasons': '["stop"]',
      'app.meta': '{"tier":"gold"}',
    });
    expect(chat.events).toEqual([
      { name: 'gen_ai.content.prompt', time: start + 101, attributes: { 'gen_ai.prompt': 'What is 2+2?' } },
      { name: 'gen_ai.content.completion', time: start + 1349, attributes: { 'gen_ai.completion': '4' } },
    ]);
  });
});
