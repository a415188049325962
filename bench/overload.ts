import { meter, round, summarize } from './lib.js';
import { closedLoop, verifyAcked, waitVisible } from './load.js';
import type { PayloadShape } from './otlp-payloads.js';
import { senderFor, sourceFor, type Transport } from './senders.js';
import { startBenchService } from './service.js';

/**
 * Issue 7's overload target: a burst at `factor` (10) times the normal concurrency after a
 * normal-load phase, against a fresh service. Reports the service's peak RSS (sampled every
 * 250 ms), the 429/503 (RESOURCE_EXHAUSTED/UNAVAILABLE) answers and how many carried Retry-After
 * (RetryInfo), and that nothing acknowledged is lost: every acknowledged trace of both phases must
 * be visible, a sample of `verify` of them read back whole through GET /api/traces/{id}.
 * Clients retry refusals like OTel exporters (Retry-After with jitter, at most 20 attempts).
 * Run: `npm run bench -- overload [--transport http|grpc|json] [--concurrency N] [--factor 10]
 * [--seconds S] [--burst-seconds S] [--verify N] [--runs N] [--quick]`.
 */
export interface OverloadBenchOptions extends PayloadShape {
  transport: Transport;
  concurrency: number;
  factor: number;
  seconds: number;
  burstSeconds: number;
  verify: number;
  visibleTimeoutSeconds: number;
}

export async function benchOverload(opts: OverloadBenchOptions) {
  const svc = await startBenchService();
  try {
    const sender = senderFor(opts.transport, svc);
    const source = sourceFor(opts.transport, opts);
    const pid = svc.child.pid!;
    const all = meter(pid);
    const normal = await closedLoop(sender, source, { clients: opts.concurrency, seconds: opts.seconds, keepTraces: true });
    const normalUse = all.read(normal.acked.spans);
    const b = meter(pid);
    const burst = await closedLoop(sender, source, { clients: opts.concurrency * opts.factor, seconds: opts.burstSeconds, keepTraces: true });
    const burstUse = b.read(burst.acked.spans);
    const traces = [...normal.ackedTraces, ...burst.ackedTraces];
    const seen = await waitVisible(svc, traces.length, opts.visibleTimeoutSeconds);
    const drained = b.read(burst.acked.spans);
    const total = all.read(normal.acked.spans + burst.acked.spans); // before the verification reads
    b.stop();
    all.stop();
    sender.close();
    const check = await verifyAcked(svc, traces, opts.verify);
    const result = {
      transport: opts.transport,
      normal: {
        concurrency: opts.concurrency,
        load_s: round(normal.seconds, 1),
        spans_per_s_acked: Math.round(normal.acked.spans / normal.seconds),
        latency_ms: summarize(normal.latencies),
        outcomes: normal.outcomes.toJSON(),
        server_rss_mb: normalUse.server_rss_mb,
        server_peak_rss_mb: normalUse.server_peak_rss_mb,
      },
      burst: {
        concurrency: opts.concurrency * opts.factor,
        load_s: round(burst.seconds, 1),
        spans_per_s_acked: Math.round(burst.acked.spans / burst.seconds),
        latency_ms: summarize(burst.latencies),
        refused: burst.outcomes.refused,
        refused_with_retry_after: burst.outcomes.refusedWithRetryHint,
        network_errors: burst.outcomes.networkErrors,
        gave_up_requests: burst.failed,
        outcomes: burst.outcomes.toJSON(),
        server_peak_rss_mb: drained.server_peak_rss_mb,
        server_rss_mb_after_drain: drained.server_rss_mb,
        drain_s: seen.at === undefined ? null : round((seen.at - burst.end) / 1000),
        server_cpu_cores: burstUse.server_cpu_cores,
      },
      acked_traces: traces.length,
      visible_traces: seen.visible,
      lost: { ...check, lost_traces: check.missing + check.incomplete },
      server_cpu_ms_per_1k_spans: total.server_cpu_ms_per_1k_spans,
      server_peak_rss_mb: total.server_peak_rss_mb,
      other_processes_cpu_cores: total.other_processes_cpu_cores,
    };
    console.log(JSON.stringify({ phase: 'overload', ...result }));
    return result;
  } finally {
    await svc.stop();
  }
}
