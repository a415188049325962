import { meter, round, summarize } from './lib.js';
import { closedLoop, openLoop } from './load.js';
import type { PayloadShape } from './otlp-payloads.js';
import { senderFor, sourceFor, type Transport } from './senders.js';
import { startBenchService } from './service.js';

/**
 * Issue 7's latency target: p99 acknowledgement latency at half the sustained maximum. The
 * maximum is measured once (closed loop, `concurrency` clients, against its own fresh service) or
 * given as `--rate` (spans/s); every run then sends at `fraction` of it on a fixed schedule (open
 * loop: requests go out on time whatever is pending, latency counts from the scheduled time),
 * against a fresh service, after `warmupSeconds` not counted.
 * Run: `npm run bench -- latency [--transport http|grpc|json] [--rate SPANS_PER_S] [--fraction 0.5]
 * [--seconds S] [--runs N] [--quick]`.
 */
export interface LatencyBenchOptions extends PayloadShape {
  transport: Transport;
  /** Sustained maximum in spans/s; measured first when absent. */
  rate?: number;
  fraction: number;
  /** Closed-loop clients of the calibration. */
  concurrency: number;
  calibrateSeconds: number;
  seconds: number;
  warmupSeconds: number;
}

const spansPerRequest = (opts: LatencyBenchOptions) => (opts.transport === 'json' ? opts.spansPerTrace : opts.spansPerPayload);

/** The sustained maximum (acknowledged spans/s) at `concurrency` clients, on a fresh service. */
async function calibrate(opts: LatencyBenchOptions) {
  const svc = await startBenchService();
  try {
    const sender = senderFor(opts.transport, svc);
    const run = await closedLoop(sender, sourceFor(opts.transport, opts), { clients: opts.concurrency, seconds: opts.calibrateSeconds });
    sender.close();
    const max = {
      transport: opts.transport,
      concurrency: opts.concurrency,
      seconds: round(run.seconds, 1),
      spans_per_s: Math.round(run.acked.spans / run.seconds),
      latency_ms: summarize(run.latencies),
    };
    console.log(JSON.stringify({ phase: 'latency-calibrate', ...max }));
    return max;
  } finally {
    await svc.stop();
  }
}

/** A run function for bench/run.ts: the first call calibrates (unless `rate` is given). */
export function latencyBench(opts: LatencyBenchOptions) {
  let max: Promise<{ spans_per_s: number }> | undefined = opts.rate ? Promise.resolve({ spans_per_s: opts.rate }) : undefined;
  return async () => {
    max ??= calibrate(opts);
    const { spans_per_s: maxRate } = await max;
    const target = maxRate * opts.fraction;
    const perSecond = target / spansPerRequest(opts);
    const svc = await startBenchService();
    try {
      const sender = senderFor(opts.transport, svc);
      const m = meter(svc.child.pid!);
      const run = await openLoop(sender, sourceFor(opts.transport, opts), { perSecond, seconds: opts.seconds, warmupSeconds: opts.warmupSeconds });
      const used = m.read(run.acked.spans);
      m.stop();
      sender.close();
      const result = {
        transport: opts.transport,
        sustained_max_spans_per_s: maxRate,
        max_measured: opts.rate === undefined,
        fraction: opts.fraction,
        target_spans_per_s: Math.round(target),
        requests_per_s: round(perSecond),
        spans_per_request: spansPerRequest(opts),
        achieved_spans_per_s: Math.round(run.acked.spans / run.seconds),
        requests: run.requests,
        measured_requests: run.measured,
        ack_latency_ms: summarize(run.latencies),
        max_pending: run.maxPending,
        max_send_late_ms: run.maxSendLateMs,
        outcomes: run.outcomes.toJSON(),
        failed_requests: run.failed,
        server_cpu_cores: used.server_cpu_cores,
        server_cpu_ms_per_1k_spans: used.server_cpu_ms_per_1k_spans,
        server_peak_rss_mb: used.server_peak_rss_mb,
        client_cpu_cores: used.client_cpu_cores,
        other_processes_cpu_cores: used.other_processes_cpu_cores,
      };
      console.log(JSON.stringify({ phase: 'latency', ...result }));
      return result;
    } finally {
      await svc.stop();
    }
  };
}
