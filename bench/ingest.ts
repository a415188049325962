import { getJson, meter, round, serverFigures, spanSize, summarize } from './lib.js';
import { closedLoop, waitVisible } from './load.js';
import { jsonSender, jsonSource } from './senders.js';
import { startBenchService, type BenchService } from './service.js';

/**
 * JSON ingest (`POST /api/traces/ingest`). `json` is issue 7's throughput target alone: 10-span
 * traces of ~2 KB spans from 64 concurrent clients. `ingest` (issue 2) runs the same phase, then
 * fills the store to 1M spans and times reads (trace by id, trace list) at that size.
 * Run: `npm run bench -- json|ingest [--quick] [--runs N] [--seconds S] [--concurrency N]
 * [--spans-per-trace N] [--span-size 2k|legacy]`.
 */
export interface JsonBenchOptions {
  concurrency: number;
  seconds: number;
  spansPerTrace: number;
  spanSize: string;
  visibleTimeoutSeconds: number;
}

/** The throughput phase on a running service. */
async function throughput(svc: BenchService, opts: JsonBenchOptions) {
  const sender = jsonSender(svc.apiUrl, svc.projectId, svc.headers);
  const source = jsonSource(opts.spansPerTrace, spanSize(opts.spanSize));
  const sample = source();
  const m = meter(svc.child.pid!);
  const run = await closedLoop(sender, source, { clients: opts.concurrency, seconds: opts.seconds, keepTraces: true });
  const load = m.read(run.acked.spans);
  const seen = await waitVisible(svc, run.acked.traces, opts.visibleTimeoutSeconds);
  const total = m.read(run.acked.spans);
  m.stop();
  return {
    run,
    result: {
      concurrency: opts.concurrency,
      spans_per_trace: opts.spansPerTrace,
      bytes_per_span: Math.round(Buffer.byteLength(sample.body) / sample.spans),
      load_s: round(run.seconds, 1),
      acked_spans: run.acked.spans,
      spans_per_s: Math.round(run.acked.spans / run.seconds),
      traces_per_s: Math.round(run.acked.traces / run.seconds),
      visible_lag_s: seen.at === undefined ? null : round((seen.at - run.end) / 1000),
      visible_traces: seen.visible,
      latency_ms: summarize(run.latencies),
      outcomes: run.outcomes.toJSON(),
      failed_requests: run.failed,
      ...serverFigures(svc.child.pid!, load, total),
    },
  };
}

/** One run of `json`: the throughput phase against a fresh service. */
export async function benchJson(opts: JsonBenchOptions) {
  const svc = await startBenchService();
  try {
    const { result } = await throughput(svc, opts);
    console.log(JSON.stringify({ phase: 'json', ...result }));
    return result;
  } finally {
    await svc.stop();
  }
}

/**
 * One run of `auth` (issue 9): the `json` throughput phase with credentials required (an API key
 * on every request, checked, and the project's rate limit counted, limits never reached) and with
 * `AUTH_MODE=none`, each against a fresh service. Target: within 5%.
 */
export async function benchAuth(opts: JsonBenchOptions) {
  const phase = async (mode: 'required' | 'none') => {
    const svc = await startBenchService({ AUTH_MODE: mode });
    try {
      const { result } = await throughput(svc, opts);
      console.log(
        JSON.stringify({
          phase: `auth-${mode}`,
          spans_per_s: result.spans_per_s,
          cpu_ms_per_1k_spans: result.server_cpu_ms_per_1k_spans,
          p50_ms: result.latency_ms.p50,
        }),
      );
      return result;
    } finally {
      await svc.stop();
    }
  };
  const required = await phase('required');
  const none = await phase('none');
  const perRequestUs = (r: typeof required) => ((r.server_cpu_ms_per_1k_spans ?? NaN) / 1000) * r.spans_per_trace * 1000;
  return {
    required: {
      spans_per_s: required.spans_per_s,
      requests_per_s: required.traces_per_s,
      server_cpu_us_per_request: round(perRequestUs(required)),
      latency_ms: required.latency_ms,
      failed_requests: required.failed_requests,
    },
    none: {
      spans_per_s: none.spans_per_s,
      requests_per_s: none.traces_per_s,
      server_cpu_us_per_request: round(perRequestUs(none)),
      latency_ms: none.latency_ms,
      failed_requests: none.failed_requests,
    },
    throughput_required_over_none: round(required.spans_per_s / none.spans_per_s, 3),
    auth_and_rate_limit_cpu_us_per_request: round(perRequestUs(required) - perRequestUs(none)),
  };
}

/** One run of `ingest`: throughput, then a fill to `targetSpans` stored spans, then reads. */
export async function benchIngest(opts: JsonBenchOptions & { targetSpans: number; reads: number }) {
  const svc = await startBenchService();
  try {
    const { run, result: ingest } = await throughput(svc, opts);
    console.log(JSON.stringify({ phase: 'ingest', ...ingest }));

    // The fill only sets up the stored spans for the reads: larger traces get there sooner.
    const fillStart = performance.now();
    const fill = await closedLoop(jsonSender(svc.apiUrl, svc.projectId), jsonSource(50, spanSize(opts.spanSize), 'fill'), {
      clients: opts.concurrency,
      seconds: Infinity,
      maxSpans: opts.targetSpans - run.acked.spans,
      keepTraces: true,
    });
    const stored = run.acked.spans + fill.acked.spans;
    console.log(
      JSON.stringify({
        phase: 'fill',
        stored_spans: stored,
        spans_per_s: Math.round(fill.acked.spans / fill.seconds),
        seconds: Math.round((performance.now() - fillStart) / 1000),
      }),
    );

    const ids = [...run.ackedTraces, ...fill.ackedTraces].map((t) => t.id);
    const readHeaders = { 'x-project-id': svc.projectId };
    const byId: number[] = [];
    for (let i = 0; i < opts.reads; i++) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const t = performance.now();
      const res = await getJson(`${svc.apiUrl}/api/traces/${id}`, readHeaders);
      byId.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`trace ${id}: ${res.status}`);
    }
    const list: number[] = [];
    const listFiltered: number[] = [];
    for (let i = 0; i < Math.max(20, opts.reads / 5); i++) {
      let t = performance.now();
      const res = await getJson(`${svc.apiUrl}/api/traces?limit=50&offset=${(i % 5) * 50}`, readHeaders);
      list.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`list: ${res.status}`);
      t = performance.now();
      await getJson(`${svc.apiUrl}/api/traces?status=error&limit=50`, readHeaders);
      listFiltered.push(performance.now() - t);
    }
    const reads = {
      stored_spans: stored,
      trace_by_id_ms: summarize(byId),
      trace_list_ms: summarize(list),
      trace_list_status_filter_ms: summarize(listFiltered),
    };
    console.log(JSON.stringify({ phase: 'reads', ...reads }));
    return { ingest, reads };
  } finally {
    await svc.stop();
  }
}
