import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import { agent, agentTrace, sleep, spanSize, type SpanSize } from './lib.js';
import { cachedPool, stamp, type PayloadShape, type PayloadTemplate } from './otlp-payloads.js';
import { retryInfoMs } from './proto.js';
import type { BenchService } from './service.js';

/**
 * The three ingress transports behind one interface, and payload sources for them. A send is one
 * attempt: acknowledged, refused with a retry hint (ms, when the server gave one), or failed.
 */
export type Transport = 'http' | 'grpc' | 'json';
export type Attempt = { outcome: string } & ({ kind: 'ok' } | { kind: 'retry'; afterMs?: number } | { kind: 'fail' });
export type Sender = { send(body: Buffer | string): Promise<Attempt>; close(): void };

/** One request's worth of data, with the traces it carries (id and span count). */
export interface Job {
  body: Buffer | string;
  spans: number;
  traces: Array<{ id: string; spans: number }>;
}

const networkError = (err: unknown): Attempt => ({ kind: 'retry', outcome: (err as { code?: string }).code ?? 'network-error' });

async function httpAttempt(url: string, body: Buffer | string, headers: Record<string, string>, okStatus: number): Promise<Attempt> {
  try {
    const res = await request(url, { method: 'POST', body, headers, dispatcher: agent });
    await res.body.dump();
    const outcome = String(res.statusCode);
    if (res.statusCode === okStatus) return { kind: 'ok', outcome };
    if (res.statusCode !== 429 && res.statusCode !== 503) return { kind: 'fail', outcome };
    const after = Number(res.headers['retry-after']);
    return { kind: 'retry', outcome, afterMs: res.headers['retry-after'] !== undefined && Number.isFinite(after) ? after * 1000 : undefined };
  } catch (err) {
    return networkError(err);
  }
}

/** OTLP/HTTP protobuf, POST /v1/traces. */
export function httpSender(baseUrl: string, projectId: string): Sender {
  const headers = { 'content-type': 'application/x-protobuf', 'x-project-id': projectId };
  return { send: (body) => httpAttempt(`${baseUrl}/v1/traces`, body, headers, 200), close() {} };
}

/** JSON ingest, POST /api/traces/ingest (201 when stored). */
export function jsonSender(apiUrl: string, projectId: string, extraHeaders: Record<string, string> = {}): Sender {
  const headers = { 'content-type': 'application/json', 'x-project-id': projectId, ...extraHeaders };
  return { send: (body) => httpAttempt(`${apiUrl}/api/traces/ingest`, body, headers, 201), close() {} };
}

const passThrough = (b: Buffer) => b;
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** OTLP/gRPC over `channels` HTTP/2 connections, round-robin. */
export function grpcSender(address: string, projectId: string, channels: number): Sender {
  // A local subchannel pool per client, so each channel is its own HTTP/2 connection.
  const clients = Array.from(
    { length: channels },
    () => new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1, 'grpc.max_send_message_length': -1 }),
  );
  const metadata = new grpc.Metadata();
  metadata.set('x-project-id', projectId);
  let next = 0;
  return {
    send(body) {
      const client = clients[next++ % clients.length];
      return new Promise((resolve) => {
        client.makeUnaryRequest(EXPORT_PATH, passThrough, passThrough, typeof body === 'string' ? Buffer.from(body) : body, metadata, {}, (err) => {
          if (!err) return resolve({ kind: 'ok', outcome: 'OK' });
          const outcome = grpc.status[err.code] ?? String(err.code);
          if (err.code !== grpc.status.RESOURCE_EXHAUSTED && err.code !== grpc.status.UNAVAILABLE)
            return resolve({ kind: 'fail', outcome: `${outcome}: ${err.details}` });
          // The hint: google.rpc.RetryInfo in grpc-status-details-bin, else a retry-after header.
          const details = err.metadata?.get('grpc-status-details-bin')[0];
          const header = err.metadata?.get('retry-after')[0];
          const afterMs = (Buffer.isBuffer(details) ? retryInfoMs(details) : undefined) ?? (header === undefined ? undefined : Number(header) * 1000);
          resolve({ kind: 'retry', outcome, afterMs: Number.isFinite(afterMs) ? afterMs : undefined });
        });
      });
    },
    close: () => clients.forEach((c) => c.close()),
  };
}

/** Pre-encoded OTLP payloads, ids re-stamped on every call. */
export function otlpSource(pool: PayloadTemplate[]): () => Job {
  let seq = 0;
  return () => {
    const tpl = pool[seq++ % pool.length];
    const { bytes, traces } = stamp(tpl);
    return { body: bytes, spans: tpl.spans, traces };
  };
}

/**
 * JSON ingest bodies of `spansPerTrace`-span traces. Bodies are built once and only their trace
 * ids change: the load generator shares the cores with the service, and building 20 KB of JSON
 * per request would measure the client.
 */
export function jsonSource(spansPerTrace: number, size: SpanSize, prefix = `bench-${Date.now().toString(36)}`): () => Job {
  const bodies = Array.from({ length: 64 }, (_, i) => JSON.stringify(agentTrace('TRACE-ID', spansPerTrace, Date.now() - 60_000 + i, i, size)));
  let seq = 0;
  return () => {
    const n = seq++;
    const id = `${prefix}-${n.toString(16).padStart(8, '0')}`;
    return { body: bodies[n % bodies.length].replaceAll('TRACE-ID', id), spans: spansPerTrace, traces: [{ id, spans: spansPerTrace }] };
  };
}

/** Tallies of every attempt's outcome; refusals are 429/503 (RESOURCE_EXHAUSTED/UNAVAILABLE). */
export class Outcomes {
  readonly counts: Record<string, number> = {};
  refused = 0;
  refusedWithRetryHint = 0;
  networkErrors = 0;

  add(a: Attempt): void {
    this.counts[a.outcome] = (this.counts[a.outcome] ?? 0) + 1;
    if (a.kind !== 'retry') return;
    if (/^(429|503|RESOURCE_EXHAUSTED|UNAVAILABLE)$/.test(a.outcome)) {
      this.refused++;
      if (a.afterMs !== undefined) this.refusedWithRetryHint++;
    } else this.networkErrors++;
  }

  toJSON() {
    return { counts: this.counts, refused: this.refused, refused_with_retry_after: this.refusedWithRetryHint, network_errors: this.networkErrors };
  }
}

const MAX_ATTEMPTS = 20;

/**
 * Sends one body until it is acknowledged, like an OTel exporter: honours the server's delay
 * (with jitter so clients do not return in lockstep), else backs off; gives up after 20 attempts.
 */
export async function deliver(sender: Sender, body: Buffer | string, outcomes: Outcomes): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const res = await sender.send(body);
    outcomes.add(res);
    if (res.kind === 'ok') return true;
    if (res.kind === 'fail' || attempt === MAX_ATTEMPTS) return false;
    await sleep((res.afterMs ?? Math.min(2000, 50 * 2 ** attempt)) * (1 + Math.random() * 0.2));
  }
}

/** The sender of a transport, connected to a running service. */
export function senderFor(transport: Transport, svc: BenchService, grpcChannels = 4): Sender {
  if (transport === 'http') return httpSender(svc.otlpHttpUrl, svc.projectId);
  if (transport === 'grpc') return grpcSender(svc.otlpGrpcAddress, svc.projectId, grpcChannels);
  return jsonSender(svc.apiUrl, svc.projectId);
}

/** Requests for a transport: OTLP payloads of `shape`, or JSON traces of `shape.spansPerTrace` spans. */
export function sourceFor(transport: Transport, shape: PayloadShape): () => Job {
  return transport === 'json' ? jsonSource(shape.spansPerTrace, spanSize(shape.spanSize)) : otlpSource(cachedPool(shape));
}

export function parseTransport(value: string): Transport {
  if (value !== 'http' && value !== 'grpc' && value !== 'json') throw new Error(`unknown transport '${value}'; one of: http, grpc, json`);
  return value;
}
