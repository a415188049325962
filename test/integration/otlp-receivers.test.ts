import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BackpressureError, ServiceUnavailableError } from '../../core/errors.js';
import { otlpTypes } from '../../collector/otlp/index.js';
import {
  decodeResponse,
  decodeStatus,
  encodeRequest,
  grpcExport,
  postTraces,
  recordingIngest,
  sampleRequest,
  startGrpcReceiver,
  startHttpReceiver,
} from '../fixtures/otlp/harness.js';
import { agentTrace, expectDecodedAs, exportSpans, makeExporter, recordSpans, type ExporterKind } from '../fixtures/otlp/sdk.js';

const LIMIT = 16 * 1024 * 1024;
const recorder = recordingIngest();
let http: Awaited<ReturnType<typeof startHttpReceiver>>;
let grpcServer: Awaited<ReturnType<typeof startGrpcReceiver>>;

beforeAll(async () => {
  http = await startHttpReceiver(recorder.ingest, LIMIT);
  grpcServer = await startGrpcReceiver(recorder.ingest, LIMIT);
});
afterAll(async () => {
  await http?.close();
  await grpcServer?.close();
});
afterEach(() => recorder.reset());

function targetOf(kind: ExporterKind): string {
  return kind === 'grpc' ? `http://${grpcServer.address}` : http.url;
}

/** After a bad request, both receivers still take a good one. */
async function expectStillServing(): Promise<void> {
  recorder.reset();
  const res = await postTraces(http.url, sampleRequest(1));
  expect(res.status).toBe(200);
  const { error } = await grpcExport(grpcServer.address, sampleRequest(1));
  expect(error).toBeUndefined();
  expect(recorder.calls).toHaveLength(2);
}

describe('real OpenTelemetry JS exporters', () => {
  const cases: Array<[ExporterKind, boolean]> = [
    ['http/json', false],
    ['http/protobuf', false],
    ['http/protobuf', true],
    ['grpc', false],
    ['grpc', true],
  ];
  it.each(cases)('%s (gzip: %s) delivers decoded spans under the header project', async (kind, gzip) => {
    const sent = await recordSpans((tracer) => agentTrace(tracer));
    const exporter = makeExporter(kind, targetOf(kind), `proj-${kind.replace('/', '-')}`, gzip);
    expect(await exportSpans(exporter, sent)).toEqual({ code: 0 });
    await exporter.shutdown();
    expect(recorder.calls.every((c) => c.projectId === `proj-${kind.replace('/', '-')}`)).toBe(true);
    expectDecodedAs(recorder.spans(), sent);
  });

  it.each<ExporterKind>(['http/protobuf', 'grpc'])('%s delivers a 10 MB attribute value intact', async (kind) => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const sent = await recordSpans((tracer) => agentTrace(tracer, big));
    const exporter = makeExporter(kind, targetOf(kind), 'proj-big');
    expect(await exportSpans(exporter, sent)).toEqual({ code: 0 });
    await exporter.shutdown();
    const prompt = recorder.spans().find((s) => s.name === 'chat gpt-4o')?.attributes['gen_ai.prompt'];
    expect(prompt === big).toBe(true);
  });

  it.each<ExporterKind>(['http/json', 'http/protobuf', 'grpc'])('%s delivers a 10,000-span batch in one export', async (kind) => {
    const sent = await recordSpans((tracer) => {
      for (let i = 0; i < 10_000; i++) tracer.startSpan(`step-${i}`, { attributes: { i } }).end();
    });
    const exporter = makeExporter(kind, targetOf(kind), 'proj-batch');
    expect(await exportSpans(exporter, sent)).toEqual({ code: 0 });
    await exporter.shutdown();
    expect(recorder.calls).toHaveLength(1);
    const received = recorder.spans();
    expect(received).toHaveLength(10_000);
    expect(new Set(received.map((s) => s.spanId)).size).toBe(10_000);
    expect(received[9_999].attributes).toEqual({ i: 9_999 });
  });

  it('http exporter retries after a 503 with Retry-After and then succeeds', async () => {
    recorder.next(() => {
      throw new BackpressureError(1);
    });
    const sent = await recordSpans((tracer) => agentTrace(tracer));
    const exporter = makeExporter('http/protobuf', http.url, 'proj-retry');
    expect(await exportSpans(exporter, sent)).toEqual({ code: 0 });
    await exporter.shutdown();
    expect(recorder.calls).toHaveLength(2);
  });
});

describe('OTLP/HTTP answers', () => {
  it('200 with an empty ExportTraceServiceResponse in the request encoding', async () => {
    const res = await postTraces(http.url, sampleRequest(2));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(decodeResponse(new Uint8Array(await res.arrayBuffer()))).toEqual({});
    const json = await postTraces(http.url, JSON.stringify({ resourceSpans: [] }), { contentType: 'application/json; charset=utf-8' });
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({});
  });

  it('partial_success when ingest rejects some spans', async () => {
    const rejected = [{ index: 1, spanId: '0000000000000002', reason: 'start time is missing or out of range' }];
    recorder.next(() => ({ kind: 'partial', accepted: 2, rejected }));
    const res = await postTraces(http.url, sampleRequest(3));
    expect(res.status).toBe(200);
    const body = decodeResponse(new Uint8Array(await res.arrayBuffer()));
    expect(body).toMatchObject({
      partialSuccess: { rejectedSpans: 1, errorMessage: expect.stringContaining('spans[1] (span_id 0000000000000002): start time') as string },
    });

    recorder.next(() => ({ kind: 'partial', accepted: 0, rejected }));
    const json = await postTraces(http.url, JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ spanId: '02' }] }] }] }), {
      contentType: 'application/json',
    });
    expect(await json.json()).toMatchObject({ partialSuccess: { rejectedSpans: '1' } });
  });

  it('uses the default project when the request names none, else 400 Workspace context required', async () => {
    const res = await postTraces(http.url, sampleRequest(1), { project: null });
    expect(res.status).toBe(400);
    expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ code: 3, message: 'Workspace context required' });
    const withDefault = await startHttpReceiver(recorder.ingest, LIMIT, 'default-project');
    try {
      expect((await postTraces(withDefault.url, sampleRequest(1), { project: null })).status).toBe(200);
      expect((await postTraces(`${withDefault.url}`, sampleRequest(1), { project: null, headers: { 'x-workspace-id': 'ws-1' } })).status).toBe(200);
      expect(recorder.calls.map((c) => c.projectId)).toEqual(['default-project', 'ws-1']);
    } finally {
      await withDefault.close();
    }
  });

  describe('bad requests, each followed by a good one', () => {
    afterEach(expectStillServing);

    it('400 google.rpc.Status for malformed protobuf', async () => {
      const res = await postTraces(http.url, Buffer.from('definitely not protobuf'));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ code: 3, message: expect.stringContaining('invalid protobuf') as string });
      expect(recorder.calls).toHaveLength(0);
    });

    it('400 JSON Status for malformed or mistyped OTLP/JSON', async () => {
      const res = await postTraces(http.url, '{"resourceSpans": [', { contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 3, message: expect.stringContaining('invalid JSON') as string });
      const typed = await postTraces(http.url, '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5}]}]}]}', { contentType: 'application/json' });
      expect(await typed.json()).toMatchObject({ code: 3, message: 'resourceSpans[0].scopeSpans[0].spans[0]: expected traceId to be a hex string' });
    });

    it('400 for a truncated gzip body', async () => {
      const gz = zlib.gzipSync(sampleRequest(50));
      const res = await postTraces(http.url, gz.subarray(0, gz.length - 20), { encoding: 'gzip' });
      expect(res.status).toBe(400);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer())).message).toMatch(/invalid gzip/);
    });

    it('415 for another content type or content coding', async () => {
      const res = await postTraces(http.url, 'hello', { contentType: 'text/plain' });
      expect(res.status).toBe(415);
      expect((await postTraces(http.url, sampleRequest(1), { encoding: 'br' })).status).toBe(415);
    });

    it('413 for a body over the limit, declared or streamed', async () => {
      const res = await postTraces(http.url, Buffer.alloc(LIMIT + 1024));
      expect(res.status).toBe(413);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ code: 8 });
      const chunk = new Uint8Array(1024 * 1024);
      let sentChunks = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sentChunks++ < 20) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const streamed = await fetch(`${http.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', 'x-project-id': 'p' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
    });

    it('413 for a gzip bomb, without inflating it', async () => {
      const member = zlib.gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
      const bomb = Buffer.concat(Array.from({ length: 256 }, () => member));
      const res = await postTraces(http.url, bomb, { encoding: 'gzip' });
      expect(res.status).toBe(413);
    });

    it('429 / 503 with Retry-After on backpressure, 503 when a store is down, 500 otherwise', async () => {
      const answers: Array<[() => never, number, string | null]> = [
        [
          () => {
            throw new BackpressureError(2, 429);
          },
          429,
          '2',
        ],
        [
          () => {
            throw new BackpressureError(3);
          },
          503,
          '3',
        ],
        [
          () => {
            throw new ServiceUnavailableError('analytics', new Error('ECONNREFUSED'));
          },
          503,
          '5',
        ],
        [
          () => {
            throw new Error('disk on fire');
          },
          500,
          null,
        ],
      ];
      for (const [behaviour, status, retryAfter] of answers) {
        recorder.next(behaviour);
        const res = await postTraces(http.url, sampleRequest(1));
        expect(res.status).toBe(status);
        expect(res.headers.get('retry-after')).toBe(retryAfter);
        expect(decodeStatus(new Uint8Array(await res.arrayBuffer())).message).not.toContain('disk on fire');
      }
    });

    it('405 for other methods on /v1/traces', async () => {
      expect((await fetch(`${http.url}/v1/traces`)).status).toBe(405);
    });
  });
});

describe('OTLP/gRPC answers', () => {
  afterEach(expectStillServing);

  it('OK with partial_success when ingest rejects some spans', async () => {
    recorder.next(() => ({ kind: 'partial', accepted: 1, rejected: [{ index: 0, spanId: 'ab', reason: 'span_id is all zeroes' }] }));
    const { response, error } = await grpcExport(grpcServer.address, sampleRequest(2));
    expect(error).toBeUndefined();
    expect(decodeResponse(response!)).toMatchObject({ partialSuccess: { rejectedSpans: 1, errorMessage: expect.stringContaining('all zeroes') as string } });
  });

  it('INVALID_ARGUMENT for an undecodable request or a missing project', async () => {
    const bad = await grpcExport(grpcServer.address, Buffer.from('definitely not protobuf'));
    expect(bad.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const noProject = await grpcExport(grpcServer.address, sampleRequest(1), {});
    expect(noProject.error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'Workspace context required' });
  });

  it('takes the project from x-workspace-id metadata', async () => {
    await grpcExport(grpcServer.address, sampleRequest(1), { 'x-workspace-id': 'ws-grpc' });
    expect(recorder.calls[0].projectId).toBe('ws-grpc');
  });

  it('RESOURCE_EXHAUSTED for a message over the limit, compressed or not', async () => {
    const big = encodeRequest({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'x'.repeat(LIMIT + 10) }] }] }] });
    expect((await grpcExport(grpcServer.address, big)).error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const gzipChannel = { 'grpc.default_compression_algorithm': 2 };
    const zipped = await grpcExport(grpcServer.address, big, { 'x-project-id': 'p' }, {}, gzipChannel);
    expect(zipped.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // grpc-js checks the limit again after inflating, which proves the message went gzipped.
    expect(zipped.error?.details).toMatch(/decompresses to a size larger than/);
    expect(recorder.calls).toHaveLength(0);
  });

  it('accepts gzip-compressed messages (grpc-encoding: gzip)', async () => {
    const { error } = await grpcExport(grpcServer.address, sampleRequest(3), { 'x-project-id': 'p-gz' }, {}, { 'grpc.default_compression_algorithm': 2 });
    expect(error).toBeUndefined();
    expect(recorder.spans().map((s) => s.name)).toEqual(['span-0', 'span-1', 'span-2']);
  });

  it('RESOURCE_EXHAUSTED / UNAVAILABLE with RetryInfo on backpressure, UNAVAILABLE when a store is down, INTERNAL otherwise', async () => {
    const answers: Array<[() => never, grpc.status, number | null]> = [
      [
        () => {
          throw new BackpressureError(2, 429);
        },
        grpc.status.RESOURCE_EXHAUSTED,
        2,
      ],
      [
        () => {
          throw new BackpressureError(3);
        },
        grpc.status.UNAVAILABLE,
        3,
      ],
      [
        () => {
          throw new ServiceUnavailableError('analytics');
        },
        grpc.status.UNAVAILABLE,
        5,
      ],
      [
        () => {
          throw new Error('disk on fire');
        },
        grpc.status.INTERNAL,
        null,
      ],
    ];
    const { RetryInfo } = otlpTypes();
    for (const [behaviour, code, delay] of answers) {
      recorder.next(behaviour);
      const { error } = await grpcExport(grpcServer.address, sampleRequest(1));
      expect(error?.code).toBe(code);
      expect(error?.details).not.toContain('disk on fire');
      const [details] = error!.metadata.get('grpc-status-details-bin') as Buffer[];
      if (delay === null) {
        expect(details).toBeUndefined();
        continue;
      }
      const status = decodeStatus(details);
      expect(status).toMatchObject({ code, details: [{ type_url: 'type.googleapis.com/google.rpc.RetryInfo' }] });
      const info = RetryInfo.toObject(RetryInfo.decode((status.details as Array<{ value: Uint8Array }>)[0].value), { longs: Number });
      expect(info).toEqual({ retryDelay: { seconds: delay } });
    }
  });
});

describe('OTLP/gRPC shutdown', () => {
  it('close() drains and frees the port; port 0 picked a real one', async () => {
    const server = await startGrpcReceiver(recorder.ingest, LIMIT);
    expect(server.port).toBeGreaterThan(0);
    expect((await grpcExport(server.address, sampleRequest(1))).error).toBeUndefined();
    await server.close();
    await server.close();
    const after = await grpcExport(server.address, sampleRequest(1), undefined, { deadline: Date.now() + 1000 });
    expect(after.error?.code).toBe(grpc.status.UNAVAILABLE);
  });
});
