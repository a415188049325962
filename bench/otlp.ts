import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import type { BenchService } from './service.js';
import { agent, cpuSeconds, getJson, rssMb, summarize } from './lib.js';
import { buildPool, stamp, type PayloadTemplate } from './otlp-payloads.js';
import { startBenchService } from './service.js';

/**
 * OTLP load generator: pre-encoded protobuf ExportTraceServiceRequests sent at a fixed
 * concurrency over OTLP/HTTP or OTLP/gRPC, each transport against a fresh service. Reports
 * acknowledged and end-to-end (visible through the API) spans/s, latency, server CPU and RSS.
 * Run: `npm run bench -- otlp [--quick] [--concurrency N]`.
 */
export type Transport = 'http' | 'grpc';

export interface OtlpBenchOptions {
  transports: Transport[];
  concurrency: number;
  seconds: number;
  spansPerPayload: number;
  spansPerTrace: number;
  /** Distinct templates to cycle through (ids are fresh on every send regardless). */
  poolSize: number;
  /** gRPC channels (HTTP/2 connections) the workers share round-robin. */
  grpcChannels: number;
  /** Give up waiting for acknowledged traces to become visible after this long. */
  visibleTimeoutSeconds: number;
  /** Extra environment for the service (e.g. BATCH_MAX_PENDING_BYTES, KAFKA_BROKERS). */
  serviceEnv?: Record<string, string>;
}

/** `otlp_http` / `otlp_grpc` from the service's 'agent-eval ready' log line. */
export function otlpAddresses(svc: BenchService): { http: string; grpc: string } {
  return { http: svc.otlpHttpUrl, grpc: svc.otlpGrpcAddress };
}

/** One attempt: acknowledged, refused with a retry hint (ms, if the server gave one), or failed. */
type Attempt = { outcome: string } & ({ kind: 'ok' } | { kind: 'retry'; afterMs?: number } | { kind: 'fail' });
type Sender = { send(body: Buffer): Promise<Attempt>; close(): void };

function httpSender(baseUrl: string, projectId: string): Sender {
  const url = `${baseUrl}/v1/traces`;
  const headers = { 'content-type': 'application/x-protobuf', 'x-project-id': projectId };
  return {
    async send(body) {
      try {
        const res = await request(url, { method: 'POST', body, headers, dispatcher: agent });
        await res.body.dump();
        const outcome = String(res.statusCode);
        if (res.statusCode === 200) return { kind: 'ok', outcome };
        if (res.statusCode !== 429 && res.statusCode !== 503) return { kind: 'fail', outcome };
        const after = Number(res.headers['retry-after']);
        return { kind: 'retry', outcome, afterMs: Number.isFinite(after) ? after * 1000 : undefined };
      } catch (err) {
        return { kind: 'retry', outcome: (err as { code?: string }).code ?? 'network-error' };
      }
    },
    close() {},
  };
}

const passThrough = (b: Buffer) => b;
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

function grpcSender(address: string, projectId: string, channels: number): Sender {
  // A local subchannel pool per client, so each channel is its own HTTP/2 connection.
  const clients = Array.from({ length: channels }, () => new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
  const metadata = new grpc.Metadata();
  metadata.set('x-project-id', projectId);
  let next = 0;
  return {
    send(body) {
      const client = clients[next++ % clients.length];
      return new Promise((resolve) => {
        client.makeUnaryRequest(EXPORT_PATH, passThrough, passThrough, body, metadata, {}, (err) => {
          if (!err) return resolve({ kind: 'ok', outcome: 'OK' });
          const outcome = grpc.status[err.code] ?? String(err.code);
          if (err.code !== grpc.status.RESOURCE_EXHAUSTED && err.code !== grpc.status.UNAVAILABLE) return resolve({ kind: 'fail', outcome: `${outcome}: ${err.details}` });
          const after = Number(err.metadata?.get('retry-after')[0]);
          resolve({ kind: 'retry', outcome, afterMs: Number.isFinite(after) ? after * 1000 : undefined });
        });
      });
    },
    close: () => clients.forEach((c) => c.close()),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_ATTEMPTS = 20;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Sustained load for `seconds`: each worker sends payload after payload, retrying refusals. */
async function load(send: Sender['send'], pool: PayloadTemplate[], opts: OtlpBenchOptions) {
  const deadline = performance.now() + opts.seconds * 1000;
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  const acked = { spans: 0, traces: 0, payloads: 0, retries: 0, failed: 0, lastTraceId: '' };
  let firstSend = 0;
  let seq = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const tpl = pool[seq++ % pool.length];
      const { bytes, traceId } = stamp(tpl);
      firstSend ||= performance.now();
      for (let attempt = 1; ; attempt++) {
        const t = performance.now();
        const res = await send(bytes);
        outcomes[res.outcome] = (outcomes[res.outcome] ?? 0) + 1;
        if (res.kind === 'ok') {
          latencies.push(performance.now() - t);
          acked.spans += tpl.spans;
          acked.traces += tpl.traces;
          acked.payloads++;
          acked.lastTraceId = traceId;
          break;
        }
        if (res.kind === 'fail' || attempt === MAX_ATTEMPTS) {
          acked.failed++;
          break;
        }
        acked.retries++;
        // Honour the server's delay (with jitter so workers do not return in lockstep), else back off.
        const base = res.afterMs ?? Math.min(2000, 50 * 2 ** attempt);
        await sleep(base * (1 + Math.random() * 0.2));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return { firstSend, lastAck: performance.now(), latencies, outcomes, acked };
}

/** Polls the trace total until `traces` are visible; the time they were, or undefined on timeout. */
async function waitVisible(svc: BenchService, traces: number, timeoutS: number): Promise<{ at?: number; visible: number }> {
  const headers = { 'x-project-id': svc.projectId };
  const until = performance.now() + timeoutS * 1000;
  let visible = 0;
  while (performance.now() < until) {
    const res = await getJson(`${svc.apiUrl}/api/traces?limit=1`, headers);
    if (res.status === 200) visible = (res.body as { total: number }).total;
    if (visible >= traces) return { at: performance.now(), visible };
    await sleep(100);
  }
  return { visible };
}

async function runTransport(transport: Transport, pool: PayloadTemplate[], opts: OtlpBenchOptions) {
  const svc = await startBenchService(opts.serviceEnv);
  const pid = svc.child.pid!;
  try {
    const addr = otlpAddresses(svc);
    const sender = transport === 'http' ? httpSender(addr.http, svc.projectId) : grpcSender(addr.grpc, svc.projectId, opts.grpcChannels);
    let peakRss = rssMb(pid);
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 250);
    const cpu0 = cpuSeconds(pid);
    const client0 = process.cpuUsage();
    const run = await load(sender.send, pool, opts);
    const loadS = (run.lastAck - run.firstSend) / 1000;
    const cpuLoad = cpuSeconds(pid) - cpu0;
    const client = process.cpuUsage(client0);
    const rssAfterLoad = rssMb(pid);
    const seen = await waitVisible(svc, run.acked.traces, opts.visibleTimeoutSeconds);
    clearInterval(rssTimer);
    sender.close();
    const cpuTotal = cpuSeconds(pid) - cpu0;
    // Spot check: the last acknowledged payload's first trace has all its spans.
    const sample = run.acked.lastTraceId ? await getJson(`${svc.apiUrl}/api/traces/${run.acked.lastTraceId}`, { 'x-project-id': svc.projectId }) : undefined;
    const sampleSpans = (sample?.body as { span_count?: number } | undefined)?.span_count;
    const e2eS = seen.at === undefined ? undefined : (seen.at - run.firstSend) / 1000;
    return {
      transport,
      concurrency: opts.concurrency,
      spans_per_payload: opts.spansPerPayload,
      payload_kb: Math.round(pool.reduce((n, p) => n + p.bytes.length, 0) / pool.length / 1024),
      load_s: round(loadS, 1),
      acked_spans: run.acked.spans,
      acked_traces: run.acked.traces,
      spans_per_s_acked: Math.round(run.acked.spans / loadS),
      spans_per_s_e2e: e2eS === undefined ? null : Math.round(run.acked.spans / e2eS),
      visible_lag_s: seen.at === undefined ? null : round((seen.at - run.lastAck) / 1000),
      visible_traces: seen.visible,
      sample_trace_spans: sampleSpans ?? null,
      latency_ms: summarize(run.latencies),
      outcomes: run.outcomes,
      retries: run.acked.retries,
      failed_payloads: run.acked.failed,
      server_cpu_cores: round(cpuLoad / loadS),
      server_cpu_ms_per_1k_spans: run.acked.spans ? round((cpuTotal * 1e6) / run.acked.spans, 1) : null,
      server_rss_mb: { after_load: rssAfterLoad, peak: peakRss },
      client_cpu_cores: round((client.user + client.system) / 1e6 / loadS),
    };
  } finally {
    await svc.stop();
  }
}

export async function benchOtlp(opts: OtlpBenchOptions) {
  const t = performance.now();
  const pool = buildPool(opts.poolSize, { spansPerPayload: opts.spansPerPayload, spansPerTrace: opts.spansPerTrace });
  console.log(JSON.stringify({ phase: 'otlp-encode', payloads: pool.length, spans_per_payload: opts.spansPerPayload, ms: Math.round(performance.now() - t) }));
  const results: Partial<Record<Transport, Awaited<ReturnType<typeof runTransport>>>> = {};
  for (const transport of opts.transports) {
    results[transport] = await runTransport(transport, pool, opts);
    console.log(JSON.stringify({ phase: 'otlp', ...results[transport] }));
  }
  return results;
}
