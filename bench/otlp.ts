import { getJson, meter, round, serverFigures, summarize } from './lib.js';
import { closedLoop, waitVisible } from './load.js';
import { bytesPerSpan, cachedPool } from './otlp-payloads.js';
import { grpcSender, httpSender, otlpSource } from './senders.js';
import { startBenchService } from './service.js';

/**
 * Issue 7's OTLP throughput target: pre-encoded ExportTraceServiceRequests (500 agent-shaped
 * ~2 KB spans, 10-span traces, ids re-stamped per send) from 8 concurrent exporters over OTLP/HTTP
 * protobuf or OTLP/gRPC, each transport against a fresh service. Reports acknowledged and end to
 * end (visible through the API) spans/s, latency, server CPU per span, cores and RSS.
 * Run: `npm run bench -- otlp|otlp-http|otlp-grpc [--quick] [--runs N] [--seconds S] [--concurrency N]
 * [--spans-per-payload N] [--spans-per-trace N] [--span-size 2k|legacy]`.
 */
export type OtlpTransport = 'http' | 'grpc';

export interface OtlpBenchOptions {
  transports: OtlpTransport[];
  /** Concurrent exporters. */
  concurrency: number;
  seconds: number;
  spansPerPayload: number;
  spansPerTrace: number;
  /** Span size preset of lib.ts SPAN_SIZES. */
  spanSize: string;
  /** Distinct templates to cycle through (ids are fresh on every send regardless). */
  poolSize: number;
  /** gRPC channels (HTTP/2 connections) the exporters share round-robin. */
  grpcChannels: number;
  /** Give up waiting for acknowledged traces to become visible after this long. */
  visibleTimeoutSeconds: number;
  /** Extra environment for the service (e.g. BATCH_MAX_PENDING_BYTES). */
  serviceEnv?: Record<string, string>;
}

async function runTransport(transport: OtlpTransport, opts: OtlpBenchOptions) {
  const pool = cachedPool(opts);
  const svc = await startBenchService(opts.serviceEnv);
  try {
    const sender = transport === 'http' ? httpSender(svc.otlpHttpUrl, svc.projectId) : grpcSender(svc.otlpGrpcAddress, svc.projectId, opts.grpcChannels);
    const m = meter(svc.child.pid!);
    const run = await closedLoop(sender, otlpSource(pool), { clients: opts.concurrency, seconds: opts.seconds });
    const load = m.read(run.acked.spans);
    const seen = await waitVisible(svc, run.acked.traces, opts.visibleTimeoutSeconds);
    sender.close();
    // CPU per span counts everything until the acknowledged spans were visible.
    const total = m.read(run.acked.spans);
    m.stop();
    // Spot check: the last acknowledged payload's first trace has all its spans.
    const sample = run.lastTraceId ? await getJson(`${svc.apiUrl}/api/traces/${run.lastTraceId}`, { 'x-project-id': svc.projectId }) : undefined;
    const e2eS = seen.at === undefined ? undefined : (seen.at - run.start) / 1000;
    return {
      transport,
      concurrency: opts.concurrency,
      spans_per_payload: opts.spansPerPayload,
      bytes_per_span: bytesPerSpan(pool),
      load_s: round(run.seconds, 1),
      acked_spans: run.acked.spans,
      acked_traces: run.acked.traces,
      spans_per_s_acked: Math.round(run.acked.spans / run.seconds),
      spans_per_s_e2e: e2eS === undefined ? null : Math.round(run.acked.spans / e2eS),
      visible_lag_s: seen.at === undefined ? null : round((seen.at - run.end) / 1000),
      visible_traces: seen.visible,
      sample_trace_spans: (sample?.body as { span_count?: number } | undefined)?.span_count ?? null,
      latency_ms: summarize(run.latencies),
      outcomes: run.outcomes.toJSON(),
      failed_payloads: run.failed,
      ...serverFigures(svc.child.pid!, load, total),
    };
  } finally {
    await svc.stop();
  }
}

/** One run: each transport against its own fresh service. */
export async function benchOtlp(opts: OtlpBenchOptions) {
  const results: Partial<Record<OtlpTransport, Awaited<ReturnType<typeof runTransport>>>> = {};
  for (const transport of opts.transports) {
    results[transport] = await runTransport(transport, opts);
    console.log(JSON.stringify({ phase: 'otlp', ...results[transport] }));
  }
  return results;
}
