import { startKafka } from '../test/helpers/kafka.js';
import { getJson, meter, rssMb, round, sleep, summarize } from './lib.js';
import { closedLoop, waitVisible } from './load.js';
import { buildPayload, buildPool, stamp, type PayloadTemplate } from './otlp-payloads.js';
import { deliver, httpSender, otlpSource, Outcomes, type Sender } from './senders.js';
import { startBenchService, type BenchService } from './service.js';

/**
 * Embedded batcher vs Kafka (KAFKA_BROKERS; receivers produce, the ingester role consumes), each
 * against a fresh service, all over OTLP/HTTP protobuf:
 *  1. sustained load: acknowledged and end-to-end (visible through the API) spans/s;
 *  2. ingest-to-queryable latency: meanwhile a probe loop sends one small trace (at most one every
 *     `probeIntervalMs`, `probeInFlight` at a time) and polls GET /api/traces/{id} every
 *     `probePollMs` until all its spans are there; send-to-visible split into send-to-200 and 200-to-visible (`polls`: GETs
 *     it took; 1 means visible at the first look, so 200-to-visible is then just one GET's latency);
 *  3. a burst at higher concurrency: service RSS sampled every 250 ms, 429/503 answers counted.
 * Run: `npm run bench -- write-path [--quick] [--concurrency N] [--paths embedded,kafka] [--probes N]`.
 */
export type WritePathKind = 'embedded' | 'kafka';

export interface WritePathBenchOptions {
  paths: WritePathKind[];
  concurrency: number;
  seconds: number;
  spansPerPayload: number;
  spansPerTrace: number;
  poolSize: number;
  probeIntervalMs: number;
  probePollMs: number;
  /** Probes pending at once (1: one at a time). More give more samples but add GET load. */
  probeInFlight: number;
  /** A probe not visible after this long counts as a timeout. */
  probeTimeoutMs: number;
  burstConcurrency: number;
  burstSeconds: number;
  visibleTimeoutSeconds: number;
}

/** Sequential probes until `stop()`: send one small trace, poll until all its spans are queryable. */
function startProbes(svc: BenchService, sender: Sender, tpl: PayloadTemplate, opts: WritePathBenchOptions) {
  const headers = { 'x-project-id': svc.projectId };
  const [latencies, acks, afterAck, polls]: number[][] = [[], [], [], []];
  const outcomes = new Outcomes();
  const stats = { sent: 0, failed: 0, timeouts: 0 };
  let stopped = false;
  const period = opts.probeIntervalMs * opts.probeInFlight;
  const loops = Array.from({ length: opts.probeInFlight }, async (_, i) => {
    await sleep(i * opts.probeIntervalMs);
    while (!stopped) {
      const tick = performance.now();
      const { bytes, traceId } = stamp(tpl);
      stats.sent++;
      // Measured from the first attempt: a refusal the client has to retry is part of the wait.
      const ok = await deliver(sender, bytes, outcomes);
      const acked = performance.now();
      if (!ok) stats.failed++;
      else
        for (let n = 1; ; n++) {
          const res = await getJson(`${svc.apiUrl}/api/traces/${traceId}`, headers).catch(() => undefined);
          if (res?.status === 200 && ((res.body as { spans?: unknown[] }).spans?.length ?? 0) >= tpl.spans) {
            const now = performance.now();
            latencies.push(now - tick);
            acks.push(acked - tick);
            afterAck.push(now - acked);
            polls.push(n);
            break;
          }
          if (performance.now() - tick > opts.probeTimeoutMs) {
            stats.timeouts++;
            break;
          }
          await sleep(opts.probePollMs);
        }
      await sleep(Math.max(0, tick + period - performance.now()));
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return {
        ...stats,
        traces: stats.sent - stats.failed,
        visible_ms: summarize(latencies),
        ack_ms: summarize(acks),
        ack_to_visible_ms: summarize(afterAck),
        polls: summarize(polls),
        outcomes: outcomes.toJSON(),
      };
    },
  };
}

/** Warnings and errors the service logged (pino JSON lines), with a few distinct messages. */
function serviceLog(svc: BenchService) {
  const lines = svc
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { level?: number; msg?: string }];
      } catch {
        return [];
      }
    });
  const bad = lines.filter((l) => (l.level ?? 0) >= 40);
  return {
    warn: bad.filter((l) => l.level === 40).length,
    error: bad.filter((l) => (l.level ?? 0) >= 50).length,
    messages: [...new Set(bad.map((l) => l.msg))].slice(0, 5),
  };
}

const refusals = (outcomes: Outcomes) => ({
  '429': outcomes.counts['429'] ?? 0,
  '503': outcomes.counts['503'] ?? 0,
  with_retry_after: outcomes.refusedWithRetryHint,
});

async function runPath(kind: WritePathKind, pool: PayloadTemplate[], probeTpl: PayloadTemplate, opts: WritePathBenchOptions) {
  const broker = kind === 'kafka' ? await startKafka() : undefined;
  try {
    const svc = await startBenchService(broker ? { KAFKA_BROKERS: broker.brokers.join(',') } : {});
    const pid = svc.child.pid!;
    try {
      const sender = httpSender(svc.otlpHttpUrl, svc.projectId);

      // 1 + 2: sustained load with the latency probe alongside.
      const m = meter(pid);
      const probes = startProbes(svc, sender, probeTpl, opts);
      const run = await closedLoop(sender, otlpSource(pool), { clients: opts.concurrency, seconds: opts.seconds });
      const probe = await probes.stop();
      const loadS = (run.end - run.start) / 1000;
      const used = m.read(run.acked.spans);
      const seen = await waitVisible(svc, run.acked.traces + probe.traces, opts.visibleTimeoutSeconds);
      const total = m.read(run.acked.spans);
      m.stop();
      const sustained = {
        concurrency: opts.concurrency,
        spans_per_payload: opts.spansPerPayload,
        load_s: round(loadS, 1),
        acked_spans: run.acked.spans,
        spans_per_s_acked: Math.round(run.acked.spans / loadS),
        spans_per_s_e2e: seen.at === undefined ? null : Math.round(run.acked.spans / ((seen.at - run.start) / 1000)),
        visible_lag_s: seen.at === undefined ? null : round((seen.at - run.end) / 1000),
        visible_traces: seen.visible,
        expected_traces: run.acked.traces + probe.traces,
        failed_payloads: run.failed,
        outcomes: run.outcomes.toJSON(),
        server_cpu_cores: used.server_cpu_cores,
        server_cpu_ms_per_1k_spans: total.server_cpu_ms_per_1k_spans,
        other_processes_cpu_cores: used.other_processes_cpu_cores,
      };

      // 3: burst, RSS sampled throughout and until the burst's traces are visible.
      const rssBefore = rssMb(pid);
      let peak = rssBefore;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
      const burst = await closedLoop(sender, otlpSource(pool), { clients: opts.burstConcurrency, seconds: opts.burstSeconds });
      const rssAtEnd = rssMb(pid);
      const drained = await waitVisible(svc, sustained.expected_traces + burst.acked.traces, opts.visibleTimeoutSeconds);
      clearInterval(sampler);
      const burstS = (burst.end - burst.start) / 1000;
      return {
        phase: 'write-path',
        path: kind,
        sustained,
        ingest_to_queryable: {
          probe_interval_ms: opts.probeIntervalMs,
          in_flight: opts.probeInFlight,
          poll_ms: opts.probePollMs,
          spans_per_probe: probeTpl.spans,
          ...probe,
        },
        burst: {
          concurrency: opts.burstConcurrency,
          load_s: round(burstS, 1),
          acked_spans: burst.acked.spans,
          spans_per_s_acked: Math.round(burst.acked.spans / burstS),
          drain_s: drained.at === undefined ? null : round((drained.at - burst.end) / 1000),
          refusals: refusals(burst.outcomes),
          failed_payloads: burst.failed,
          outcomes: burst.outcomes.toJSON(),
          rss_mb: { before: rssBefore, peak: Math.max(peak, rssAtEnd), burst_end: rssAtEnd, after_drain: rssMb(pid) },
        },
        service_log: serviceLog(svc),
      };
    } finally {
      await svc.stop();
    }
  } finally {
    await broker?.stop();
  }
}

export async function benchWritePath(opts: WritePathBenchOptions) {
  const unknown = opts.paths.filter((p) => p !== 'embedded' && p !== 'kafka');
  if (unknown.length) throw new Error(`unknown write path(s) ${unknown.join(', ')}; use embedded, kafka`);
  const pool = buildPool(opts.poolSize, { spansPerPayload: opts.spansPerPayload, spansPerTrace: opts.spansPerTrace });
  const probeTpl = buildPayload({ spansPerPayload: 4, spansPerTrace: 4, seed: 1_000_003 });
  const results: Partial<Record<WritePathKind, Awaited<ReturnType<typeof runPath>>>> = {};
  for (const kind of opts.paths) {
    results[kind] = await runPath(kind, pool, probeTpl, opts);
    console.log(JSON.stringify(results[kind]));
  }
  return results;
}
